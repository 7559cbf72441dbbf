/**
 * The memory lines of `doctor` and `doctor --remote`: the servers' total against their budget (`maxMemory`),
 * the host's own resident memory, and the servers the budget stopped.
 */

/** What both the local status view and the remote `Memory` answer say about memory. */
export interface Memory {
  readonly maxMemory: string | number
  readonly budgetBytes: number | null
  readonly enforced: boolean
  readonly totalBytes: number | null
  readonly hostBytes: number
  readonly evictions: number
  readonly recentEvictions: ReadonlyArray<{
    readonly providerId: string
    readonly workspace: string
    readonly rssBytes: number
    readonly totalBytes: number
  }>
}

/** Bytes in MiB with one decimal, or "unknown". */
export const mib = (bytes: number | null): string =>
  bytes === null ? "unknown" : `${(bytes / 1024 / 1024).toFixed(1)} MiB`

/** The budget as configured and in bytes, and whether it is enforced here: one line for `serve`'s start. */
export const budgetLine = (memory: Memory): string =>
  `memory budget for the language servers: maxMemory ${JSON.stringify(memory.maxMemory)}` +
  (memory.budgetBytes === null ? "" : ` = ${mib(memory.budgetBytes)}`) +
  (memory.enforced
    ? " (their process trees measured from /proc; idle ones stopped, least recently used first, when over)"
    : " (not enforced here: the servers' memory cannot be measured without /proc)")

/** The lines, each starting with `indent`. */
export const render = (memory: Memory, indent: string): ReadonlyArray<string> => {
  const budget = `maxMemory ${JSON.stringify(memory.maxMemory)}` +
    (memory.budgetBytes === null ? "" : ` = ${mib(memory.budgetBytes)}`)
  const lines = [
    memory.enforced
      ? `${indent}memory: servers ${mib(memory.totalBytes)} of a budget of ${budget}; host process ${
        mib(memory.hostBytes)
      }`
      : `${indent}memory: ${budget} is not enforced here (the servers' memory cannot be measured: no /proc); ` +
        `host process ${mib(memory.hostBytes)}`
  ]
  if (memory.evictions > 0) {
    const latest = memory.recentEvictions.at(-1)
    lines.push(
      `${indent}  ${memory.evictions} idle server${memory.evictions === 1 ? "" : "s"} stopped over the budget` +
        (latest === undefined
          ? ""
          : `; the latest: ${latest.providerId} for ${latest.workspace} (${mib(latest.rssBytes)}, servers at ${
            mib(latest.totalBytes)
          })`)
    )
  }
  return lines
}
