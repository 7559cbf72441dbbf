// The optional facts any answer may carry beside its payload — whether it may be incomplete and why, what a
// `symbol` request resolved to, the identifiers near an off-identifier position — and the helpers that set
// them. Each is documented here, where LspResult re-exports it.
import * as Schema from "effect/Schema"
import { LspPosition } from "../../LspQuery.js"
import * as Reasons from "./reasons.js"

/**
 * Present (and `true`) only when the answer may be missing results: the server was still busy with its
 * startup work (indexing, loading the project) when the answer had to be given, or it answered a cross-file
 * question without a project model. `incompleteReasons` says which. Absent otherwise.
 */
export const Incomplete = Schema.Literal(true).annotations({
  description: "The answer may be incomplete; incompleteReasons says why."
})

/**
 * Why an answer may be incomplete: `readiness` — the server had not finished starting up; `no-project` —
 * a cross-file answer computed without the server's project model (no `tsconfig.json`, no
 * `compile_commands.json`, …); `provider-failed` — a workspaceSymbol search merged from several providers,
 * one of which failed (the message names it and its error); `diagnostics-pending` — the server had not
 * published diagnostics for the file's current text when the answer had to be given (the answer then
 * holds none: a set for an older text is never given); `projects-not-searched` — the
 * workspace has several projects of one server and some were not searched (a bound on how many are loaded, or
 * on how far the workspace was walked to find them): the message names them; `excluded-by-config` — files
 * of the server's language under its root that its own configuration leaves out (pyright's `include` and
 * `exclude`, or no tsconfig.json) were more than a cross-file question opens for itself: the message names them
 * and the setting; `deadline` — a cross-project question that could not be finished within its caller's budget
 * answered with what was searched by then: the message names the projects still loading (asked again a little
 * later, the question is complete); `capped` — an impact answer kept fewer declarations at a level than it
 * found (the request's `maxGroups`): the message says how many were cut, which were then not followed;
 * `no-call-hierarchy` — an impact answer's server cannot answer the call hierarchy: the uses are grouped, who
 * calls those declarations was not searched.
 */
export const IncompleteReasonKind = Schema.Literal(
  "readiness",
  "no-project",
  "provider-failed",
  "diagnostics-pending",
  "projects-not-searched",
  "excluded-by-config",
  "deadline",
  "capped",
  "no-call-hierarchy"
)

export type IncompleteReasonKind = typeof IncompleteReasonKind.Type

/**
 * One reason an answer may be incomplete, with a one-line message for the model that includes the remedy.
 */
export const IncompleteReason = Schema.Struct({
  reason: IncompleteReasonKind,
  message: Schema.String
})

export type IncompleteReason = typeof IncompleteReason.Type

/**
 * The standard message of a `readiness` reason.
 */
export const readinessMessage: string = Reasons.readinessMessage

/**
 * The `readiness` reason with its standard message (what `markIncomplete(result)` adds).
 */
export const readiness: IncompleteReason = Reasons.readiness

/**
 * What a request with `symbol` was resolved to: the zero-based `position` actually queried, the
 * zero-based `requested` position, and how many whole-identifier occurrences of `symbol` the chosen line
 * holds (more than one means the provider chose among them).
 */
export const Resolved = Schema.Struct({
  symbol: Schema.String,
  position: LspPosition,
  requested: LspPosition,
  occurrences: Schema.Int.pipe(Schema.positive()),
  /** Present (true) when no line of the window has the name in code: the occurrence used is in a string or comment. */
  inStringOrComment: Schema.optional(Schema.Literal(true))
})

export type Resolved = typeof Resolved.Type

/**
 * An identifier on a line: its name and the zero-based UTF-16 column where it starts.
 */
export const LspIdentifier = Schema.Struct({
  name: Schema.String,
  character: Schema.NonNegativeInt
})

export type LspIdentifier = typeof LspIdentifier.Type

/**
 * Set by providers only on an empty answer (no locations, or a null hover) whose position is not on an
 * identifier: the zero-based position and every identifier on that line, in order.
 */
export const OffIdentifier = Schema.Struct({
  line: Schema.NonNegativeInt,
  character: Schema.NonNegativeInt,
  identifiers: Schema.Array(LspIdentifier)
})

export type OffIdentifier = typeof OffIdentifier.Type

/** The fields every result struct spreads in. */
export const fields = {
  incomplete: Schema.optional(Incomplete),
  incompleteReasons: Schema.optional(Schema.Array(IncompleteReason)),
  resolved: Schema.optional(Resolved),
  offIdentifier: Schema.optional(OffIdentifier)
}

/** Any value carrying those fields: every member of the result union. */
export type Annotated = Schema.Struct.Type<typeof fields>

/**
 * Marks a result as possibly incomplete: sets `incomplete: true` and appends `reason` (default: the
 * `readiness` reason) to `incompleteReasons`, unless a reason of the same kind is already there.
 */
export const markIncomplete = <A extends Annotated>(result: A, reason: IncompleteReason = readiness): A => {
  const reasons = result.incompleteReasons ?? []
  return {
    ...result,
    incomplete: true,
    incompleteReasons: reasons.some((r) => r.reason === reason.reason) ? reasons : [...reasons, reason]
  }
}

/**
 * The reasons an answer may be incomplete: `incompleteReasons`, or the `readiness` reason for a result that
 * only says `incomplete: true` (as older providers do); empty for a complete answer.
 */
export const incompleteReasonsOf: (result: Annotated) => ReadonlyArray<IncompleteReason> = Reasons.incompleteReasonsOf

/**
 * Records what a request with `symbol` was resolved to.
 */
export const withResolved = <A extends Annotated>(result: A, resolved: Resolved): A => ({ ...result, resolved })

/**
 * Records that an empty answer was asked at a position off any identifier (see `OffIdentifier`).
 */
export const withOffIdentifier = <A extends Annotated>(result: A, offIdentifier: OffIdentifier): A => ({
  ...result,
  offIdentifier
})
