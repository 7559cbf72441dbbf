/**
 * Parsing the target of `lsp-seam query`: `<file>:<line>:<character>` (`<file>:<line>` with `--symbol`) for
 * the operations at a position, a file for documentSymbol, a search text for workspaceSymbol.
 */
import type { LspToolInput } from "@lsp-seam/tool-lsp"
import * as Either from "effect/Either"
import { UsageError } from "../command/errors.js"

export interface Location {
  readonly file: string
  readonly line: number
  readonly character: number | undefined
}

// Anything that reads as a decimal number is passed on: the tool decides whether it is a valid position
// (0, -1 and 1.5 are its LSP_INVALID_ARGUMENTS), so the command and the tool give one answer for one input.
const numeric = /^[+-]?\d+(?:\.\d+)?$/

const usage = (argument: string, why: string) =>
  new UsageError({
    message: `Invalid position ${JSON.stringify(argument)}: ${why}. ` +
      "Give <file>:<line>:<character> with a one-based line and character, e.g. src/main.ts:12:5, " +
      "or <file>:<line> with --symbol NAME."
  })

/**
 * Splits from the right, so file names may contain `:` (`C:\a.ts:1:2`, `a:b.ts:3:4`). With
 * `characterOptional` (`--symbol`), `<file>:<line>` is accepted too: when the text before the last `:` does
 * not end with `:<number>`, the last part is the line and the character is absent.
 */
export const parseLocation = (
  argument: string,
  options?: { readonly characterOptional?: boolean }
): Either.Either<Location, UsageError> => {
  const last = argument.lastIndexOf(":")
  const middle = last <= 0 ? -1 : argument.lastIndexOf(":", last - 1)
  if (options?.characterOptional === true && last > 0) {
    const tail = argument.slice(last + 1)
    const twoPart = middle < 0 || !numeric.test(argument.slice(middle + 1, last))
    if (twoPart && numeric.test(tail)) {
      return Either.right({ file: argument.slice(0, last), line: Number(tail), character: undefined })
    }
  }
  if (middle < 0) return Either.left(usage(argument, "expected two ':' separators"))
  const file = argument.slice(0, middle)
  const line = argument.slice(middle + 1, last)
  const character = argument.slice(last + 1)
  if (file.length === 0) return Either.left(usage(argument, "the file is missing"))
  if (!numeric.test(line)) return Either.left(usage(argument, `the line ${JSON.stringify(line)} is not a number`))
  if (!numeric.test(character)) {
    return Either.left(usage(argument, `the character ${JSON.stringify(character)} is not a number`))
  }
  return Either.right({ file, line: Number(line), character: Number(character) })
}

/** The operations that take `--body` (the tool's `include_body`). */
const bodyOperations: ReadonlyArray<string> = [
  "goToDefinition",
  "goToTypeDefinition",
  "goToImplementation",
  "documentSymbol",
  "workspaceSymbol"
]

/** The options of `lsp-seam query` beyond the target, each belonging to some operations only. */
export interface QueryOptions {
  readonly symbol?: string | undefined
  readonly file?: string | undefined
  readonly severity?: string | undefined
  readonly body?: boolean | undefined
  readonly newName?: string | undefined
  readonly depth?: string | undefined
}

/** The values `--severity` takes (the seam's severities). */
const severities: ReadonlyArray<string> = ["error", "warning", "information", "hint"]

/**
 * The `lsp` tool's arguments for `lsp-seam query <operation> <target>`: `<target>` is the position
 * (`parseLocation`) for the position operations, the file path verbatim for documentSymbol and diagnostics
 * (whose `--severity` becomes `severity`; a trailing `:12`
 * is part of the name there), and the search text verbatim for workspaceSymbol, whose `--file` becomes
 * `file_path`. `--symbol` belongs to the position operations and `--file` to workspaceSymbol: elsewhere each is
 * a usage error. `--body` (`include_body`) belongs to goToDefinition, goToTypeDefinition, goToImplementation,
 * documentSymbol and workspaceSymbol, `--new-name` (`new_name`) to renamePreview, which needs it, and `--depth`
 * (`depth`) to impact. Values the tool judges (a blank query, line 0, depth 9) are passed on to it.
 */
export const queryArguments = (
  operation: LspToolInput.ToolOperation,
  target: string,
  options: QueryOptions = {}
): Either.Either<Readonly<Record<string, unknown>>, UsageError> =>
  Either.flatMap(
    checkNewOptions(operation, options),
    (extra) => Either.map(baseArguments(operation, target, options), (args) => ({ ...args, ...extra }))
  )

/** `--body`, `--new-name` and `--depth`: where each belongs, as the tool's arguments. */
const checkNewOptions = (
  operation: LspToolInput.ToolOperation,
  options: Pick<QueryOptions, "body" | "newName" | "depth">
): Either.Either<Readonly<Record<string, unknown>>, UsageError> => {
  const usage = (message: string) => Either.left(new UsageError({ message }))
  if (options.body === true && !bodyOperations.includes(operation)) {
    return usage(`--body applies to ${bodyOperations.join(", ")} only, not to ${operation}.`)
  }
  if (options.depth !== undefined) {
    if (operation !== "impact") return usage(`--depth applies to impact only, not to ${operation}.`)
    return numeric.test(options.depth)
      ? Either.right({ depth: Number(options.depth) })
      : usage(`--depth takes the levels of callers to follow, a number (got ${options.depth}).`)
  }
  if (operation === "renamePreview") {
    return options.newName === undefined
      ? usage("renamePreview needs --new-name NAME, the symbol's new name.")
      : Either.right({ new_name: options.newName })
  }
  if (options.newName !== undefined) return usage(`--new-name applies to renamePreview only, not to ${operation}.`)
  return Either.right(options.body === true ? { include_body: true } : {})
}

const baseArguments = (
  operation: LspToolInput.ToolOperation,
  target: string,
  options: Pick<QueryOptions, "symbol" | "file" | "severity">
): Either.Either<Readonly<Record<string, unknown>>, UsageError> => {
  const misplaced = (option: string, where: string) =>
    Either.left(new UsageError({ message: `${option} applies to ${where} only, not to ${operation}.` }))
  if (operation === "documentSymbol" || operation === "workspaceSymbol" || operation === "diagnostics") {
    if (options.symbol !== undefined) return misplaced("--symbol", "operations at a position")
  }
  if (operation !== "workspaceSymbol" && options.file !== undefined) return misplaced("--file", "workspaceSymbol")
  if (operation !== "diagnostics" && options.severity !== undefined) return misplaced("--severity", "diagnostics")
  if (options.severity !== undefined && !severities.includes(options.severity)) {
    // As `@effect/cli`'s choice says it on the full path, so that the fast remote path exits 2 alike.
    return Either.left(
      new UsageError({ message: `--severity takes one of ${severities.join(", ")} (got ${options.severity}).` })
    )
  }
  if (operation === "documentSymbol") return Either.right({ operation, file_path: target })
  if (operation === "diagnostics") {
    return Either.right(
      options.severity === undefined
        ? { operation, file_path: target }
        : { operation, file_path: target, severity: options.severity }
    )
  }
  if (operation === "workspaceSymbol") {
    return Either.right(
      options.file === undefined ? { operation, query: target } : { operation, query: target, file_path: options.file }
    )
  }
  return Either.map(
    parseLocation(target, { characterOptional: options.symbol !== undefined }),
    (location) => ({
      operation,
      file_path: location.file,
      line: location.line,
      character: location.character,
      symbol: options.symbol
    })
  )
}
