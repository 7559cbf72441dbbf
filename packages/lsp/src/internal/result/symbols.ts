// The answer of documentSymbol and workspaceSymbol: symbols named by LSP's symbol kinds. The public
// documentation of each is in LspResult.ts.
import * as Schema from "effect/Schema"
import { LspRange } from "../../LspQuery.js"
import * as Annotations from "./annotations.js"
import { LspBody } from "./body.js"

export const SymbolKindName = Schema.Literal(
  "File",
  "Module",
  "Namespace",
  "Package",
  "Class",
  "Method",
  "Property",
  "Field",
  "Constructor",
  "Enum",
  "Interface",
  "Function",
  "Variable",
  "Constant",
  "String",
  "Number",
  "Boolean",
  "Array",
  "Object",
  "Key",
  "Null",
  "EnumMember",
  "Struct",
  "Event",
  "Operator",
  "TypeParameter"
)

export type SymbolKindName = typeof SymbolKindName.Type

export const LspSymbol = Schema.Struct({
  name: Schema.String,
  kind: SymbolKindName,
  containerName: Schema.optional(Schema.String),
  detail: Schema.optional(Schema.String),
  uri: Schema.String,
  range: LspRange,
  selectionRange: LspRange,
  depth: Schema.optional(Schema.NonNegativeInt),
  provider: Schema.optional(Schema.String),
  body: Schema.optional(LspBody)
})

export type LspSymbol = typeof LspSymbol.Type

export const LspSymbolsResult = Schema.Struct({
  kind: Schema.Literal("symbols"),
  symbols: Schema.Array(LspSymbol),
  resolvedWorkspaceUri: Schema.String,
  ...Annotations.fields
})

export type LspSymbolsResult = typeof LspSymbolsResult.Type

export const symbols = (symbols: ReadonlyArray<LspSymbol>, resolvedWorkspaceUri: string): LspSymbolsResult => ({
  kind: "symbols",
  symbols,
  resolvedWorkspaceUri
})
