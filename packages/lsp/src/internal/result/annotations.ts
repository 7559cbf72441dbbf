// The optional facts any answer may carry beside its payload — whether it may be incomplete and why, what a
// `symbol` request resolved to, the identifiers near an off-identifier position — and the helpers that set
// them. The public documentation of each is in LspResult.ts.
import * as Schema from "effect/Schema"
import { LspPosition } from "../../LspQuery.js"
import * as Read from "../../LspResultRead.js"

export const Incomplete = Schema.Literal(true).annotations({
  description: "The answer may be incomplete; incompleteReasons says why."
})

export const IncompleteReasonKind = Schema.Literal(
  "readiness",
  "no-project",
  "provider-failed",
  "diagnostics-pending",
  "projects-not-searched"
)

export type IncompleteReasonKind = typeof IncompleteReasonKind.Type

export const IncompleteReason = Schema.Struct({
  reason: IncompleteReasonKind,
  message: Schema.String
})

export type IncompleteReason = typeof IncompleteReason.Type

export const readinessMessage: string = Read.readinessMessage

export const readiness: IncompleteReason = Read.readiness

export const Resolved = Schema.Struct({
  symbol: Schema.String,
  position: LspPosition,
  requested: LspPosition,
  occurrences: Schema.Int.pipe(Schema.positive()),
  /** Present (true) when no line of the window has the name in code: the occurrence used is in a string or comment. */
  inStringOrComment: Schema.optional(Schema.Literal(true))
})

export type Resolved = typeof Resolved.Type

export const LspIdentifier = Schema.Struct({
  name: Schema.String,
  character: Schema.NonNegativeInt
})

export type LspIdentifier = typeof LspIdentifier.Type

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

export const markIncomplete = <A extends Annotated>(result: A, reason: IncompleteReason = readiness): A => {
  const reasons = result.incompleteReasons ?? []
  return {
    ...result,
    incomplete: true,
    incompleteReasons: reasons.some((r) => r.reason === reason.reason) ? reasons : [...reasons, reason]
  }
}

export const incompleteReasonsOf: (result: Annotated) => ReadonlyArray<IncompleteReason> = Read.incompleteReasonsOf

export const withResolved = <A extends Annotated>(result: A, resolved: Resolved): A => ({ ...result, resolved })

export const withOffIdentifier = <A extends Annotated>(result: A, offIdentifier: OffIdentifier): A => ({
  ...result,
  offIdentifier
})
