/**
 * What the model sends the `lsp` tool: an operation and that operation's arguments — a file and a one-based
 * cursor for the position operations, a file for documentSymbol, a query for workspaceSymbol — as one flat
 * object. This module publishes the input Schemas (with the model-facing descriptions), the JSON Schema and the
 * tool description for the operations a tool offers, validation with coded errors that say what to send,
 * and the conversion to the seam's requests (zero-based positions). Each of those concerns lives in its own
 * module under `internal/input/`.
 *
 * @since 0.1.0
 */
import type { LspError, LspQuery } from "@lsp-seam/lsp"
import type * as Either from "effect/Either"
import type * as JSONSchema from "effect/JSONSchema"
import type * as Schema from "effect/Schema"
import * as Convert from "./internal/input/convert.js"
import * as Operations_ from "./internal/input/operations.js"
import * as Prose from "./internal/input/prose.js"
import * as InputSchema from "./internal/input/schema.js"
import * as Validate from "./internal/input/validate.js"

/**
 * The tool's name as the model sees it.
 *
 * @since 0.1.0
 * @category constants
 */
export const name = "lsp"

/**
 * The seam operations the tool can offer: every position operation, documentSymbol, workspaceSymbol,
 * diagnostics, renamePreview and impact. A seam operation the tool has no arguments, validation and rendering for
 * is not among them, so no configuration can offer it by accident.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolOperation = Operations_.ToolOperation

/**
 * @since 0.1.0
 * @category models
 */
export type ToolOperation = typeof ToolOperation.Type

/**
 * Every operation the tool can offer, in the canonical order: the default of `LspToolConfig.operations`.
 *
 * @since 0.1.0
 * @category constants
 */
export const allOperations: readonly [ToolOperation, ...Array<ToolOperation>] = Operations_.allOperations

/**
 * A non-empty list of operations a tool offers.
 *
 * @since 0.1.0
 * @category models
 */
export type Operations = ReadonlyArray<ToolOperation>

/**
 * The offered operations in the canonical order (`ToolOperation`'s), each once, whatever the order
 * given.
 *
 * @since 0.1.0
 * @category utils
 */
export const canonical: (operations: Operations) => ReadonlyArray<ToolOperation> = Operations_.canonical

/**
 * The tool description the model sees for the offered operations. With exactly the reference's four it is the
 * description of 0.1.0, verbatim.
 *
 * @since 0.1.0
 * @category constructors
 */
export const descriptionFor: (operations: Operations) => string = Prose.descriptionFor

/**
 * The tool description the model sees when every operation is offered (the default configuration).
 *
 * @since 0.1.0
 * @category constants
 */
export const description = descriptionFor(allOperations)

/**
 * The `operation` argument for the offered operations: their literals, each explained.
 *
 * @since 0.1.0
 * @category schemas
 */
export const operationFor: (operations: Operations) => Schema.Literal<[ToolOperation, ...Array<ToolOperation>]> =
  InputSchema.operationFor

/**
 * The `operation` argument when every operation is offered.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Operation = operationFor(allOperations)

/**
 * @since 0.1.0
 * @category schemas
 */
export const FilePath = InputSchema.FilePath

/**
 * @since 0.1.0
 * @category schemas
 */
export const Line = InputSchema.Line

/**
 * @since 0.1.0
 * @category schemas
 */
export const Character = InputSchema.Character

/**
 * @since 0.1.0
 * @category schemas
 */
export const SymbolName = InputSchema.SymbolName

/**
 * The workspaceSymbol search text: not blank.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Query = InputSchema.Query

/**
 * The diagnostics threshold: this severity or worse.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Severity = InputSchema.Severity

/**
 * Validated input of diagnostics.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DiagnosticsInput = InputSchema.DiagnosticsInput

/**
 * @since 0.1.0
 * @category models
 */
export interface DiagnosticsInput extends Schema.Schema.Type<typeof DiagnosticsInput> {}

/**
 * Validated input of a position operation. `character` may be left out when `symbol` is given.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PositionInput = InputSchema.PositionInput

/**
 * @since 0.1.0
 * @category models
 */
export interface PositionInput extends Schema.Schema.Type<typeof PositionInput> {}

/**
 * Validated input of documentSymbol.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DocumentInput = InputSchema.DocumentInput

/**
 * @since 0.1.0
 * @category models
 */
export interface DocumentInput extends Schema.Schema.Type<typeof DocumentInput> {}

/**
 * Validated input of workspaceSymbol.
 *
 * @since 0.1.0
 * @category schemas
 */
export const WorkspaceSymbolInput = InputSchema.WorkspaceSymbolInput

/**
 * @since 0.1.0
 * @category models
 */
export interface WorkspaceSymbolInput extends Schema.Schema.Type<typeof WorkspaceSymbolInput> {}

/**
 * Validated input of impact: a position operation's arguments, and `depth`, the levels of callers to follow
 * (1 to 5, default 2). It takes no `include_body`: the code of every declaration it lists would be too much.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ImpactInput = InputSchema.ImpactInput

/**
 * @since 0.1.0
 * @category models
 */
export interface ImpactInput extends Schema.Schema.Type<typeof ImpactInput> {}

/**
 * The tool's input once validated: one variant per request shape, discriminated by `operation`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LspToolInput = InputSchema.LspToolInput

/**
 * @since 0.1.0
 * @category models
 */
export type LspToolInput =
  | PositionInput
  | DocumentInput
  | WorkspaceSymbolInput
  | DiagnosticsInput
  | InputSchema.RenameInput
  | ImpactInput

/**
 * The arguments of one call as a program writes them: the encoded side of `LspToolInput`, one variant per
 * operation, so a misspelt operation or an argument the operation does not take fails to compile. What
 * `LspToolHandler.run` and `LspClient.query` take; arguments from a model or another process are `unknown`
 * and go to `LspToolHandler.runUnknown` / `LspClient.queryUnknown`, which validate them.
 *
 * @since 0.1.0
 * @category models
 */
export type LspToolInputEncoded = typeof LspToolInput.Encoded

/**
 * The flat object the model fills in for the offered operations — one object, whatever the operation, since
 * models handle that best: `operation`, then only the arguments some offered operation takes. An argument is
 * required when every offered operation needs it (`file_path` unless workspaceSymbol is offered, `line` when
 * only position operations are).
 *
 * @since 0.1.0
 * @category schemas
 */
export const parametersFor: (operations: Operations) => Schema.Schema<unknown, unknown> = InputSchema.parametersFor

/**
 * The JSON Schema of the input for the offered operations, generated the way `@effect/ai` generates tool
 * parameter schemas (no `$schema`, top-level inlined). With exactly the reference's four it is the schema of
 * 0.1.0, verbatim.
 *
 * @since 0.1.0
 * @category constructors
 */
export const jsonSchemaFor: (operations: Operations) => JSONSchema.JsonSchema7 = InputSchema.jsonSchemaFor

/**
 * The JSON Schema of the input when every operation is offered (the default configuration).
 *
 * @since 0.1.0
 * @category constants
 */
export const jsonSchema: JSONSchema.JsonSchema7 = jsonSchemaFor(allOperations)

/**
 * Validates raw arguments — `operation` first (one of the offered operations, default all), then that
 * operation's own arguments — and fails with the first problem as `LSP_INVALID_ARGUMENTS`, its message saying
 * what to send for that operation:
 *
 * - position operations: non-blank `file_path`, `line` integer ≥ 1, then `character` integer ≥ 1 (optional
 *   when `symbol` is given) and `symbol` one identifier;
 * - documentSymbol: non-blank `file_path`;
 * - workspaceSymbol: non-blank `query`, then `file_path` non-blank when given;
 * - diagnostics: non-blank `file_path`, then `severity` one of the four when given;
 * - renamePreview: a position operation's arguments, then non-blank `new_name`;
 * - impact: a position operation's arguments, then `depth` an integer from 1 to 5 when given.
 *
 * Arguments the operation does not take (a `line` sent with documentSymbol, a `query` with hover) and any
 * other property are ignored.
 *
 * @since 0.1.0
 * @category validation
 */
export const validate: (
  input: unknown,
  operations?: Operations
) => Either.Either<LspToolInput, LspError.LspArgumentsError> = Validate.validate

/**
 * One-based tool position → zero-based seam position.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toSeamPosition: (
  position: { readonly line: number; readonly character: number }
) => LspQuery.LspPosition = Convert.toSeamPosition

/**
 * Zero-based seam position → one-based tool position.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromSeamPosition: (
  position: LspQuery.LspPosition
) => { readonly line: number; readonly character: number } = Convert.fromSeamPosition

/**
 * The seam request for validated input in a workspace: the variant of the input's operation. With `symbol`
 * and no `character`, the seam position's character is 0: "the first occurrence on the line".
 *
 * @since 0.1.0
 * @category conversions
 */
export const toQueryRequest: (input: LspToolInput, workspaceRoot: string) => LspQuery.LspQueryRequest =
  Convert.toQueryRequest
