/**
 * What a caller asks the seam: one of four read-only operations at a zero-based position in a file.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The four operations lsp-seam supports, and no others.
 *
 * @since 0.1.0
 * @category models
 */
export const LspOperation = Schema.Literal("goToDefinition", "findReferences", "goToImplementation", "hover")

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
export type LspPosition = typeof LspPosition.Type

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
export type LspRange = typeof LspRange.Type

/**
 * A query as callers send it. `filePath` is relative to `workspaceRoot` or absolute.
 *
 * `symbol` (since 0.2.0) addresses the position by name: the provider looks for whole-identifier
 * occurrences of it on `position.line` (see `LspIdentifiers`), preferring the one at or nearest
 * `position.character` — callers that have no column pass 0, which means "the first occurrence on the
 * line" — then on the nearest lines up to `LspIdentifiers.symbolWindow` (3) above and below, and queries
 * there. The answer then carries `resolved`. Without `symbol` the position is used exactly as given.
 *
 * @since 0.1.0
 * @category models
 */
export const LspQueryRequest = Schema.Struct({
  operation: LspOperation,
  filePath: Schema.String,
  position: LspPosition,
  workspaceRoot: Schema.String,
  symbol: Schema.optional(Schema.NonEmptyString)
})

/**
 * @since 0.1.0
 * @category models
 */
export type LspQueryRequest = typeof LspQueryRequest.Type

/**
 * A query as a provider receives it: the request plus the language id taken from the chosen provider's
 * extension map.
 *
 * @since 0.1.0
 * @category models
 */
export const LspProviderQuery = Schema.Struct({
  ...LspQueryRequest.fields,
  languageId: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export type LspProviderQuery = typeof LspProviderQuery.Type
