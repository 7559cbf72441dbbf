/**
 * Turning a server's answer into seam values. Everything that comes off the wire is validated with a
 * Schema; anything that does not fit the protocol is `LSP_MALFORMED_RESPONSE` with a message that says
 * what was wrong and where, never silently dropped.
 */
import { LspDecode, LspError, LspQuery, type LspResult } from "@lsp-seam/lsp"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { methodOf } from "../wire/capabilities.js"

export const Uri = Schema.String.pipe(Schema.filter((s) => s.length > 0 || "must not be empty"))

export const Location = Schema.Struct({
  uri: Uri,
  range: LspQuery.LspRange
})

export const LocationLink = Schema.Struct({
  originSelectionRange: Schema.optionalWith(LspQuery.LspRange, { exact: true }),
  targetUri: Uri,
  targetRange: LspQuery.LspRange,
  targetSelectionRange: LspQuery.LspRange
})

// A refinement rather than a literal union, so a wrong kind gives one message instead of one per member.
const MarkupKind = Schema.String.pipe(
  Schema.filter((s): s is "plaintext" | "markdown" => s === "plaintext" || s === "markdown", {
    message: (issue) => `Expected "plaintext" or "markdown", actual ${JSON.stringify(issue.actual)}`
  })
)

const MarkupContent = Schema.Struct({
  kind: MarkupKind,
  value: Schema.String
})

const CodeString = Schema.Struct({
  language: Schema.String,
  value: Schema.String
})

export const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

export const describe = (u: unknown): string =>
  u === null ? "null" : Array.isArray(u) ? "an array" : u === undefined ? "nothing" : `a value of type ${typeof u}`

const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((segment) => typeof segment === "number" ? `[${segment}]` : `.${String(segment)}`).join("")

export const malformed = (
  operation: LspQuery.LspProviderOperation,
  problem: string,
  where?: string
): LspError.LspLocalError =>
  LspError.malformedResponse(
    `The language server's ${methodOf(operation)} answer is malformed: ${problem}. ` +
      "This is a server bug or an incompatible server; retrying will not help.",
    where === undefined ? { operation, method: methodOf(operation) } : { operation, method: methodOf(operation), where }
  )

/** Decodes `input` with `schema`; a failure names the offending field under `where` (for example `[2]`). */
export const decodeAt = <A, I>(
  schema: Schema.Schema<A, I>,
  operation: LspQuery.LspProviderOperation,
  what: string,
  where: string,
  input: unknown
): Either.Either<A, LspError.LspLocalError> =>
  Either.mapLeft(LspDecode.decodeUnknownEither(schema, { errors: "all" })(input), (error) => {
    const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
      .map((issue) => `result${where}${formatPath(issue.path)}: ${issue.message}`)
    return malformed(operation, `${what}: ${issues.join("; ")}`, `result${where}`)
  })

const isNonNegativeInt = (u: unknown): u is number => typeof u === "number" && Number.isSafeInteger(u) && u >= 0

/** A fresh copy of `u` when it is a valid `LspRange` (what decoding it with the schema gives), else undefined. */
const rangeOf = (u: unknown): LspQuery.LspRange | undefined => {
  if (!isRecord(u) || !isRecord(u.start) || !isRecord(u.end)) return undefined
  const { end, start } = u
  return isNonNegativeInt(start.line) && isNonNegativeInt(start.character) && isNonNegativeInt(end.line) &&
      isNonNegativeInt(end.character)
    ? { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } }
    : undefined
}

const isUri = (u: unknown): u is string => typeof u === "string" && u.length > 0

/**
 * A `Location` entry, checked field by field as the schema would (a valid one is what decoding it gives);
 * only an entry that fails goes through the schema, for its message. The schema costs ~0.7 µs per position,
 * which a long list of references multiplies.
 */
export const decodeLocation = (
  operation: LspQuery.LspProviderOperation,
  where: string,
  entry: unknown
): Either.Either<LspResult.LspLocation, LspError.LspLocalError> => {
  if (isRecord(entry) && isUri(entry.uri)) {
    const range = rangeOf(entry.range)
    if (range !== undefined) return Either.right({ uri: entry.uri, range })
  }
  return decodeAt(Location, operation, "expected a Location", where, entry)
}

/** A `LocationLink` entry as the location it points at (`targetUri`, `targetSelectionRange`), like `decodeLocation`. */
export const decodeLocationLink = (
  operation: LspQuery.LspProviderOperation,
  where: string,
  entry: unknown
): Either.Either<LspResult.LspLocation, LspError.LspLocalError> => {
  if (isRecord(entry) && isUri(entry.targetUri)) {
    const origin = "originSelectionRange" in entry ? rangeOf(entry.originSelectionRange) : null
    const target = rangeOf(entry.targetRange) !== undefined ? rangeOf(entry.targetSelectionRange) : undefined
    if (origin !== undefined && target !== undefined) return Either.right({ uri: entry.targetUri, range: target })
  }
  return Either.map(
    decodeAt(LocationLink, operation, "expected a LocationLink", where, entry),
    (link) => ({ uri: link.targetUri, range: link.targetSelectionRange })
  )
}

/**
 * `raw` is the JSON-RPC `result`, or an `Option` of it where `None` means the response carried no result
 * at all (which the protocol does not allow for a successful response). JSON cannot produce an `Option`,
 * so the two cannot be confused.
 */
export const unwrap = (raw: unknown): Option.Option<unknown> =>
  Option.isOption(raw) ? raw : raw === undefined ? Option.none() : Option.some(raw)

/**
 * Normalises the answer to a navigation request: `null` gives no locations; one `Location`, an array of
 * `Location`, or an array of `LocationLink` (whose `targetUri` and `targetSelectionRange` are used) give
 * those locations in order; an array that mixes the two kinds is read entry by entry (the protocol does not
 * allow it, but servers send it and every entry is unambiguous). Positions must be non-negative integers and
 * every required field present. A missing result or a single `LocationLink` is `LSP_MALFORMED_RESPONSE`.
 */
export const normalizeLocations = (
  raw: unknown,
  operation: LspQuery.LspProviderOperation
): Either.Either<ReadonlyArray<LspResult.LspLocation>, LspError.LspLocalError> => {
  const result = unwrap(raw)
  if (Option.isNone(result)) return Either.left(malformed(operation, "the response has no result"))
  const value = result.value
  if (value === null) return Either.right([])
  if (isRecord(value)) {
    if ("targetUri" in value && !("uri" in value)) {
      return Either.left(
        malformed(operation, "a single LocationLink is not a valid answer (LocationLinks must come in an array)")
      )
    }
    return Either.map(decodeLocation(operation, "", value), (location) => [location])
  }
  if (!Array.isArray(value)) {
    return Either.left(
      malformed(
        operation,
        `expected null, a Location, an array of Location or an array of LocationLink, got ${describe(value)}`
      )
    )
  }
  const entries: ReadonlyArray<unknown> = value
  const locations: Array<LspResult.LspLocation> = []
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]
    // Each entry is read by its own shape: some servers mix the two kinds in one answer, and both say where.
    if (isRecord(entry) && "targetUri" in entry) {
      const link = decodeLocationLink(operation, `[${i}]`, entry)
      if (Either.isLeft(link)) return Either.left(link.left)
      locations.push(link.right)
    } else if (isRecord(entry) && "uri" in entry) {
      const location = decodeLocation(operation, `[${i}]`, entry)
      if (Either.isLeft(location)) return Either.left(location.left)
      locations.push(location.right)
    } else {
      return Either.left(
        malformed(operation, `result[${i}] is neither a Location nor a LocationLink (got ${describe(entry)})`)
      )
    }
  }
  return Either.right(locations)
}

const isEmpty = (text: string): boolean => text.trim().length === 0

/** A fenced code block that no backtick run inside `code` can close early. */
export const codeBlock = (language: string, code: string): string => {
  const longestRun = Math.max(0, ...Array.from(code.matchAll(/`+/g), (match) => match[0].length))
  const fence = "`".repeat(Math.max(3, longestRun + 1))
  // An info string with whitespace or a backtick would break the fence line; drop it rather than the code.
  const info = /^[^\s`]+$/.test(language) ? language : ""
  return `${fence}${info}\n${code}${code.endsWith("\n") ? "" : "\n"}${fence}`
}

type Part = Either.Either<string | null, LspError.LspLocalError>

const markedString = (entry: unknown, where: string): Part => {
  if (typeof entry === "string") return Either.right(isEmpty(entry) ? null : entry)
  if (isRecord(entry) && !("kind" in entry)) {
    return Either.map(
      decodeAt(CodeString, "hover", "expected a MarkedString ({ language, value })", where, entry),
      ({ language, value }) => isEmpty(value) ? null : codeBlock(language, value)
    )
  }
  return Either.left(
    malformed(
      "hover",
      `result${where} must be a MarkedString (a string or { language, value }), got ${
        isRecord(entry) ? "MarkupContent" : describe(entry)
      }`
    )
  )
}

const hoverContents = (contents: unknown): Part => {
  if (Array.isArray(contents)) {
    const parts: Array<string> = []
    const entries: ReadonlyArray<unknown> = contents
    for (let i = 0; i < entries.length; i++) {
      const part = markedString(entries[i], `.contents[${i}]`)
      if (Either.isLeft(part)) return part
      if (part.right !== null) parts.push(part.right)
    }
    return Either.right(parts.length === 0 ? null : parts.join("\n\n"))
  }
  if (isRecord(contents) && "kind" in contents) {
    return Either.map(
      decodeAt(MarkupContent, "hover", "expected MarkupContent ({ kind, value })", ".contents", contents),
      ({ value }) => isEmpty(value) ? null : value
    )
  }
  return markedString(contents, ".contents")
}

/**
 * Normalises the answer to a hover request into one string. `null` gives `null`; `MarkupContent` gives its
 * value; a `MarkedString` string stays as is; `{ language, value }` becomes a fenced code block in that
 * language; an array joins its parts with one blank line. Empty or whitespace-only parts are skipped, and
 * contents that end up empty give `null`. A `range`, when present, must be a valid range.
 */
export const normalizeHover = (raw: unknown): Either.Either<LspResult.LspHover | null, LspError.LspLocalError> => {
  const result = unwrap(raw)
  if (Option.isNone(result)) return Either.left(malformed("hover", "the response has no result"))
  const value = result.value
  if (value === null) return Either.right(null)
  if (!isRecord(value)) {
    return Either.left(malformed("hover", `expected null or a Hover object, got ${describe(value)}`))
  }
  if (!("contents" in value) || value.contents === undefined) {
    return Either.left(malformed("hover", "result.contents is missing"))
  }
  const range = value.range === undefined ?
    Either.right(undefined) :
    decodeAt(LspQuery.LspRange, "hover", "expected a Range", ".range", value.range)
  if (Either.isLeft(range)) return Either.left(range.left)
  const contents = hoverContents(value.contents)
  if (Either.isLeft(contents)) return Either.left(contents.left)
  if (contents.right === null) return Either.right(null)
  return Either.right(
    range.right === undefined ? { contents: contents.right } : { contents: contents.right, range: range.right }
  )
}
