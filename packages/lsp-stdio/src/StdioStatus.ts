/**
 * Read-only introspection of a running stdio host: which servers run, for which workspace, in what state,
 * and how they have fared. `lsp-seam doctor` prints it; nothing here can change the host.
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/**
 * One pooled server.
 *
 * @since 0.2.0
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
  /** Resident memory of the server and its children, where the process world can tell. */
  readonly rssBytes: number | null
}

/**
 * @since 0.2.0
 * @category models
 */
export interface StdioStatusShape {
  readonly status: Effect.Effect<ReadonlyArray<ServerStatus>>
}

/**
 * The status view of the stdio host in context (provided by `LspStdio.layer`).
 *
 * @since 0.2.0
 * @category tags
 */
export class StdioStatus extends Context.Tag("@lsp-seam/lsp-stdio/StdioStatus")<StdioStatus, StdioStatusShape>() {}
