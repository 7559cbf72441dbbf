/**
 * The operations the `lsp` tool can offer, their canonical order, and which of them point at a symbol. Every
 * other part of the input (prose, Schemas, validation) is built for a set of offered operations from here.
 */
import { LspQuery } from "@lsp-seam/lsp"
import * as Schema from "effect/Schema"

/** The seam operations the tool has arguments, validation and rendering for. */
export const ToolOperation = Schema.Literal(
  ...LspQuery.LspPositionOperation.literals,
  ...LspQuery.LspDocumentOperation.literals,
  "workspaceSymbol",
  "diagnostics"
)

/** One of `ToolOperation`'s literals. */
export type ToolOperation = typeof ToolOperation.Type

/** Every operation, in the canonical order. */
export const allOperations: readonly [ToolOperation, ...Array<ToolOperation>] = ToolOperation.literals

/** A non-empty list of operations a tool offers. */
export type Operations = ReadonlyArray<ToolOperation>

const positionOperations: ReadonlyArray<string> = LspQuery.LspPositionOperation.literals

/** Whether the operation points at a symbol with a file and a position. */
export const isPositionOperation = (operation: ToolOperation): operation is LspQuery.LspPositionOperation =>
  positionOperations.includes(operation)

/** The offered operations in the canonical order, each once. */
export const canonical = (operations: Operations): ReadonlyArray<ToolOperation> =>
  allOperations.filter((operation) => operations.includes(operation))
