/**
 * Validation of the raw arguments the model sends: `operation` first, then that operation's own arguments,
 * failing with the first problem (its message from `messages.ts`).
 */
import { LspIdentifiers, LspQuery } from "@lsp-seam/lsp"
import type { LspError } from "@lsp-seam/lsp"
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as Messages from "./messages.js"
import { allOperations, canonical, type Operations, takesBody, type ToolOperation } from "./operations.js"
import { Depth, FilePath, NewName, OneBased, Query } from "./schema.js"
import type * as InputSchema from "./schema.js"

type Input = Readonly<Record<string, unknown>>

const isOperation = Schema.is(LspQuery.LspOperation)
const isFilePath = Schema.is(FilePath)
const isOneBased = Schema.is(OneBased)
const isQuery = Schema.is(Query)
const isSeverity = Schema.is(LspQuery.LspSeverity)
const isNewName = Schema.is(NewName)
const isDepth = Schema.is(Depth)

/** `include_body` for the operations that take it: absent, or a boolean (only `true` is kept). */
const includeBody = (input: Input): Either.Either<{ readonly include_body?: true }, LspError.LspArgumentsError> => {
  const { include_body } = input
  if (include_body === undefined || include_body === false) return Either.right({})
  return include_body === true
    ? Either.right({ include_body: true })
    : Either.left(Messages.problem("include_body", include_body, Messages.includeBodyFix))
}

const validatePosition = (
  operation: LspQuery.LspPositionOperation,
  input: Input
): Either.Either<InputSchema.PositionInput, LspError.LspArgumentsError> =>
  Either.flatMap(
    validateAt(operation, input),
    (position) =>
      takesBody(operation)
        ? Either.map(includeBody(input), (body): InputSchema.PositionInput => ({ ...position, ...body }))
        : Either.right(position)
  )

const validateRename = (input: Input): Either.Either<InputSchema.RenameInput, LspError.LspArgumentsError> =>
  Either.flatMap(validateAt("renamePreview", input), (position) =>
    isNewName(input.new_name)
      ? Either.right({ ...position, operation: "renamePreview", new_name: input.new_name })
      : Either.left(Messages.problem("new_name", input.new_name, Messages.newNameFix)))

const validateImpact = (input: Input): Either.Either<InputSchema.ImpactInput, LspError.LspArgumentsError> =>
  Either.flatMap(validateAt("impact", input), (position) => {
    const { depth } = input
    if (depth === undefined) return Either.right(position)
    return isDepth(depth)
      ? Either.right({ ...position, depth })
      : Either.left(Messages.problem("depth", depth, Messages.depthFix))
  })

/** The file and position of an operation at a position (`character`, or `symbol` near `line`). */
const validateAt = <O extends LspQuery.LspPositionOperation | "renamePreview" | "impact">(
  operation: O,
  input: Input
): Either.Either<
  {
    readonly operation: O
    readonly file_path: string
    readonly line: number
    readonly character?: number
    readonly symbol?: string
  },
  LspError.LspArgumentsError
> => {
  const { character, file_path, line, symbol } = input
  if (!isFilePath(file_path)) return Either.left(Messages.problem("file_path", file_path, Messages.positionFilePathFix))
  if (!isOneBased(line)) return Either.left(Messages.problem("line", line, Messages.lineFix))
  const column = isOneBased(character) ? character : undefined
  if (character !== undefined && column === undefined) {
    return Either.left(Messages.problem("character", character, Messages.characterFix))
  }
  if (symbol === undefined) {
    return column === undefined
      ? Either.left(Messages.problem("character", character, Messages.characterOrSymbolFix))
      : Either.right({ operation, file_path, line, character: column })
  }
  if (typeof symbol !== "string") return Either.left(Messages.problem("symbol", symbol, Messages.symbolFix))
  return Either.map(
    LspIdentifiers.checkSymbol(symbol),
    () =>
      column === undefined
        ? { operation, file_path, line, symbol }
        : { operation, file_path, line, character: column, symbol }
  )
}

const validateDocument = (input: Input): Either.Either<InputSchema.DocumentInput, LspError.LspArgumentsError> =>
  isFilePath(input.file_path)
    ? Either.map(
      includeBody(input),
      (body) => ({ operation: "documentSymbol", file_path: input.file_path as string, ...body })
    )
    : Either.left(Messages.problem("file_path", input.file_path, Messages.documentFilePathFix))

const validateWorkspaceSymbol = (
  input: Input
): Either.Either<InputSchema.WorkspaceSymbolInput, LspError.LspArgumentsError> => {
  const { file_path, query } = input
  if (!isQuery(query)) return Either.left(Messages.problem("query", query, Messages.queryFix))
  if (file_path !== undefined && !isFilePath(file_path)) {
    return Either.left(Messages.problem("file_path", file_path, Messages.workspaceSymbolFilePathFix))
  }
  return Either.map(
    includeBody(input),
    (body): InputSchema.WorkspaceSymbolInput =>
      file_path === undefined
        ? { operation: "workspaceSymbol", query, ...body }
        : { operation: "workspaceSymbol", query, file_path, ...body }
  )
}

const validateDiagnostics = (
  input: Input
): Either.Either<InputSchema.DiagnosticsInput, LspError.LspArgumentsError> => {
  const { file_path, severity } = input
  if (!isFilePath(file_path)) {
    return Either.left(Messages.problem("file_path", file_path, Messages.diagnosticsFilePathFix))
  }
  if (severity === undefined) return Either.right({ operation: "diagnostics", file_path })
  return isSeverity(severity)
    ? Either.right({ operation: "diagnostics", file_path, severity })
    : Either.left(Messages.problem("severity", severity, Messages.severityFix))
}

/** Validates raw arguments for the offered operations; the first problem is the error. */
export const validate = (
  input: unknown,
  operations: Operations = allOperations
): Either.Either<InputSchema.LspToolInput, LspError.LspArgumentsError> => {
  const offered = canonical(operations)
  if (!Predicate.isRecord(input)) return Either.left(Messages.notAnObject(offered, input))
  const { operation } = input
  if (!isOperation(operation) || !(offered as ReadonlyArray<string>).includes(operation)) {
    return Either.left(
      Messages.problem(
        "operation",
        operation,
        Messages.operationFix(offered, isOperation(operation) ? operation : undefined)
      )
    )
  }
  const offeredOperation = operation as ToolOperation
  if (offeredOperation === "documentSymbol") return validateDocument(input)
  if (offeredOperation === "workspaceSymbol") return validateWorkspaceSymbol(input)
  if (offeredOperation === "diagnostics") return validateDiagnostics(input)
  if (offeredOperation === "renamePreview") return validateRename(input)
  if (offeredOperation === "impact") return validateImpact(input)
  return validatePosition(offeredOperation, input)
}
