// Why an answer may be incomplete, as plain data: the standard `readiness` reason and the reasons a result
// carries. It imports nothing, so that both the Schemas (annotations.ts) and the Schema-free readers
// (LspResultRead) build on it without loading each other.

/** A reason why an answer may be incomplete (the type of `LspResult.IncompleteReason`). */
export interface IncompleteReason {
  readonly reason:
    | "readiness"
    | "no-project"
    | "provider-failed"
    | "diagnostics-pending"
    | "projects-not-searched"
    | "excluded-by-config"
    | "deadline"
    | "capped"
    | "no-call-hierarchy"
  readonly message: string
}

/** The standard message of a `readiness` reason. */
export const readinessMessage =
  "The language server was still starting up (indexing); this answer may be incomplete. Repeat the query in " +
  "a few seconds for a complete answer."

/** The `readiness` reason with its standard message. */
export const readiness: IncompleteReason = { reason: "readiness", message: readinessMessage }

/**
 * The reasons an answer may be incomplete: `incompleteReasons`, or the `readiness` reason for a result that
 * only says `incomplete: true`; empty for a complete answer.
 */
export const incompleteReasonsOf = (
  result: {
    readonly incomplete?: true | undefined
    readonly incompleteReasons?: ReadonlyArray<IncompleteReason> | undefined
  }
): ReadonlyArray<IncompleteReason> =>
  result.incompleteReasons !== undefined && result.incompleteReasons.length > 0
    ? result.incompleteReasons
    : result.incomplete === true
    ? [readiness]
    : []
