// The answers of the navigation operations: locations (goToDefinition, findReferences, goToImplementation)
// and hover text. The public documentation of each is in LspResult.ts.
import * as Schema from "effect/Schema"
import { LspRange } from "../../LspQuery.js"
import * as Annotations from "./annotations.js"
import { LspBody } from "./body.js"

export const LspLocation = Schema.Struct({
  uri: Schema.String,
  range: LspRange,
  body: Schema.optional(LspBody)
})

export type LspLocation = typeof LspLocation.Type

export const LspHover = Schema.Struct({
  contents: Schema.String,
  range: Schema.optional(LspRange)
})

export type LspHover = typeof LspHover.Type

export const LspLocationsResult = Schema.Struct({
  kind: Schema.Literal("locations"),
  locations: Schema.Array(LspLocation),
  resolvedWorkspaceUri: Schema.String,
  ...Annotations.fields
})

export type LspLocationsResult = typeof LspLocationsResult.Type

export const LspHoverResult = Schema.Struct({
  kind: Schema.Literal("hover"),
  hover: Schema.NullOr(LspHover),
  ...Annotations.fields
})

export type LspHoverResult = typeof LspHoverResult.Type

export const locations = (
  locations: ReadonlyArray<LspLocation>,
  resolvedWorkspaceUri: string
): LspLocationsResult => ({ kind: "locations", locations, resolvedWorkspaceUri })

export const hover = (hover: LspHover | null): LspHoverResult => ({ kind: "hover", hover })
