/**
 * The one budget of a `query --remote` command: its edge (`quickQuery.ts`) and, when the edge leaves the query,
 * the full client (`remoteQuery.ts`) share the tool's budget, counted from the process's start, so a command
 * never waits longer than one query may (it used to wait the budget twice). Plain functions: the edge loads no
 * Effect runtime.
 */

/** The tool's budget of one query (`LspToolConfig.defaults.timeoutMs`; the edge's tests hold the two equal). */
export const timeoutMs = 60_000

/** What is left of the budget at `now` of a command started at `startedAt` (epoch ms), never below 0. */
export const remaining = (startedAt: number, now: number): number =>
  Math.max(0, timeoutMs - Math.max(0, now - startedAt))

/** The tool's `LSP_TIMEOUT` message for the whole budget (`LspToolHandler`'s wording; tests hold them equal). */
export const timeoutMessage = (budgetMs: number = timeoutMs): string =>
  `The language server did not answer within ${budgetMs} ms, so the query was cancelled. The server may ` +
  "still be starting or indexing: retry later, or use search/read instead."
