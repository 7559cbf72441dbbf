/**
 * What the model sends the `lsp` tool: an operation and that operation's arguments — a file and a one-based
 * cursor for the position operations, a file for documentSymbol, a query for workspaceSymbol — as one flat
 * object. This module owns the input Schemas (with the model-facing descriptions), the JSON Schema and the
 * tool description for the operations a tool offers, validation with coded errors that say what to send,
 * and the conversion to the seam's requests (zero-based positions).
 *
 * @since 0.1.0
 */
import { LspError, LspIdentifiers, LspQuery } from "@lsp-seam/lsp"
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * The tool's name as the model sees it.
 *
 * @since 0.1.0
 * @category constants
 */
export const name = "lsp"

/**
 * The seam operations the tool can offer: every position operation, documentSymbol, workspaceSymbol and
 * diagnostics. A seam
 * operation the tool has no arguments, validation and rendering for is not among them, so no configuration can
 * offer it by accident.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ToolOperation = Schema.Literal(
  ...LspQuery.LspPositionOperation.literals,
  ...LspQuery.LspDocumentOperation.literals,
  "workspaceSymbol",
  "diagnostics"
)

/**
 * @since 0.2.0
 * @category models
 */
export type ToolOperation = typeof ToolOperation.Type

/**
 * Every operation the tool can offer, in the canonical order: the default of `LspToolConfig.operations`.
 *
 * @since 0.2.0
 * @category constants
 */
export const allOperations: readonly [ToolOperation, ...Array<ToolOperation>] = ToolOperation.literals

/**
 * A non-empty list of operations a tool offers.
 *
 * @since 0.2.0
 * @category models
 */
export type Operations = ReadonlyArray<ToolOperation>

const positionOperations: ReadonlyArray<string> = LspQuery.LspPositionOperation.literals

const isPositionOperation = (operation: ToolOperation): operation is LspQuery.LspPositionOperation =>
  positionOperations.includes(operation)

/**
 * The offered operations in the canonical order (`ToolOperation`'s), each once, whatever the order
 * given.
 *
 * @since 0.2.0
 * @category utils
 */
export const canonical = (operations: Operations): ReadonlyArray<ToolOperation> =>
  allOperations.filter((operation) => operations.includes(operation))

/** How each operation is named in the tool description (the reference's four exactly as before 0.2.0). */
const descriptionTerm: Readonly<Record<ToolOperation, string>> = {
  goToDefinition: "goToDefinition",
  findReferences: "findReferences (always includes the declaration)",
  goToImplementation: "goToImplementation",
  hover: "hover (type and documentation)",
  goToTypeDefinition: "goToTypeDefinition",
  incomingCalls: "incomingCalls (callers)",
  outgoingCalls: "outgoingCalls (callees)",
  documentSymbol: "documentSymbol (a file's outline)",
  workspaceSymbol: "workspaceSymbol (find declarations by name)",
  diagnostics: "diagnostics (a file's current errors and warnings)"
}

/** How each operation is explained in the `operation` argument's description. */
const operationMeaning: Readonly<Record<ToolOperation, string>> = {
  goToDefinition: "goToDefinition: where the symbol is defined.",
  findReferences: "findReferences: every use of the symbol, including its declaration.",
  goToImplementation: "goToImplementation: implementations of an interface or abstract member.",
  hover: "hover: the symbol's type and documentation.",
  goToTypeDefinition: "goToTypeDefinition: where the symbol's type is defined.",
  incomingCalls: "incomingCalls: the functions that call the function at the position, with call sites.",
  outgoingCalls: "outgoingCalls: the functions it calls, with call sites.",
  documentSymbol: "documentSymbol: the symbols declared in file_path, nested.",
  workspaceSymbol: "workspaceSymbol: declarations whose name matches query, across the workspace.",
  diagnostics: "diagnostics: the errors and warnings of file_path as it is on disk now."
}

const listed = (terms: ReadonlyArray<string>): string =>
  terms.length <= 2 ? terms.join(" and ") : `${terms.slice(0, -1).join(", ")}, and ${terms[terms.length - 1]}`

/**
 * The tool description the model sees for the offered operations. With exactly the reference's four it is the
 * description of 0.1.0, verbatim.
 *
 * @since 0.2.0
 * @category constructors
 */
export const descriptionFor = (operations: Operations): string => {
  const offered = canonical(operations)
  const positional = offered.some(isPositionOperation)
  const others = offered.filter((operation) => !isPositionOperation(operation))
  const onlyLocations = offered.every((operation) => LspQuery.referenceOperations.includes(operation as never))
  return [
    `Precise, read-only code navigation through the project's language server: ${
      listed(offered.map((operation) => descriptionTerm[operation]))
    }.`,
    ...(positional
      ? ["Point at a symbol with file_path and its one-based line and character, or name it with symbol near line."]
      : []),
    ...(offered.includes("documentSymbol") ? ["documentSymbol takes file_path only."] : []),
    ...(offered.includes("workspaceSymbol")
      ? ["workspaceSymbol takes query, and file_path to search only that file's language server."]
      : []),
    ...(offered.includes("diagnostics")
      ? ["diagnostics takes file_path, and severity to include information or hints."]
      : []),
    ...(positional && others.length > 0 ? ["Arguments an operation does not take are ignored."] : []),
    `${onlyLocations ? "Locations" : "Results"} come back as path:line:character lines (one-based), grouped by ` +
    "file, relative to the workspace when inside it."
  ].join(" ")
}

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
 * @since 0.2.0
 * @category schemas
 */
export const operationFor = (operations: Operations) => {
  const offered = canonical(operations)
  return Schema.Literal(...(offered as [ToolOperation, ...Array<ToolOperation>])).annotations({
    description: offered.map((operation) => operationMeaning[operation]).join(" ")
  })
}

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
export const FilePath = Schema.String.pipe(Schema.pattern(/\S/)).annotations({
  description: "The file containing the symbol, relative to the workspace root or absolute."
})

// The same argument, described for a tool whose operations do not all point at a symbol.
const filePathFor = (operations: ReadonlyArray<ToolOperation>) =>
  operations.every(isPositionOperation) ? FilePath : FilePath.annotations({
    description: "The file to query, relative to the workspace root or absolute" +
      (operations.includes("workspaceSymbol") ? "; optional for workspaceSymbol." : ".")
  })

// Built from custom filters rather than Schema.Int / greaterThanOrEqualTo so the JSON Schema carries no
// generated titles ("int", "greaterThanOrEqualTo(1)") that cost tokens and tell the model nothing.
const OneBased = Schema.Number.pipe(
  Schema.filter(Number.isInteger, { jsonSchema: { type: "integer" } }),
  Schema.filter((n) => n >= 1, { jsonSchema: { minimum: 1 } })
)

/**
 * @since 0.1.0
 * @category schemas
 */
export const Line = OneBased.annotations({
  description: "One-based line of the symbol (the first line is 1)."
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const Character = OneBased.annotations({
  description: "One-based column of the symbol within its line, in UTF-16 code units (the first character is 1)."
})

/**
 * @since 0.2.0
 * @category schemas
 */
export const SymbolName = Schema.String.annotations({
  description: `The identifier to query, searched on line, then up to ${LspIdentifiers.symbolWindow} lines away; ` +
    "character is then optional."
})

/**
 * The workspaceSymbol search text: not blank.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Query = Schema.String.pipe(Schema.pattern(/\S/)).annotations({
  description: "workspaceSymbol: the name or part of a name to search for."
})

/**
 * The diagnostics threshold: this severity or worse.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Severity = LspQuery.LspSeverity.annotations({
  description: "diagnostics: the least serious kind to include (default warning: errors and warnings)."
})

/**
 * Validated input of diagnostics.
 *
 * @since 0.2.0
 * @category schemas
 */
export const DiagnosticsInput = Schema.Struct({
  operation: Schema.Literal("diagnostics"),
  file_path: FilePath,
  severity: Schema.optional(LspQuery.LspSeverity)
})

/**
 * @since 0.2.0
 * @category models
 */
export type DiagnosticsInput = typeof DiagnosticsInput.Type

/**
 * Validated input of a position operation. `character` may be left out when `symbol` is given.
 *
 * @since 0.2.0
 * @category schemas
 */
export const PositionInput = Schema.Struct({
  operation: LspQuery.LspPositionOperation,
  file_path: FilePath,
  line: Line,
  character: Schema.optional(Character),
  symbol: Schema.optional(SymbolName)
})

/**
 * @since 0.2.0
 * @category models
 */
export type PositionInput = typeof PositionInput.Type

/**
 * Validated input of documentSymbol.
 *
 * @since 0.2.0
 * @category schemas
 */
export const DocumentInput = Schema.Struct({
  operation: LspQuery.LspDocumentOperation,
  file_path: FilePath
})

/**
 * @since 0.2.0
 * @category models
 */
export type DocumentInput = typeof DocumentInput.Type

/**
 * Validated input of workspaceSymbol.
 *
 * @since 0.2.0
 * @category schemas
 */
export const WorkspaceSymbolInput = Schema.Struct({
  operation: Schema.Literal("workspaceSymbol"),
  query: Query,
  file_path: Schema.optional(FilePath)
})

/**
 * @since 0.2.0
 * @category models
 */
export type WorkspaceSymbolInput = typeof WorkspaceSymbolInput.Type

/**
 * The tool's input once validated: one variant per request shape, discriminated by `operation`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LspToolInput = Schema.Union(PositionInput, DocumentInput, WorkspaceSymbolInput, DiagnosticsInput)

/**
 * @since 0.1.0
 * @category models
 */
export type LspToolInput = typeof LspToolInput.Type

/**
 * The flat object the model fills in for the offered operations — one object, whatever the operation, since
 * models handle that best: `operation`, then only the arguments some offered operation takes. An argument is
 * required when every offered operation needs it (`file_path` unless workspaceSymbol is offered, `line` when
 * only position operations are).
 *
 * @since 0.2.0
 * @category schemas
 */
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
  return Schema.Struct(fields) as unknown as Schema.Schema<unknown, unknown>
}

/**
 * The JSON Schema of the input for the offered operations, generated the way `@effect/ai` generates tool
 * parameter schemas (no `$schema`, top-level inlined). With exactly the reference's four it is the schema of
 * 0.1.0, verbatim.
 *
 * @since 0.2.0
 * @category constructors
 */
export const jsonSchemaFor = (operations: Operations): JSONSchema.JsonSchema7 =>
  JSONSchema.fromAST(parametersFor(operations).ast, { definitions: {}, topLevelReferenceStrategy: "skip" })

/**
 * The JSON Schema of the input when every operation is offered (the default configuration).
 *
 * @since 0.1.0
 * @category constants
 */
export const jsonSchema: JSONSchema.JsonSchema7 = jsonSchemaFor(allOperations)

const describeValue = (value: unknown): string => {
  if (typeof value === "string") {
    return value.length > 40
      ? `${JSON.stringify(value.slice(0, 40))}… (a string)`
      : `${JSON.stringify(value)} (a string)`
  }
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value)
  if (value === undefined) return "nothing"
  if (Array.isArray(value)) return "an array"
  return typeof value === "object" ? "an object" : `a value of type ${typeof value}`
}

const problem = (argument: string, value: unknown, fix: string): LspError.LspError =>
  LspError.invalidArguments(
    value === undefined
      ? `Missing "${argument}": ${fix}`
      : `Invalid "${argument}" (got ${describeValue(value)}): ${fix}`,
    { argument }
  )

const isOperation = Schema.is(LspQuery.LspOperation)
const isFilePath = Schema.is(FilePath)
const isOneBased = Schema.is(OneBased)
const isQuery = Schema.is(Query)
const isSeverity = Schema.is(LspQuery.LspSeverity)

const characterFix =
  "give the symbol's column as an integer counted from 1 in UTF-16 code units (the first character is 1)."

const shapeMessage = (offered: ReadonlyArray<ToolOperation>, input: unknown): string =>
  offered.every(isPositionOperation)
    ? `The lsp tool takes an object with "operation", "file_path", "line", and "character" or "symbol" (got ${
      describeValue(input)
    }).`
    : `The lsp tool takes an object with "operation" and that operation's arguments (got ${describeValue(input)}).`

const validatePosition = (
  operation: LspQuery.LspPositionOperation,
  input: Readonly<Record<string, unknown>>
): Either.Either<PositionInput, LspError.LspError> => {
  const { character, file_path, line, symbol } = input
  if (!isFilePath(file_path)) {
    return Either.left(
      problem(
        "file_path",
        file_path,
        "give the path of the file containing the symbol, relative to the workspace root or absolute."
      )
    )
  }
  if (!isOneBased(line)) {
    return Either.left(
      problem("line", line, "give the symbol's line as an integer counted from 1 (the first line is 1).")
    )
  }
  const column = isOneBased(character) ? character : undefined
  if (character !== undefined && column === undefined) return Either.left(problem("character", character, characterFix))
  if (symbol === undefined) {
    return column === undefined
      ? Either.left(problem("character", character, `${characterFix} Or send "symbol", the identifier's name.`))
      : Either.right({ operation, file_path, line, character: column })
  }
  if (typeof symbol !== "string") {
    return Either.left(problem("symbol", symbol, "give the identifier's name as a string, e.g. \"parseConfig\"."))
  }
  return Either.map(
    LspIdentifiers.checkSymbol(symbol),
    (): PositionInput =>
      column === undefined
        ? { operation, file_path, line, symbol }
        : { operation, file_path, line, character: column, symbol }
  )
}

const validateDocument = (input: Readonly<Record<string, unknown>>): Either.Either<DocumentInput, LspError.LspError> =>
  isFilePath(input.file_path)
    ? Either.right({ operation: "documentSymbol", file_path: input.file_path })
    : Either.left(
      problem(
        "file_path",
        input.file_path,
        "documentSymbol needs file_path, the file whose symbols to list, relative to the workspace root or " +
          "absolute (it takes no line or character)."
      )
    )

const validateWorkspaceSymbol = (
  input: Readonly<Record<string, unknown>>
): Either.Either<WorkspaceSymbolInput, LspError.LspError> => {
  const { file_path, query } = input
  if (!isQuery(query)) {
    return Either.left(
      problem(
        "query",
        query,
        "workspaceSymbol needs query: the name or part of a name to search for, e.g. \"parseConfig\"."
      )
    )
  }
  if (file_path === undefined) return Either.right({ operation: "workspaceSymbol", query })
  return isFilePath(file_path)
    ? Either.right({ operation: "workspaceSymbol", query, file_path })
    : Either.left(
      problem(
        "file_path",
        file_path,
        "for workspaceSymbol, file_path is optional: leave it out to search every language server, or give a " +
          "file (relative to the workspace root or absolute) to search only its language server."
      )
    )
}

const validateDiagnostics = (
  input: Readonly<Record<string, unknown>>
): Either.Either<DiagnosticsInput, LspError.LspError> => {
  const { file_path, severity } = input
  if (!isFilePath(file_path)) {
    return Either.left(
      problem(
        "file_path",
        file_path,
        "diagnostics needs file_path, the file to check, relative to the workspace root or absolute (it takes no " +
          "line or character)."
      )
    )
  }
  if (severity === undefined) return Either.right({ operation: "diagnostics", file_path })
  return isSeverity(severity)
    ? Either.right({ operation: "diagnostics", file_path, severity })
    : Either.left(
      problem(
        "severity",
        severity,
        "give the least serious kind to include: \"error\", \"warning\" (the default), \"information\" or \"hint\"."
      )
    )
}

/**
 * Validates raw arguments — `operation` first (one of the offered operations, default all), then that
 * operation's own arguments — and fails with the first problem as `LSP_INVALID_ARGUMENTS`, its message saying
 * what to send for that operation:
 *
 * - position operations: non-blank `file_path`, `line` integer ≥ 1, then `character` integer ≥ 1 (optional
 *   when `symbol` is given) and `symbol` one identifier;
 * - documentSymbol: non-blank `file_path`;
 * - workspaceSymbol: non-blank `query`, then `file_path` non-blank when given;
 * - diagnostics: non-blank `file_path`, then `severity` one of the four when given.
 *
 * Arguments the operation does not take (a `line` sent with documentSymbol, a `query` with hover) and any
 * other property are ignored.
 *
 * @since 0.1.0
 * @category validation
 */
export const validate = (
  input: unknown,
  operations: Operations = allOperations
): Either.Either<LspToolInput, LspError.LspError> => {
  const offered = canonical(operations)
  if (!Predicate.isRecord(input)) return Either.left(LspError.invalidArguments(shapeMessage(offered, input)))
  const { operation } = input
  if (!isOperation(operation) || !(offered as ReadonlyArray<string>).includes(operation)) {
    const fix = `use one of ${offered.join(", ")}.`
    return Either.left(
      problem("operation", operation, isOperation(operation) ? `this tool does not offer ${operation}; ${fix}` : fix)
    )
  }
  const offeredOperation = operation as ToolOperation
  if (offeredOperation === "documentSymbol") return validateDocument(input)
  if (offeredOperation === "workspaceSymbol") return validateWorkspaceSymbol(input)
  if (offeredOperation === "diagnostics") return validateDiagnostics(input)
  return validatePosition(offeredOperation, input)
}

/**
 * One-based tool position → zero-based seam position.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toSeamPosition = (
  position: { readonly line: number; readonly character: number }
): LspQuery.LspPosition => ({
  line: position.line - 1,
  character: position.character - 1
})

/**
 * Zero-based seam position → one-based tool position.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromSeamPosition = (
  position: LspQuery.LspPosition
): { readonly line: number; readonly character: number } => ({
  line: position.line + 1,
  character: position.character + 1
})

/**
 * The seam request for validated input in a workspace: the variant of the input's operation. With `symbol`
 * and no `character`, the seam position's character is 0: "the first occurrence on the line".
 *
 * @since 0.1.0
 * @category conversions
 */
export const toQueryRequest = (input: LspToolInput, workspaceRoot: string): LspQuery.LspQueryRequest => {
  switch (input.operation) {
    case "documentSymbol":
      return { operation: input.operation, filePath: input.file_path, workspaceRoot }
    case "diagnostics":
      return input.severity === undefined
        ? { operation: input.operation, filePath: input.file_path, workspaceRoot }
        : { operation: input.operation, filePath: input.file_path, workspaceRoot, severity: input.severity }
    case "workspaceSymbol":
      return input.file_path === undefined
        ? { operation: input.operation, query: input.query, workspaceRoot }
        : { operation: input.operation, query: input.query, workspaceRoot, filePath: input.file_path }
    default: {
      const position = toSeamPosition({ line: input.line, character: input.character ?? 1 })
      return input.symbol === undefined
        ? { operation: input.operation, filePath: input.file_path, position, workspaceRoot }
        : { operation: input.operation, filePath: input.file_path, position, workspaceRoot, symbol: input.symbol }
    }
  }
}
