/**
 * Parsing the `<file>:<line>:<character>` argument of `lsp-seam query` (`<file>:<line>` with `--symbol`).
 */
import * as Either from "effect/Either"
import { UsageError } from "./errors.js"

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
