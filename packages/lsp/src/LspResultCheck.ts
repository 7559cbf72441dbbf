/**
 * The check of an answer against `LspResult.LspQueryResult`, as the seam makes it of every provider's answer
 * and the remote wire of every answer it carries. The schema's check costs ~2 µs per location (four integer
 * filters, three structs), so a list of 500 references took over 1 ms before the caller saw it. A plain
 * locations result — the shape the hosts build, and the largest answers there are — is therefore checked
 * and copied field by field, which gives the very value the schema gives (new objects holding only the
 * schema's members); everything else goes to the schema, which also writes the error messages. The property
 * tests hold the two to the same results.
 *
 * @since 0.2.0
 */
import * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as LspDecode from "./LspDecode.js"
import { type LspLocation, type LspLocationsResult, LspQueryResult } from "./LspResult.js"

const bySchema = LspDecode.validateEither(LspQueryResult)

/** Only plain objects take the fast way: anything more unusual is the schema's to judge. */
const isPlain = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0

const isPosition = (value: unknown): value is { line: number; character: number } =>
  isPlain(value) && isCount(value.line) && isCount(value.character)

// A location with a body (since 0.3.0) is the schema's to check and copy.
const isLocation = (value: unknown): value is LspLocation =>
  isPlain(value) && typeof value.uri === "string" && isPlain(value.range) && isPosition(value.range.start) &&
  isPosition(value.range.end) && !("body" in value)

const copyLocation = ({ range: { end, start }, uri }: LspLocation): LspLocation => ({
  uri,
  range: { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } }
})

/**
 * Exactly `{ kind: "locations", locations, resolvedWorkspaceUri }` (no optional member, not even an undefined
 * one) with well-formed locations, copied; `undefined` when the schema has to look.
 */
const plainLocations = (value: unknown): LspLocationsResult | undefined => {
  if (!isPlain(value) || Reflect.ownKeys(value).length !== 3) return undefined
  const { kind, locations, resolvedWorkspaceUri } = value
  if (kind !== "locations" || typeof resolvedWorkspaceUri !== "string" || !Array.isArray(locations)) return undefined
  const copied: Array<LspLocation> = new Array(locations.length)
  for (let i = 0; i < locations.length; i++) {
    // A hole reads as undefined, which is no location.
    const location: unknown = locations[i]
    if (!isLocation(location)) return undefined
    copied[i] = copyLocation(location)
  }
  return { kind, locations: copied, resolvedWorkspaceUri }
}

/**
 * What `Schema.validateEither(LspResult.LspQueryResult)` gives for `value`: the answer as the schema
 * returns it (new objects with the schema's members only), or the schema's error. Plain locations results are
 * checked without the schema, ~25× faster.
 *
 * @since 0.2.0
 * @category validation
 */
export const validate = (value: unknown): Either.Either<LspQueryResult, ParseResult.ParseError> => {
  const fast = plainLocations(value)
  return fast !== undefined ? Either.right(fast) : bySchema(value)
}
