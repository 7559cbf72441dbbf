/**
 * Parsing the `<file>:<line>:<character>` argument of `lsp-seam query`.
 */
import * as Either from "effect/Either"
import { UsageError } from "./errors.js"

export interface Location {
  readonly file: string
  readonly line: number
  readonly character: number
}

// Anything that reads as a decimal number is passed on: the tool decides whether it is a valid position
// (0, -1 and 1.5 are its LSP_INVALID_ARGUMENTS), so the command and the tool give one answer for one input.
const numeric = /^[+-]?\d+(?:\.\d+)?$/

const usage = (argument: string, why: string) =>
  new UsageError({
    message: `Invalid position ${JSON.stringify(argument)}: ${why}. ` +
      "Give <file>:<line>:<character> with a one-based line and character, e.g. src/main.ts:12:5."
  })

/**
 * Splits from the right, so file names may contain `:` (`C:\a.ts:1:2`, `a:b.ts:3:4`).
 */
export const parseLocation = (argument: string): Either.Either<Location, UsageError> => {
  const last = argument.lastIndexOf(":")
  const middle = last <= 0 ? -1 : argument.lastIndexOf(":", last - 1)
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
