/**
 * Read-only introspection of a running stdio host: which servers run, for which workspace, in what state,
 * and how they have fared. `lsp-seam doctor` prints it; nothing here can change the host.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/**
 * One pooled server.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerStatus {
  readonly providerId: string
  /** The canonical workspace directory of the query that started it. */
  readonly workspace: string
  /**
   * The directory the server runs in: the workspace, or the project root inside it that the server's
   * `rootMarkers` found.
   */
  readonly root: string
  /** `null` while starting. */
  readonly pid: number | null
  readonly state: "starting" | "idle" | "busy"
  readonly uptimeMs: number
  /** Queries that have used this server instance. */
  readonly queriesServed: number
  /**
   * Queries waiting for this server, in arrival order, behind the one it serves (queries of one server run
   * one at a time).
   */
  readonly queued: number
  /** How many times a server for this provider and workspace was started before this one. */
  readonly restarts: number
  /** The last crash of a server for this provider and workspace, if any. */
  readonly lastError: string | null
  /**
   * Resident memory of the server's process tree (its process group and every descendant), where the process
   * world can tell (from /proc, on Linux).
   */
  readonly rssBytes: number | null
}

/**
 * A server the memory budget stopped.
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryEviction {
  readonly providerId: string
  readonly workspace: string
  readonly root: string
  readonly pid: number
  /** The resident memory of its process tree when it was stopped. */
  readonly rssBytes: number
  /** The servers' total, this one included, when it was stopped. */
  readonly totalBytes: number
  readonly budgetBytes: number
  /** When, in milliseconds since the epoch (the host's clock). */
  readonly at: number
}

/**
 * The servers' memory against their budget (`maxMemory`), and the host's own.
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryStatus {
  /** The budget as configured (`"25%"`, `"2GiB"`, bytes). */
  readonly maxMemory: string | number
  /** The budget in bytes on this machine; null when a share was asked of a machine whose size is unknown. */
  readonly budgetBytes: number | null
  /** Whether the budget is enforced: false where the servers' memory cannot be measured (no /proc). */
  readonly enforced: boolean
  /** The resident memory of every running server's process tree, summed; null when it cannot be measured. */
  readonly totalBytes: number | null
  /** The resident memory of the host process itself. */
  readonly hostBytes: number
  /** How many servers the budget has stopped since the host started. */
  readonly evictions: number
  /** The latest of them (at most 20), oldest first. */
  readonly recentEvictions: ReadonlyArray<MemoryEviction>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface StdioStatusShape {
  readonly status: Effect.Effect<ReadonlyArray<ServerStatus>>
  /**
   * The memory budget's view (absent from older hosts' status views).
   *
   * @since 0.1.0
   */
  readonly memory?: Effect.Effect<MemoryStatus>
}

/**
 * The status view of the stdio host in context (provided by `LspStdio.layer`).
 *
 * @since 0.1.0
 * @category tags
 */
export class StdioStatus extends Context.Tag("@lsp-seam/lsp-stdio/StdioStatus")<StdioStatus, StdioStatusShape>() {}
