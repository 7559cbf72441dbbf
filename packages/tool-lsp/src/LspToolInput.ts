/**
 * What the model sends the `lsp` tool: an operation, a file and a one-based cursor. This module owns the
 * input Schema (with the model-facing descriptions), its JSON Schema, the tool description, validation
 * with coded errors that say what to fix, and the conversion between the tool's one-based positions and
 * the seam's zero-based ones.
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
 * The tool description the model sees.
 *
 * @since 0.1.0
 * @category constants
 */
export const description = "Precise, read-only code navigation through the project's language server: " +
  "goToDefinition, findReferences (always includes the declaration), goToImplementation, and hover (type " +
  "and documentation). Point at a symbol with file_path and its one-based line and character, or name it " +
  "with symbol near line. Locations " +
  "come back as path:line:character lines (one-based), grouped by file, relative to the workspace when " +
  "inside it."

const operationNames = LspQuery.LspOperation.literals.join(", ")

/**
 * @since 0.1.0
 * @category schemas
 */
export const Operation = LspQuery.LspOperation.annotations({
  description: "goToDefinition: where the symbol is defined. findReferences: every use of the symbol, " +
    "including its declaration. goToImplementation: implementations of an interface or abstract member. " +
    "hover: the symbol's type and documentation."
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const FilePath = Schema.String.pipe(Schema.pattern(/\S/)).annotations({
  description: "The file containing the symbol, relative to the workspace root or absolute."
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
 * The tool's input, exactly as the model sends it. `character` may be left out when `symbol` is given.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LspToolInput = Schema.Struct({
  operation: Operation,
  file_path: FilePath,
  line: Line,
  character: Schema.optional(Character),
  symbol: Schema.optional(SymbolName)
})

/**
 * @since 0.1.0
 * @category models
 */
export type LspToolInput = typeof LspToolInput.Type

/**
 * The JSON Schema of the input, generated from `LspToolInput` the way `@effect/ai` generates tool
 * parameter schemas (no `$schema`, top-level inlined).
 *
 * @since 0.1.0
 * @category constants
 */
export const jsonSchema: JSONSchema.JsonSchema7 = JSONSchema.fromAST(LspToolInput.ast, {
  definitions: {},
  topLevelReferenceStrategy: "skip"
})

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

const isOperation = Schema.is(Operation)
const isFilePath = Schema.is(FilePath)
const isOneBased = Schema.is(OneBased)

const characterFix =
  "give the symbol's column as an integer counted from 1 in UTF-16 code units (the first character is 1)."

/**
 * Validates raw arguments in a fixed order — `operation`, non-blank `file_path`, `line` integer ≥ 1, then
 * `character` integer ≥ 1 (optional when `symbol` is given) and `symbol` one identifier — and fails with the
 * first problem as `LSP_INVALID_ARGUMENTS`, its message saying what to send instead. Properties other than
 * these five are ignored.
 *
 * @since 0.1.0
 * @category validation
 */
export const validate = (input: unknown): Either.Either<LspToolInput, LspError.LspError> => {
  if (!Predicate.isRecord(input)) {
    return Either.left(LspError.invalidArguments(
      `The lsp tool takes an object with "operation", "file_path", "line", and "character" or "symbol" (got ${
        describeValue(input)
      }).`
    ))
  }
  const { character, file_path, line, operation, symbol } = input
  if (!isOperation(operation)) {
    return Either.left(problem("operation", operation, `use one of ${operationNames}.`))
  }
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
    (): LspToolInput =>
      column === undefined
        ? { operation, file_path, line, symbol }
        : { operation, file_path, line, character: column, symbol }
  )
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
 * The seam request for validated input in a workspace. With `symbol` and no `character`, the seam position's
 * character is 0: "the first occurrence on the line".
 *
 * @since 0.1.0
 * @category conversions
 */
export const toQueryRequest = (input: LspToolInput, workspaceRoot: string): LspQuery.LspQueryRequest => {
  const position = toSeamPosition({ line: input.line, character: input.character ?? 1 })
  return input.symbol === undefined
    ? { operation: input.operation, filePath: input.file_path, position, workspaceRoot }
    : { operation: input.operation, filePath: input.file_path, position, workspaceRoot, symbol: input.symbol }
}
