/**
 * Identifiers in a document's text, for providers that address positions by name and explain empty answers:
 * split the text into lines, find the identifiers on a line, check that a position lies in the document,
 * resolve a `symbol` on or near a line, and describe a position that is off any identifier. Pure: no I/O.
 *
 * Positions are zero-based with UTF-16 columns, as everywhere in the seam; `detail` fields of the errors are
 * zero-based too. Messages are written for models and use ONE-BASED lines and columns, as the tool does.
 *
 * The scan is lexical and knows no language: an identifier is a maximal run of identifier characters
 * (`\p{ID_Continue}`, `$`, `_`, ZWNJ and ZWJ, as ECMAScript allows) whose first character may start an
 * identifier (`\p{ID_Start}`, `$` or `_`). A run that starts otherwise (`123`, `0x1F`, `123abc`) is not an
 * identifier, and nothing inside it is. Characters such as `-`, `.` or `#` separate identifiers
 * (`foo-bar` is `foo` and `bar`).
 *
 * Strings and comments are told apart from code by a scan that knows no language either (`nonCodeSpans`):
 * quoted spans closed on the line (`"…"`, `'…'`, `` `…` ``, with backslash escapes), block comments (from
 * slash-star to star-slash or the line's end), and the rest of a line from `//`, or from a `#` followed by a
 * space. `resolveSymbol` prefers occurrences in code; it uses one in a string or comment only when no line of
 * its window has the name in code, and says so.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as LspError from "./LspError.js"
import type { LspPosition } from "./LspQuery.js"
import * as LspResult from "./LspResult.js"
import * as LspResultRead from "./LspResultRead.js"

/**
 * How many lines above and below the requested line `resolveSymbol` searches.
 *
 * @since 0.1.0
 * @category constants
 */
export const symbolWindow = 3

/**
 * How many identifiers a message lists before it says how many more there are.
 *
 * @since 0.1.0
 * @category constants
 */
export const listLimit: number = LspResultRead.listLimit

/**
 * An identifier on a line: its name and the zero-based UTF-16 column where it starts.
 *
 * @since 0.1.0
 * @category models
 */
export type Identifier = LspResult.LspIdentifier

/**
 * Splits a document into lines at LSP's line terminators (`\r\n`, `\n`, `\r`). An empty text is one empty
 * line; a text ending with a terminator ends with an empty line, as in LSP.
 *
 * @since 0.1.0
 * @category utils
 */
export const splitLines = (text: string): ReadonlyArray<string> => text.split(/\r\n|\r|\n/)

const run = /[\p{ID_Continue}$\u200C\u200D]+/gu
const start = /^[\p{ID_Start}$_]/u

/**
 * The identifiers on one line, in order, with their zero-based UTF-16 columns (a character outside the Basic
 * Multilingual Plane counts 2).
 *
 * @since 0.1.0
 * @category utils
 */
export const identifiersOn = (lineText: string): ReadonlyArray<Identifier> => {
  const found: Array<Identifier> = []
  for (const match of lineText.matchAll(run)) {
    if (start.test(match[0])) found.push({ name: match[0], character: match.index })
  }
  return found
}

/**
 * The spans of a line (start inclusive, end exclusive, UTF-16 columns) that look like strings or comments,
 * by the language-agnostic rules of the module comment. A quote not closed on its line opens nothing (an
 * apostrophe, a Rust lifetime); a line that continues a block comment (` * …`) is all comment.
 *
 * @since 0.1.0
 * @category utils
 */
export const nonCodeSpans = (text: string): ReadonlyArray<readonly [number, number]> => {
  if (/^\s*\*(\s|\/|$)/.test(text)) return [[0, text.length]]
  const spans: Array<readonly [number, number]> = []
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    const next = text[i + 1]
    if (c === "\"" || c === "'" || c === "`") {
      let j = i + 1
      while (j < text.length && text[j] !== c) j += text[j] === "\\" ? 2 : 1
      if (j < text.length) {
        spans.push([i, j + 1])
        i = j + 1
        continue
      }
    } else if ((c === "/" && next === "/") || (c === "#" && (next === undefined || /\s/.test(next)))) {
      spans.push([i, text.length])
      break
    } else if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2)
      const stop = end < 0 ? text.length : end + 2
      spans.push([i, stop])
      i = stop
      continue
    }
    i += 1
  }
  return spans
}

/** Whether the identifier lies in code, not in one of `spans`. */
const inCode = (spans: ReadonlyArray<readonly [number, number]>) => (id: Identifier) =>
  !spans.some(([from, to]) => from <= id.character && id.character < to)

// A cursor right after the name counts as on it, as editors treat it.
const contains = (identifier: Identifier, character: number) =>
  identifier.character <= character && character <= identifier.character + identifier.name.length

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/**
 * `add (column 17), x (column 21)` — one-based columns, at most `limit` entries, then `… and N more`.
 *
 * @since 0.1.0
 * @category utils
 */
export const formatIdentifiers: (identifiers: ReadonlyArray<Identifier>, limit?: number) => string =
  LspResultRead.formatIdentifiers

/**
 * `identifiers on line 3: add (column 17), x (column 21)`, or `line 3 has no identifiers` (one-based).
 *
 * @since 0.1.0
 * @category utils
 */
export const describeLine: (line: number, identifiers: ReadonlyArray<Identifier>) => string = LspResultRead.describeLine

const lineOutOfRange = (line: number, lineCount: number) =>
  LspError.positionOutOfRange(
    `Line ${line + 1} is past the end of the file, which has ${plural(lineCount, "line")}: ` +
      `give a line from 1 to ${lineCount}.`,
    { line, lineCount }
  )

/**
 * Succeeds when `position` lies in the document: its line exists, and its character is at most the line's
 * length (a column equal to the length — the end of the line — is valid, as in LSP). Otherwise
 * `LSP_POSITION_OUT_OF_RANGE`, saying how many lines the file has or how long the line is.
 *
 * @since 0.1.0
 * @category validation
 */
export const checkPosition = (
  lines: ReadonlyArray<string>,
  position: LspPosition
): Either.Either<void, LspError.LspArgumentsError> => {
  const text = lines[position.line]
  if (text === undefined) return Either.left(lineOutOfRange(position.line, lines.length))
  if (position.character > text.length) {
    return Either.left(LspError.positionOutOfRange(
      `Column ${position.character + 1} is past the end of line ${position.line + 1}, which has ` +
        `${plural(text.length, "character")} (UTF-16 code units): give a column from 1 to ${text.length + 1}.`,
      { line: position.line, character: position.character, lineLength: text.length }
    ))
  }
  return Either.void
}

const quote = (value: string) => value.length > 40 ? `${JSON.stringify(value.slice(0, 40))}…` : JSON.stringify(value)

/**
 * Succeeds with `symbol` when it is exactly one identifier. Otherwise `LSP_INVALID_ARGUMENTS`
 * (`detail.argument: "symbol"`): a name with several identifiers (`foo.bar`, `a b`) is refused with a
 * message naming them, since guessing which one was meant could answer the wrong question.
 *
 * @since 0.1.0
 * @category validation
 */
export const checkSymbol = (symbol: string): Either.Either<string, LspError.LspArgumentsError> => {
  const found = identifiersOn(symbol)
  if (found.length === 1 && found[0]!.name === symbol) return Either.right(symbol)
  const fix = found.length === 0
    ? "give one identifier as it appears in the code (letters, digits, _ or $, not starting with a digit), " +
      "e.g. \"parseConfig\"."
    : `give one identifier, not an expression; it contains ${
      found.map((id) => id.name).join(", ")
    }: send the one to query, e.g. "${found[found.length - 1]!.name}".`
  return Either.left(LspError.invalidArguments(`Invalid "symbol" (got ${quote(symbol)}): ${fix}`, {
    argument: "symbol"
  }))
}

/** Lines in search order: the requested one, then ±1, ±2, ±3, the line above first at equal distance. */
const searchOrder = (line: number, lineCount: number): ReadonlyArray<number> => {
  const order = [line]
  for (let distance = 1; distance <= symbolWindow; distance++) {
    if (line - distance >= 0) order.push(line - distance)
    if (line + distance < lineCount) order.push(line + distance)
  }
  return order
}

const nearest = (occurrences: ReadonlyArray<Identifier>, character: number): Identifier =>
  occurrences.find((id) => contains(id, character)) ??
    // Nearest start; at equal distance the earlier one (reduce keeps the first minimum).
    occurrences.reduce((best, id) =>
      Math.abs(id.character - character) < Math.abs(best.character - character) ? id : best
    )

/**
 * Resolves `symbol` on or near `position.line`. Lines are searched nearest first — the requested line, then
 * one above, one below, two above, … up to `symbolWindow` (at equal distance the line above wins), first for
 * occurrences in code, then (only if none) for occurrences in strings or comments, which the answer flags
 * with `inStringOrComment`; on the first line that has whole-identifier occurrences of `symbol`, the
 * occurrence whose span contains
 * `position.character` (end inclusive) wins, else the one starting nearest to it (the earlier at equal
 * distance), so character 0 means the first occurrence. `position.character` is a preference only and may be
 * past the end of the line.
 *
 * Fails with `LSP_INVALID_ARGUMENTS` when `symbol` is not one identifier (`checkSymbol`),
 * `LSP_POSITION_OUT_OF_RANGE` when the line is past the end of the file, and `LSP_SYMBOL_NOT_FOUND` when no
 * line of the window has it; that message lists the identifiers on the requested line (one-based columns,
 * at most `listLimit`), `detail` has them all (zero-based).
 *
 * @since 0.1.0
 * @category utils
 */
export const resolveSymbol = (
  lines: ReadonlyArray<string>,
  position: LspPosition,
  symbol: string
): Either.Either<LspResult.Resolved, LspError.LspArgumentsError> =>
  Either.flatMap(checkSymbol(symbol), () => {
    if (position.line >= lines.length) return Either.left(lineOutOfRange(position.line, lines.length))
    const order = searchOrder(position.line, lines.length)
    // Code first, over the whole window; a string or comment only when no line has the name in code.
    for (const inStringOrComment of [false, true]) {
      for (const line of order) {
        const text = lines[line]!
        const all = identifiersOn(text).filter((id) => id.name === symbol)
        const occurrences = inStringOrComment ? all : all.filter(inCode(nonCodeSpans(text)))
        if (occurrences.length === 0) continue
        const chosen = nearest(occurrences, position.character)
        const resolved = {
          symbol,
          position: { line, character: chosen.character },
          requested: position,
          occurrences: occurrences.length
        }
        return Either.right(inStringOrComment ? { ...resolved, inStringOrComment: true as const } : resolved)
      }
    }
    const first = Math.max(0, position.line - symbolWindow)
    const last = Math.min(lines.length - 1, position.line + symbolWindow)
    const identifiers = identifiersOn(lines[position.line]!)
    return Either.left(LspError.symbolNotFound(
      `\`${symbol}\` does not occur as a whole identifier on line ${position.line + 1} or within ` +
        `${symbolWindow} lines of it (lines ${first + 1}-${last + 1}); ${describeLine(position.line, identifiers)}. ` +
        "Check the name and the line (read the file), or send character without symbol.",
      { symbol, line: position.line, character: position.character, window: symbolWindow, identifiers }
    ))
  })

/**
 * For an empty answer: `undefined` when `position` is on an identifier (from its first character to just
 * after its last) or outside the document, otherwise the position and every identifier on its line.
 *
 * @since 0.1.0
 * @category utils
 */
export const offIdentifier = (
  lines: ReadonlyArray<string>,
  position: LspPosition
): LspResult.OffIdentifier | undefined => {
  const text = lines[position.line]
  if (text === undefined) return undefined
  const identifiers = identifiersOn(text)
  return identifiers.some((id) => contains(id, position.character))
    ? undefined
    : { line: position.line, character: position.character, identifiers }
}

/**
 * Where a request is asked: its position exactly as given (checked with `checkPosition`) without `symbol`,
 * or the position `resolveSymbol` finds with it, together with `resolved`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Located {
  readonly position: LspPosition
  readonly resolved: LspResult.Resolved | undefined
}

/**
 * The position to query for a request: `resolveSymbol` when `symbol` is given, otherwise `checkPosition`
 * (positions are never moved without `symbol`).
 *
 * @since 0.1.0
 * @category utils
 */
export const locate = (
  lines: ReadonlyArray<string>,
  position: LspPosition,
  symbol?: string | undefined
): Either.Either<Located, LspError.LspArgumentsError> =>
  symbol === undefined
    ? Either.map(checkPosition(lines, position), (): Located => ({ position, resolved: undefined }))
    : Either.map(resolveSymbol(lines, position, symbol), (resolved) => ({ position: resolved.position, resolved }))

/**
 * Adds to an answer what `locate` found: `resolved` when a symbol was resolved, and `offIdentifier` when the
 * answer is empty and the queried position is not on an identifier.
 *
 * @since 0.1.0
 * @category utils
 */
export const annotate = <A extends LspResult.LspQueryResult>(
  result: A,
  lines: ReadonlyArray<string>,
  located: Located
): A => {
  const withResolved = located.resolved === undefined ? result : LspResult.withResolved(result, located.resolved)
  if (!LspResult.isEmpty(result)) return withResolved
  const off = offIdentifier(lines, located.position)
  return off === undefined ? withResolved : LspResult.withOffIdentifier(withResolved, off)
}
