/**
 * Reading an answer without its Schemas: whether it is empty, why it may be incomplete, how to describe the
 * identifiers of a line, and the field-by-field check of a plain locations or hover answer. `LspResult`,
 * `LspIdentifiers` and `LspResultCheck` publish these too. It sits above `LspResult` and takes nothing but types
 * from it (its other values come from Schema-free internal modules), so that a client which must start in Node's
 * start time (the command's remote query, see docs/decisions.md) can render an answer without loading
 * `effect/Schema` and the seam's Schemas (~40 ms of module evaluation).
 *
 * @since 0.1.0
 */
import * as Emptiness from "./internal/result/emptiness.js"
import * as Reasons from "./internal/result/reasons.js"
import type {
  LspHover,
  LspHoverResult,
  LspIdentifier,
  LspLocation,
  LspLocationsResult,
  LspQueryResult
} from "./LspResult.js"

/**
 * A reason why an answer may be incomplete (the type of `LspResult.IncompleteReason`).
 *
 * @since 0.1.0
 * @category models
 */
export type IncompleteReason = Reasons.IncompleteReason

/**
 * The standard message of a `readiness` reason.
 *
 * @since 0.1.0
 * @category constants
 */
export const readinessMessage: string = Reasons.readinessMessage

/**
 * The `readiness` reason with its standard message.
 *
 * @since 0.1.0
 * @category constants
 */
export const readiness: IncompleteReason = Reasons.readiness

/**
 * The reasons an answer may be incomplete: `incompleteReasons`, or the `readiness` reason for a result that
 * only says `incomplete: true`; empty for a complete answer.
 *
 * @since 0.1.0
 * @category utils
 */
export const incompleteReasonsOf: (
  result: {
    readonly incomplete?: true | undefined
    readonly incompleteReasons?: ReadonlyArray<IncompleteReason> | undefined
  }
) => ReadonlyArray<IncompleteReason> = Reasons.incompleteReasonsOf

/**
 * True for an answer with nothing in it: no locations, symbols, calls, diagnostics, edits or impact nodes, or a
 * hover that is null or blank.
 *
 * @since 0.1.0
 * @category utils
 */
export const isEmpty: (result: LspQueryResult) => boolean = Emptiness.isEmpty

/**
 * How many identifiers a message lists before it says how many more there are.
 *
 * @since 0.1.0
 * @category constants
 */
export const listLimit = 30

/**
 * `add (column 17), x (column 21)` — one-based columns, at most `limit` entries, then `… and N more`.
 *
 * @since 0.1.0
 * @category utils
 */
export const formatIdentifiers = (identifiers: ReadonlyArray<LspIdentifier>, limit: number = listLimit): string => {
  const shown = identifiers.slice(0, limit).map((id) => `${id.name} (column ${id.character + 1})`)
  const more = identifiers.length - shown.length
  return more > 0 ? `${shown.join(", ")}, … and ${more} more` : shown.join(", ")
}

/**
 * `identifiers on line 3: add (column 17), x (column 21)`, or `line 3 has no identifiers` (one-based).
 *
 * @since 0.1.0
 * @category utils
 */
export const describeLine = (line: number, identifiers: ReadonlyArray<LspIdentifier>): string =>
  identifiers.length === 0
    ? `line ${line + 1} has no identifiers`
    : `identifiers on line ${line + 1}: ${formatIdentifiers(identifiers)}`

/** Only plain objects take the fast way: anything more unusual is the schema's to judge. */
const isPlain = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0

const isPosition = (value: unknown): value is { line: number; character: number } =>
  isPlain(value) && isCount(value.line) && isCount(value.character)

// A location with a body is the schema's to check and copy.
const isLocation = (value: unknown): value is LspLocation =>
  isPlain(value) && typeof value.uri === "string" && isRange(value.range) && !("body" in value)

const isRange = (value: unknown): value is LspLocation["range"] =>
  isPlain(value) && isPosition(value.start) && isPosition(value.end)

const copyRange = ({ end, start }: LspLocation["range"]): LspLocation["range"] => ({
  start: { line: start.line, character: start.character },
  end: { line: end.line, character: end.character }
})

const copyLocation = ({ range, uri }: LspLocation): LspLocation => ({ uri, range: copyRange(range) })

/**
 * Exactly `{ kind: "locations", locations, resolvedWorkspaceUri }` (no optional member, not even an undefined
 * one) with well-formed locations, copied into new objects holding only the schema's members — the very value
 * `Schema.validateEither(LspResult.LspQueryResult)` gives for it; `undefined` when the schema has to look
 * (`LspResultCheck.validate` then asks it; its property tests hold the two to the same results).
 *
 * @since 0.1.0
 * @category validation
 */
export const plainLocations = (value: unknown): LspLocationsResult | undefined => {
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

/** `{ contents }` or `{ contents, range }` exactly (no undefined member), copied; `undefined` otherwise. */
const plainHoverValue = (value: unknown): LspHover | undefined => {
  if (!isPlain(value) || typeof value.contents !== "string") return undefined
  const keys = Reflect.ownKeys(value).length
  if (keys === 1) return { contents: value.contents }
  return keys === 2 && isRange(value.range) ? { contents: value.contents, range: copyRange(value.range) } : undefined
}

/**
 * Exactly `{ kind: "hover", hover }` (no optional member) with `hover` null or a plain hover, copied as the
 * schema copies it; `undefined` when the schema has to look. Like `plainLocations`, the very value
 * `Schema.validateEither(LspResult.LspQueryResult)` gives for it (held to it by property tests).
 *
 * @since 0.1.0
 * @category validation
 */
export const plainHover = (value: unknown): LspHoverResult | undefined => {
  if (!isPlain(value) || Reflect.ownKeys(value).length !== 2 || value.kind !== "hover") return undefined
  if (value.hover === null) return { kind: "hover", hover: null }
  const hover = plainHoverValue(value.hover)
  return hover === undefined ? undefined : { kind: "hover", hover }
}
