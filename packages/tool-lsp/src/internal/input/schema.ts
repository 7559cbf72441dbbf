/**
 * The Schemas of the tool's input: each argument (described for the model with the words of `prose.ts`), each
 * validated request shape, and the flat object the model fills in for the offered operations, with its JSON
 * Schema.
 */
import { LspQuery } from "@lsp-seam/lsp"
import * as JSONSchema from "effect/JSONSchema"
import * as Schema from "effect/Schema"
import { canonical, isPositionOperation, offersBody, type Operations, type ToolOperation } from "./operations.js"
import * as Prose from "./prose.js"

/** The `operation` argument for the offered operations: their literals, each explained. */
export const operationFor = (operations: Operations) => {
  const offered = canonical(operations)
  return Schema.Literal(...(offered as [ToolOperation, ...Array<ToolOperation>])).annotations({
    description: Prose.operationDescription(offered)
  })
}

/** A non-blank path. */
export const FilePath = Schema.String.pipe(Schema.pattern(/\S/)).annotations({ description: Prose.filePath })

// The same argument, described for a tool whose operations do not all point at a symbol.
const filePathFor = (offered: ReadonlyArray<ToolOperation>) =>
  offered.every(isPositionOperation) ? FilePath : FilePath.annotations({
    description: Prose.filePathOfFile(offered)
  })

// Built from custom filters rather than Schema.Int / greaterThanOrEqualTo so the JSON Schema carries no
// generated titles ("int", "greaterThanOrEqualTo(1)") that cost tokens and tell the model nothing.
/** An integer of at least 1. */
export const OneBased = Schema.Number.pipe(
  Schema.filter(Number.isInteger, { jsonSchema: { type: "integer" } }),
  Schema.filter((n) => n >= 1, { jsonSchema: { minimum: 1 } })
)

/** The one-based line. */
export const Line = OneBased.annotations({ description: Prose.line })

/** The one-based column, in UTF-16 code units. */
export const Character = OneBased.annotations({ description: Prose.character })

/** How many levels of callers impact follows: an integer from 1 to `LspQuery.maxImpactDepth`. */
export const Depth = OneBased.pipe(
  Schema.filter((n) => n <= LspQuery.maxImpactDepth, { jsonSchema: { maximum: LspQuery.maxImpactDepth } })
).annotations({ description: Prose.depth })

/** The identifier a position operation names. */
export const SymbolName = Schema.String.annotations({ description: Prose.symbol })

/** The workspaceSymbol search text: not blank. */
export const Query = Schema.String.pipe(Schema.pattern(/\S/)).annotations({ description: Prose.query })

/** Whether to answer with each location's code. */
export const IncludeBody = Schema.Boolean.annotations({ description: Prose.includeBody })

/** The new name of a rename preview: not blank. */
export const NewName = Schema.String.pipe(Schema.pattern(/\S/)).annotations({ description: Prose.newName })

/** The diagnostics threshold: this severity or worse. */
export const Severity = LspQuery.LspSeverity.annotations({ description: Prose.severity })

/** Validated input of diagnostics. */
export const DiagnosticsInput = Schema.Struct({
  operation: Schema.Literal("diagnostics"),
  file_path: FilePath,
  severity: Schema.optional(LspQuery.LspSeverity)
})

/** `DiagnosticsInput` once validated. */
export type DiagnosticsInput = typeof DiagnosticsInput.Type

/** The arguments that point at a symbol: a file, a line, and a column or the symbol's name. */
const at = {
  file_path: FilePath,
  line: Line,
  character: Schema.optional(Character),
  symbol: Schema.optional(SymbolName)
}

/** Validated input of a position operation. */
export const PositionInput = Schema.Struct({
  operation: LspQuery.LspPositionOperation,
  ...at,
  include_body: Schema.optional(IncludeBody)
})

/** `PositionInput` once validated. */
export type PositionInput = typeof PositionInput.Type

/** Validated input of documentSymbol. */
export const DocumentInput = Schema.Struct({
  operation: LspQuery.LspDocumentOperation,
  file_path: FilePath,
  include_body: Schema.optional(IncludeBody)
})

/** `DocumentInput` once validated. */
export type DocumentInput = typeof DocumentInput.Type

/** Validated input of workspaceSymbol. */
export const WorkspaceSymbolInput = Schema.Struct({
  operation: Schema.Literal("workspaceSymbol"),
  query: Query,
  file_path: Schema.optional(FilePath),
  include_body: Schema.optional(IncludeBody)
})

/** `WorkspaceSymbolInput` once validated. */
export type WorkspaceSymbolInput = typeof WorkspaceSymbolInput.Type

/** Validated input of renamePreview: a position operation's arguments and the new name. */
export const RenameInput = Schema.Struct({
  operation: Schema.Literal("renamePreview"),
  ...at,
  new_name: NewName
})

/** `RenameInput` once validated. */
export type RenameInput = typeof RenameInput.Type

/** Validated input of impact: a position operation's arguments and the levels of callers to follow. */
export const ImpactInput = Schema.Struct({
  operation: Schema.Literal("impact"),
  ...at,
  depth: Schema.optional(Depth)
})

/** `ImpactInput` once validated. */
export type ImpactInput = typeof ImpactInput.Type

/** The tool's input once validated, discriminated by `operation`. */
export const LspToolInput = Schema.Union(
  PositionInput,
  DocumentInput,
  WorkspaceSymbolInput,
  DiagnosticsInput,
  RenameInput,
  ImpactInput
)

/** `LspToolInput` once validated. */
export type LspToolInput = typeof LspToolInput.Type

/** The flat object the model fills in for the offered operations. */
export const parametersFor = (operations: Operations): Schema.Schema<unknown, unknown> => {
  const offered = canonical(operations)
  const positional = offered.some(isPositionOperation)
  const onlyPositional = offered.every(isPositionOperation)
  const filePath = filePathFor(offered)
  const fields: Record<string, Schema.Schema.All | Schema.PropertySignature.All> = {
    operation: operationFor(offered),
    file_path: offered.includes("workspaceSymbol") ? Schema.optional(filePath) : filePath
  }
  if (positional) {
    fields.line = onlyPositional ? Line : Schema.optional(Line)
    fields.character = Schema.optional(Character)
    fields.symbol = Schema.optional(SymbolName)
  }
  if (offered.includes("workspaceSymbol")) fields.query = Schema.optional(Query)
  if (offered.includes("diagnostics")) fields.severity = Schema.optional(Severity)
  if (offersBody(offered)) fields.include_body = Schema.optional(IncludeBody)
  if (offered.includes("renamePreview")) fields.new_name = Schema.optional(NewName)
  if (offered.includes("impact")) fields.depth = Schema.optional(Depth)
  return Schema.Struct(fields) as unknown as Schema.Schema<unknown, unknown>
}

/** The JSON Schema of `parametersFor`, generated as `@effect/ai` generates tool parameter schemas. */
export const jsonSchemaFor = (operations: Operations): JSONSchema.JsonSchema7 =>
  JSONSchema.fromAST(parametersFor(operations).ast, { definitions: {}, topLevelReferenceStrategy: "skip" })
