/**
 * What a caller asks the seam: one of a closed set of read-only operations — at a zero-based position in a
 * file (the reference's four, goToTypeDefinition and the call hierarchy), about a whole file
 * (documentSymbol), across the workspace (workspaceSymbol), a file's diagnostics, or the preview of a rename
 * (renamePreview, which lists edits and never writes them). Each is a variant of its own shape.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The reference design's four operations, which every provider is expected to answer.
 *
 * @since 0.1.0
 * @category models
 */
export const referenceOperations = ["goToDefinition", "findReferences", "goToImplementation", "hover"] as const

/**
 * Operations asked at a position in a file (one-based in the tool, zero-based here). `incomingCalls` and
 * `outgoingCalls` are answered from the call hierarchy the provider prepares at that position.
 *
 * @since 0.1.0
 * @category models
 */
export const LspPositionOperation = Schema.Literal(
  ...referenceOperations,
  "goToTypeDefinition",
  "incomingCalls",
  "outgoingCalls"
)

/**
 * @since 0.1.0
 * @category models
 */
export type LspPositionOperation = typeof LspPositionOperation.Type

/**
 * Operations asked about a whole file.
 *
 * @since 0.1.0
 * @category models
 */
export const LspDocumentOperation = Schema.Literal("documentSymbol")

/**
 * @since 0.1.0
 * @category models
 */
export type LspDocumentOperation = typeof LspDocumentOperation.Type

/**
 * The operations a provider answers: every operation but those the seam composes from them (`impact`).
 *
 * @since 0.1.0
 * @category models
 */
export const LspProviderOperation = Schema.Literal(
  ...LspPositionOperation.literals,
  ...LspDocumentOperation.literals,
  "workspaceSymbol",
  "diagnostics",
  "renamePreview"
)

/**
 * @since 0.1.0
 * @category models
 */
export type LspProviderOperation = typeof LspProviderOperation.Type

/**
 * Every operation lsp-seam supports, and no others: the providers' operations, and `impact`, which the seam
 * answers by asking the provider several of them (see `LspImpactRequest`).
 *
 * @since 0.1.0
 * @category models
 */
export const LspOperation = Schema.Literal(...LspProviderOperation.literals, "impact")

/**
 * @since 0.1.0
 * @category models
 */
export type LspOperation = typeof LspOperation.Type

/**
 * A zero-based position; `character` counts UTF-16 code units (LSP's default encoding).
 *
 * @since 0.1.0
 * @category models
 */
export const LspPosition = Schema.Struct({
  line: Schema.NonNegativeInt,
  character: Schema.NonNegativeInt
})

/**
 * @since 0.1.0
 * @category models
 */
export interface LspPosition extends Schema.Schema.Type<typeof LspPosition> {}

/**
 * A zero-based, end-exclusive range.
 *
 * @since 0.1.0
 * @category models
 */
export const LspRange = Schema.Struct({
  start: LspPosition,
  end: LspPosition
})

/**
 * @since 0.1.0
 * @category models
 */
export interface LspRange extends Schema.Schema.Type<typeof LspRange> {}

/**
 * Whether each location or symbol of the answer should carry `body`, the source text of the whole declaration
 * it points at (see `LspResult.LspBody`). Honoured by the answers made of locations or symbols; the tool offers
 * it for goToDefinition, goToTypeDefinition, goToImplementation, documentSymbol and workspaceSymbol.
 *
 * @since 0.1.0
 * @category models
 */
export const IncludeBody = Schema.optional(Schema.Boolean)

/**
 * A query at a position, as callers send it. `filePath` is relative to `workspaceRoot` or absolute.
 *
 * `symbol` addresses the position by name: the provider looks for whole-identifier
 * occurrences of it on `position.line` (see `LspIdentifiers`), preferring the one at or nearest
 * `position.character` — callers that have no column pass 0, which means "the first occurrence on the
 * line" — then on the nearest lines up to `LspIdentifiers.symbolWindow` (3) above and below, and queries
 * there. The answer then carries `resolved`. Without `symbol` the position is used exactly as given.
 * `includeBody`: see `IncludeBody`.
 *
 * @since 0.1.0
 * @category models
 */
export const LspPositionRequest = Schema.Struct({
  operation: LspPositionOperation,
  filePath: Schema.String,
  position: LspPosition,
  workspaceRoot: Schema.String,
  symbol: Schema.optional(Schema.NonEmptyString),
  includeBody: IncludeBody
})

/**
 * @since 0.1.0
 * @category models
 */
export interface LspPositionRequest extends Schema.Schema.Type<typeof LspPositionRequest> {}

/**
 * A query about a whole file. `includeBody`: see `IncludeBody`.
 *
 * @since 0.1.0
 * @category models
 */
export const LspDocumentRequest = Schema.Struct({
  operation: LspDocumentOperation,
  filePath: Schema.String,
  workspaceRoot: Schema.String,
  includeBody: IncludeBody
})

/**
 * @since 0.1.0
 * @category models
 */
export interface LspDocumentRequest extends Schema.Schema.Type<typeof LspDocumentRequest> {}

/**
 * A search for symbols whose names match `query` (non-blank; servers match it fuzzily, by their own rules).
 * With `filePath` only that file's provider is asked (the file is opened first, so that servers that need a
 * project have one); without it the seam asks every provider and merges the answers, each symbol labelled
 * with the provider that gave it. `includeBody`: see `IncludeBody`.
 *
 * @since 0.1.0
 * @category models
 */
export const LspWorkspaceSymbolRequest = Schema.Struct({
  operation: Schema.Literal("workspaceSymbol"),
  query: Schema.String.pipe(Schema.pattern(/\S/)),
  workspaceRoot: Schema.String,
  filePath: Schema.optional(Schema.String),
  includeBody: IncludeBody
})

/**
 * @since 0.1.0
 * @category models
 */
export interface LspWorkspaceSymbolRequest extends Schema.Schema.Type<typeof LspWorkspaceSymbolRequest> {}

/**
 * How serious a diagnostic is, most serious first.
 *
 * @since 0.1.0
 * @category models
 */
export const LspSeverity = Schema.Literal("error", "warning", "information", "hint")

/**
 * @since 0.1.0
 * @category models
 */
export type LspSeverity = typeof LspSeverity.Type

/**
 * The server's diagnostics for a file's current text on disk, at `severity` or worse (default `"warning"`:
 * errors and warnings).
 *
 * @since 0.1.0
 * @category models
 */
export const LspDiagnosticsRequest = Schema.Struct({
  operation: Schema.Literal("diagnostics"),
  filePath: Schema.String,
  workspaceRoot: Schema.String,
  severity: Schema.optional(LspSeverity)
})

/**
 * @since 0.1.0
 * @category models
 */
export interface LspDiagnosticsRequest extends Schema.Schema.Type<typeof LspDiagnosticsRequest> {}

/**
 * The preview of renaming the symbol at a position to `newName`: the edits the server's rename would make,
 * listed and never applied (lsp-seam writes nothing). The position is given, or addressed by `symbol`, as in
 * `LspPositionRequest`.
 *
 * @since 0.1.0
 * @category models
 */
export const LspRenameRequest = Schema.Struct({
  operation: Schema.Literal("renamePreview"),
  filePath: Schema.String,
  position: LspPosition,
  workspaceRoot: Schema.String,
  symbol: Schema.optional(Schema.NonEmptyString),
  newName: Schema.String.pipe(Schema.pattern(/\S/))
})

/**
 * @since 0.1.0
 * @category models
 */
export interface LspRenameRequest extends Schema.Schema.Type<typeof LspRenameRequest> {}

/**
 * How many levels of callers `impact` follows above the declarations that use the symbol: 1 to
 * `maxImpactDepth`; `defaultImpactDepth` when left out.
 *
 * @since 0.1.0
 * @category models
 */
export const ImpactDepth = Schema.Int.pipe(Schema.between(1, 5))

/**
 * @since 0.1.0
 * @category constants
 */
export const defaultImpactDepth = 2

/**
 * @since 0.1.0
 * @category constants
 */
export const maxImpactDepth = 5

/**
 * @since 0.1.0
 * @category constants
 */
export const defaultImpactGroups = 40

/**
 * What a change to the symbol at a position would touch, in one question: its uses grouped by the declaration
 * each sits in, the callers of those declarations level after level up to `depth`, and which of them are test
 * code. The seam answers it by asking the file's provider findReferences, goToDefinition, documentSymbol and
 * incomingCalls (see `LspImpact`); providers never receive it. `maxGroups` caps the declarations kept per level
 * (default `defaultImpactGroups`); the answer counts what was cut. The position is given, or addressed by
 * `symbol`, as in `LspPositionRequest`.
 *
 * @since 0.1.0
 * @category models
 */
export const LspImpactRequest = Schema.Struct({
  operation: Schema.Literal("impact"),
  filePath: Schema.String,
  position: LspPosition,
  workspaceRoot: Schema.String,
  symbol: Schema.optional(Schema.NonEmptyString),
  depth: Schema.optional(ImpactDepth),
  maxGroups: Schema.optional(Schema.Int.pipe(Schema.between(1, 500)))
})

/**
 * @since 0.1.0
 * @category models
 */
export interface LspImpactRequest extends Schema.Schema.Type<typeof LspImpactRequest> {}

/**
 * A query as callers send it: the closed union of the request shapes, discriminated by `operation`.
 *
 * @since 0.1.0
 * @category models
 */
export const LspQueryRequest = Schema.Union(
  LspPositionRequest,
  LspDocumentRequest,
  LspWorkspaceSymbolRequest,
  LspDiagnosticsRequest,
  LspRenameRequest,
  LspImpactRequest
)

/**
 * @since 0.1.0
 * @category models
 */
export type LspQueryRequest =
  | LspPositionRequest
  | LspDocumentRequest
  | LspWorkspaceSymbolRequest
  | LspDiagnosticsRequest
  | LspRenameRequest
  | LspImpactRequest

/**
 * A query as a provider receives it: the request plus the language id taken from the chosen provider's
 * extension map (for a workspaceSymbol request without a file, the empty string: no file was routed). Every
 * request shape but `impact`, which the seam composes.
 *
 * @since 0.1.0
 * @category models
 */
export const LspProviderQuery = Schema.Union(
  Schema.Struct({ ...LspPositionRequest.fields, languageId: Schema.String }),
  Schema.Struct({ ...LspDocumentRequest.fields, languageId: Schema.String }),
  Schema.Struct({ ...LspWorkspaceSymbolRequest.fields, languageId: Schema.String }),
  Schema.Struct({ ...LspDiagnosticsRequest.fields, languageId: Schema.String }),
  Schema.Struct({ ...LspRenameRequest.fields, languageId: Schema.String })
)

/**
 * @since 0.1.0
 * @category models
 */
export type LspProviderQuery = typeof LspProviderQuery.Type

const atPosition: ReadonlyArray<string> = [...LspPositionOperation.literals, "renamePreview", "impact"]

/**
 * Whether a request is asked at a position: a position operation, renamePreview or impact.
 *
 * @since 0.1.0
 * @category guards
 */
export const isPositionRequest = <A extends { readonly operation: LspOperation }>(
  request: A
): request is Extract<A, { readonly operation: LspPositionOperation | "renamePreview" | "impact" }> =>
  atPosition.includes(request.operation)
