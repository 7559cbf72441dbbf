/**
 * Quotes a server's status in the errors it causes, so that whoever reads "the server exited" also learns
 * whether it had just started or had served for hours, and whether this keeps happening.
 */
import { LspError } from "@lsp-seam/lsp"
import type { ServerStatus } from "../../StdioStatus.js"

/** What an error quotes: the failed server's status when it had started, else how often it was started. */
export interface Quoted {
  readonly providerId: string
  /** The status of the server that failed, taken before it was evicted; undefined if it never started. */
  readonly status: ServerStatus | undefined
  /** Starts of a server for this provider and workspace so far, the failed one included. */
  readonly starts: number
}

const seconds = (ms: number) => ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** One sentence, e.g. `Server status: pid 4242, up 12.3 s, 17 queries served, 2 restarts for this workspace.` */
export const describe = (quoted: Quoted): string => {
  const { starts, status } = quoted
  const restarts = Math.max(0, starts - 1)
  if (status === undefined || status.pid === null) {
    return `Server status: start ${starts} of the "${quoted.providerId}" server for this workspace (` +
      `${plural(restarts, "restart", "restarts")} before it).`
  }
  return `Server status: pid ${status.pid}, up ${seconds(status.uptimeMs)}, ` +
    `${plural(status.queriesServed, "query", "queries")} served, ${plural(restarts, "restart", "restarts")} for this ` +
    "workspace."
}

/**
 * `error` with the status sentence appended to its message and the figures under `detail.server`; its code
 * and typed reason are kept.
 */
export const quote = (error: LspError.LspLocalError, quoted: Quoted): LspError.LspLocalError => {
  const { starts, status } = quoted
  const server = status === undefined || status.pid === null
    ? { starts, restarts: Math.max(0, starts - 1) }
    : {
      pid: status.pid,
      uptimeMs: status.uptimeMs,
      queriesServed: status.queriesServed,
      starts,
      restarts: Math.max(0, starts - 1)
    }
  const separator = error.message.endsWith("\n") ? "" : "\n"
  const quotedError = LspError.make(error.code, `${error.message}${separator}${describe(quoted)}`, {
    ...error.detail,
    server
  })
  // The typed reason goes with it: the host's decisions read it.
  return error.reason === undefined ? quotedError : LspError.withReason(quotedError, error.reason)
}
