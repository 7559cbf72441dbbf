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
  "diagnostics",
  "renamePreview",
  "impact"
)

/** One of `ToolOperation`'s literals. */
export type ToolOperation = typeof ToolOperation.Type

/** Every operation, in the canonical order. */
export const allOperations: readonly [ToolOperation, ...Array<ToolOperation>] = ToolOperation.literals

/** A non-empty list of operations a tool offers. */
export type Operations = ReadonlyArray<ToolOperation>

const positionOperations: ReadonlyArray<string> = [...LspQuery.LspPositionOperation.literals, "renamePreview", "impact"]

/**
 * Whether the operation points at a symbol with a file and a position (renamePreview does, with new_name; impact
 * too, with depth).
 */
export const isPositionOperation = (
  operation: ToolOperation
): operation is LspQuery.LspPositionOperation | "renamePreview" | "impact" => positionOperations.includes(operation)

/** The operations that take `include_body`: each location or symbol of their answer with its code. */
export const bodyOperations: ReadonlyArray<ToolOperation> = [
  "goToDefinition",
  "goToTypeDefinition",
  "goToImplementation",
  "documentSymbol",
  "workspaceSymbol"
]

/** Whether the operation takes `include_body`. */
export const takesBody = (operation: ToolOperation): boolean => bodyOperations.includes(operation)

/**
 * Whether a tool offering `operations` advertises `include_body` (in its schema, description and prompt): when
 * it offers an operation that takes it, except with only the reference's four, whose card stays 0.1.0's
 * verbatim (the argument is still accepted there).
 */
export const offersBody = (operations: Operations): boolean =>
  operations.some(takesBody) &&
  !operations.every((operation) => (LspQuery.referenceOperations as ReadonlyArray<string>).includes(operation))

/** The offered operations in the canonical order, each once. */
export const canonical = (operations: Operations): ReadonlyArray<ToolOperation> =>
  allOperations.filter((operation) => operations.includes(operation))
