// The answer of impact: the declarations that use a symbol and, level after level, their callers. The public
// documentation of each is in LspResult.ts.
import * as Schema from "effect/Schema"
import { LspRange } from "../../LspQuery.js"
import * as Annotations from "./annotations.js"
import { SymbolKindName } from "./symbols.js"

export const LspImpactTarget = Schema.Struct({
  name: Schema.String,
  kind: SymbolKindName,
  uri: Schema.String,
  range: LspRange,
  selectionRange: LspRange
})

export type LspImpactTarget = typeof LspImpactTarget.Type

export const LspImpactNode = Schema.Struct({
  id: Schema.NonNegativeInt,
  level: Schema.NonNegativeInt,
  name: Schema.String,
  kind: SymbolKindName,
  uri: Schema.String,
  range: LspRange,
  selectionRange: LspRange,
  uses: Schema.Array(LspRange),
  calls: Schema.Array(Schema.NonNegativeInt),
  test: Schema.optional(Schema.Literal(true))
})

export type LspImpactNode = typeof LspImpactNode.Type

export const LspImpactLevel = Schema.Struct({
  level: Schema.NonNegativeInt,
  found: Schema.NonNegativeInt,
  shown: Schema.NonNegativeInt,
  cut: Schema.NonNegativeInt,
  tests: Schema.NonNegativeInt
})

export type LspImpactLevel = typeof LspImpactLevel.Type

export const LspImpactResult = Schema.Struct({
  kind: Schema.Literal("impact"),
  target: Schema.optional(LspImpactTarget),
  references: Schema.NonNegativeInt,
  depth: Schema.Int.pipe(Schema.between(1, 5)),
  nodes: Schema.Array(LspImpactNode),
  levels: Schema.Array(LspImpactLevel),
  testFiles: Schema.Array(Schema.String),
  resolvedWorkspaceUri: Schema.String,
  ...Annotations.fields
})

export type LspImpactResult = typeof LspImpactResult.Type
