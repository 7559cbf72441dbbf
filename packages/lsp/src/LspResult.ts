/**
 * What the seam answers: locations for the three navigation operations, hover text for `hover`.
 * An empty answer is a success, never an error.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { LspRange } from "./LspQuery.js"

/**
 * A place in a document: a URI (usually `file:`) and a zero-based range.
 *
 * @since 0.1.0
 * @category models
 */
export const LspLocation = Schema.Struct({
  uri: Schema.String,
  range: LspRange
})

/**
 * @since 0.1.0
 * @category models
 */
export type LspLocation = typeof LspLocation.Type

/**
 * Hover contents normalised to one string (markdown or plain text), and the range it applies to.
 *
 * @since 0.1.0
 * @category models
 */
export const LspHover = Schema.Struct({
  contents: Schema.String,
  range: Schema.optional(LspRange)
})

/**
 * @since 0.1.0
 * @category models
 */
export type LspHover = typeof LspHover.Type

/**
 * Present (and `true`) only when the server was still busy with its startup work (indexing, loading the
 * project) when the answer had to be given: the answer may be missing results. Absent otherwise.
 *
 * @since 0.1.0
 * @category models
 */
export const Incomplete = Schema.Literal(true).annotations({
  description: "The server had not finished starting up; the answer may be incomplete."
})

/**
 * The answer to goToDefinition, findReferences or goToImplementation. `resolvedWorkspaceUri` is the
 * provider's canonical `file:` URI of the workspace: relativise against it, never against the request's
 * (possibly symlinked) root.
 *
 * @since 0.1.0
 * @category models
 */
export const LspLocationsResult = Schema.Struct({
  kind: Schema.Literal("locations"),
  locations: Schema.Array(LspLocation),
  resolvedWorkspaceUri: Schema.String,
  incomplete: Schema.optional(Incomplete)
})

/**
 * @since 0.1.0
 * @category models
 */
export type LspLocationsResult = typeof LspLocationsResult.Type

/**
 * The answer to hover; `null` when the server has nothing to say at that position.
 *
 * @since 0.1.0
 * @category models
 */
export const LspHoverResult = Schema.Struct({
  kind: Schema.Literal("hover"),
  hover: Schema.NullOr(LspHover),
  incomplete: Schema.optional(Incomplete)
})

/**
 * @since 0.1.0
 * @category models
 */
export type LspHoverResult = typeof LspHoverResult.Type

/**
 * The closed union of answers, discriminated by `kind`.
 *
 * @since 0.1.0
 * @category models
 */
export const LspQueryResult = Schema.Union(LspLocationsResult, LspHoverResult)

/**
 * @since 0.1.0
 * @category models
 */
export type LspQueryResult = typeof LspQueryResult.Type

/**
 * @since 0.1.0
 * @category constructors
 */
export const locations = (
  locations: ReadonlyArray<LspLocation>,
  resolvedWorkspaceUri: string
): LspLocationsResult => ({ kind: "locations", locations, resolvedWorkspaceUri })

/**
 * @since 0.1.0
 * @category constructors
 */
export const hover = (hover: LspHover | null): LspHoverResult => ({ kind: "hover", hover })

/**
 * Marks a result as possibly incomplete (see `Incomplete`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const markIncomplete = <A extends LspQueryResult>(result: A): A => ({ ...result, incomplete: true })
