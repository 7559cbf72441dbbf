/**
 * The documents a query puts on a server, as resources of the query's scope. One document per query: the
 * file it is about, made current on the server before the request goes out.
 *
 * - Transient (`documentSync: "transient"`): opened (`didOpen`) for this query and closed (`didClose`) when
 *   the query's scope closes.
 * - Retained: kept open between queries and brought in step with the disk (`retainedDocuments.ts`); the
 *   scope's close has nothing to send.
 *
 * Either way, a query that was interrupted leaves a cancelled request behind: the close waits for the server
 * to settle it, and a server that ignored the cancellation is given up (`retire`), so it never answers the
 * next query with a stale document.
 */
import type { LspError } from "@lsp-seam/lsp"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import type * as JsonRpc from "../../JsonRpc.js"
import type { FileServices } from "../files/fileAccess.js"
import type { Workspace } from "../files/workspace.js"
import type * as DiagnosticsStore from "./diagnosticsStore.js"
import * as RetainedDocuments from "./retainedDocuments.js"
import type { Source, SourceLocation } from "./source.js"

/** The server a document is put on: what this module needs of a running server. */
export interface DocumentServer {
  readonly connection: JsonRpc.Connection
  readonly retained: RetainedDocuments.RetainedSet
  readonly diagnostics: DiagnosticsStore.DiagnosticsStore
  /** The server's textDocumentSync capability. */
  readonly textDocumentSync: unknown
  readonly isAlive: Effect.Effect<boolean>
  /** Gives the server up (it must not serve another query); called when its documents can no longer be trusted. */
  readonly retire: Effect.Effect<void>
}

/** What to put on the server. */
export interface DocumentRequest {
  readonly mode: "transient" | "retained"
  readonly workspace: Workspace
  readonly location: SourceLocation
  /** The file's text when the query has read it already; undefined when a retained document holds it unchanged. */
  readonly source: Source | undefined
  readonly read: Effect.Effect<Source, LspError.LspLocalError>
  readonly languageId: string
  readonly maxDocumentBytes: number
  readonly maxRetainedDocuments: number
  /**
   * Whether a failure the query's scope closes with leaves the server's documents moot (a dead wire):
   * nothing is sent to such a server.
   */
  readonly abandons: (error: unknown) => boolean
}

/** The version the server holds the document at: the retained version, or this query's open. */
export const versionOf = (server: DocumentServer, request: DocumentRequest): Effect.Effect<number> =>
  request.mode === "retained"
    ? Effect.map(Ref.get(server.retained), (set) => set.get(request.location.uri)?.version ?? 1)
    : Effect.sync(() => server.diagnostics.openVersion(request.location.uri))

/** The failure the scope closed with, if it was one that makes the server's documents moot. */
const abandoned = (request: DocumentRequest, exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) && Option.exists(Cause.failureOption(exit.cause), request.abandons)

const interrupted = (exit: Exit.Exit<unknown, unknown>) => Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)

/**
 * After the query: an interrupted request must be settled before the server serves anyone else, and a
 * transient document is closed. A server that cannot take the close is given up.
 */
const close = (server: DocumentServer, request: DocumentRequest, exit: Exit.Exit<unknown, unknown>) =>
  Effect.gen(function*() {
    if (abandoned(request, exit)) return
    if (interrupted(exit) && !(yield* server.connection.awaitCancelled)) return yield* server.retire
    if (request.mode === "retained" || !(yield* server.isAlive)) return
    const uri = request.location.uri
    yield* server.connection.post("textDocument/didClose", { textDocument: { uri } }).pipe(
      Effect.zipRight(Effect.sync(() => server.diagnostics.markClosed(uri))),
      Effect.catchAll(() => server.retire)
    )
  })

/**
 * Registers the close on the query's scope itself (`Effect.addFinalizer` would also diff and restore the
 * fiber's refs around it, a measurable share of a warm query).
 */
const closeWithScope = (server: DocumentServer, request: DocumentRequest, scope: Scope.Scope) =>
  Scope.addFinalizerExit(scope, (exit) => close(server, request, exit))

/** Sends the transient open; the open and the close it calls for are registered in one step. */
const openTransient = (server: DocumentServer, request: DocumentRequest, text: string, scope: Scope.Scope) =>
  // The request queued next goes out in the same write, and nothing waits on a server not reading.
  Effect.uninterruptible(Effect.suspend(() => {
    const uri = request.location.uri
    // Each open its own version, so a diagnostics set for an earlier open is never taken for this one.
    const version = server.diagnostics.nextOpenVersion(uri)
    return server.connection.post("textDocument/didOpen", {
      textDocument: { uri, languageId: request.languageId, version, text }
    }).pipe(
      Effect.zipRight(Effect.sync(() => server.diagnostics.markSent(uri))),
      Effect.zipRight(closeWithScope(server, request, scope))
    )
  }))

/**
 * Makes the query's file current on `server` for the rest of `scope`, the query's (see the module comment).
 * `beforeOpen` runs just before a transient open (a wait for the server's diagnostics of an earlier open
 * to settle, say).
 */
export const put = (
  services: FileServices,
  server: DocumentServer,
  request: DocumentRequest,
  scope: Scope.Scope,
  beforeOpen: Effect.Effect<void> = Effect.void
): Effect.Effect<void, LspError.LspLocalError> =>
  Effect.gen(function*() {
    if (request.mode === "retained") {
      // Registered first: an interruption during the refresh below still waits for the cancellation.
      yield* closeWithScope(server, request, scope)
      return yield* RetainedDocuments.prepare(services, server.retained, server.connection, {
        workspace: request.workspace,
        location: request.location,
        source: request.source,
        read: request.read,
        languageId: request.languageId,
        maxDocumentBytes: request.maxDocumentBytes,
        maxDocuments: request.maxRetainedDocuments,
        sync: server.textDocumentSync,
        onSent: server.diagnostics.markSent
      })
    }
    const text = (request.source ?? (yield* request.read)).text
    yield* beforeOpen
    yield* openTransient(server, request, text, scope)
  })
