/**
 * The command's own failures besides `LspError`: a usage mistake (exit 2) and a doctor that found an
 * unusable server (exit 1). Internal: they never leave the command.
 */
import * as Data from "effect/Data"

export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

export class Unhealthy extends Data.TaggedError("Unhealthy")<{ readonly unusable: ReadonlyArray<string> }> {}
