/**
 * One query, as a list of named steps (the module of each in brackets):
 *
 * 1. resolve the workspace (workspace.ts) and name the server: provider + workspace (serverKey.ts); for a
 *    workspace-wide symbol search, find a file of this server's to open (workspaceFiles.ts);
 * 2. take that server's FIFO permit (permits.ts);
 * 3. locate the source, and read it unless a live server holds it unchanged (source.ts, retainedDocuments.ts);
 *    check the position against its lines, or resolve `symbol` near it (LspIdentifiers, in the seam);
 * 4. lease the server, starting it if needed (servers.ts, pool.ts, serverInstance.ts);
 * 5. check the server supports the operation (capabilities.ts);
 * 6. make the document current: keep it in step with the disk, or open it for this query
 *    (retainedDocuments.ts);
 * 7. wait, within the caller's deadline, for a fresh server to settle (readiness.ts);
 * 8. send the request(s) and normalise the answer (requests.ts, normalize*.ts), then say what was resolved
 *    and, for an empty answer off any identifier, which identifiers the line has (LspIdentifiers); a
 *    cross-file question about a file no project marker governs first opens the workspace's files (within
 *    `looseFiles`), else its answer is flagged (projectModel.ts);
 * 9. clean up: close a transiently opened document, end the lease, pass the permit on.
 *
 * A transport failure in steps 4–8 is retried once on a fresh server (failures.ts).
 */
import { type LspError, LspError as Errors, LspExtension, LspIdentifiers, LspQuery, LspResult } from "@lsp-seam/lsp"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import { advertised, capabilityOf, isCrossFile, opensTransiently } from "./capabilities.js"
import * as Diagnostics from "./diagnostics.js"
import { isTransportFailure } from "./failures.js"
import type { FileServices } from "./fileAccess.js"
import type * as Permits from "./permits.js"
import type * as Pool from "./pool.js"
import * as ProjectModel from "./projectModel.js"
import * as Readiness from "./readiness.js"
import * as Requests from "./requests.js"
import * as RetainedDocuments from "./retainedDocuments.js"
import * as ServerInstance from "./serverInstance.js"
import * as ServerKey from "./serverKey.js"
import type { Servers } from "./servers.js"
import { linesOf, locateSourceWith, readLocatedWith, type Source, type SourceLocation } from "./source.js"
import { isInsideUri, resolveWorkspaceWith, type Workspace } from "./workspace.js"
import * as WorkspaceFiles from "./workspaceFiles.js"

export interface Dependencies {
  readonly services: FileServices
  readonly servers: Servers
  readonly permits: Permits.Permits
  /** Where cleanups of interrupted queries run, so the interrupted caller is released at once. */
  readonly owner: Scope.Scope
}

interface OpenDocument {
  readonly instance: ServerInstance.ServerInstance
  /** The transiently opened document to close; null when documents are retained. */
  readonly uri: string | null
}

/**
 * What one query holds, for its cleanup: the server lease and the document it opened. Plain fields, set in
 * the same synchronous step as what they record, so an interruption cannot fall in between.
 */
interface Held {
  release: Pool.Release | undefined
  document: OpenDocument | undefined
}

const releaseLease = (held: Held) => {
  const release = held.release
  held.release = undefined
  release?.()
}

/** A server that advertised a capability yet does not know its method (clangd 14's outgoing calls, say). */
const isMethodNotFound = (error: LspError.LspError): boolean =>
  error.code === "LSP_SERVER_ERROR" && error.detail?.code === -32601

/** Step 5: the operation's capability, and documents that can be opened on request. */
const checkSupport = (
  spec: ServerInstance.ServerSpec,
  instance: ServerInstance.ServerInstance,
  operation: LspQuery.LspOperation
): Effect.Effect<void, LspError.LspError> => {
  const capability = capabilityOf(operation)
  // Diagnostics are pulled where the server offers them, and otherwise waited for as it pushes them.
  if (operation !== "diagnostics" && !advertised(instance.capabilities[capability])) {
    return Errors.unsupportedOperation(
      `The "${spec.providerId}" language server does not support ${operation} (it does not advertise ` +
        `${capability}).`,
      { providerId: spec.providerId, operation }
    )
  }
  if (!opensTransiently(instance.capabilities.textDocumentSync)) {
    return Errors.unsupportedOperation(
      `The "${spec.providerId}" language server cannot open documents on request (its textDocumentSync ` +
        "does not allow open/close notifications).",
      { providerId: spec.providerId, textDocumentSync: instance.capabilities.textDocumentSync ?? null }
    )
  }
  return Effect.void
}

export const make = ({ owner, permits, servers, services }: Dependencies) => {
  /** Step 6: the document made current on the server, recorded in `held` for the cleanup. */
  const syncDocument = (
    spec: ServerInstance.ServerSpec,
    instance: ServerInstance.ServerInstance,
    query: LspQuery.LspProviderQuery,
    workspace: Workspace,
    location: SourceLocation,
    source: Source | undefined,
    held: Held
  ) =>
    Effect.gen(function*() {
      const read = readLocatedWith(services, location, spec.config.maxDocumentBytes)
      if (spec.config.documentSync === "retained") {
        // The documents stay open; cleanup only has to see the request settle.
        held.document = { instance, uri: null }
        return yield* RetainedDocuments.prepare(services, instance.retained, instance.connection, {
          workspace,
          location,
          source,
          read,
          languageId: query.languageId,
          maxDocumentBytes: spec.config.maxDocumentBytes,
          maxDocuments: spec.config.maxRetainedDocuments,
          sync: instance.capabilities.textDocumentSync,
          onSent: instance.diagnostics.markSent
        })
      }
      const text = (source ?? (yield* read)).text
      if (query.operation === "diagnostics") {
        yield* Diagnostics.quietBeforeReopen(
          instance,
          location.uri,
          spec.config.diagnosticsWait.quietMs,
          yield* Readiness.deadlineWithin(spec.config.diagnosticsWait.maxWaitMs)
        )
      }
      // Opening and remembering that we opened happen together, so cleanup knows whether to close. The
      // request queued next goes out in the same write, and nothing waits on a server not reading.
      yield* Effect.uninterruptible(Effect.suspend(() => {
        // Each open its own version, so a diagnostics set for an earlier open is never taken for this one.
        const version = instance.diagnostics.nextOpenVersion(location.uri)
        return instance.connection.post("textDocument/didOpen", {
          textDocument: { uri: location.uri, languageId: query.languageId, version, text }
        }).pipe(Effect.zipRight(Effect.sync(() => {
          held.document = { instance, uri: location.uri }
          instance.diagnostics.markSent(location.uri)
        })))
      }))
    })

  /** Steps 4–8 on the pooled server, once. `source` is undefined when a live server holds it unchanged. */
  const attempt = (
    spec: ServerInstance.ServerSpec,
    key: ServerKey.ServerKey,
    query: LspQuery.LspProviderQuery,
    location: SourceLocation,
    source: Source | undefined,
    held: Held,
    needsProject: boolean
  ) =>
    Effect.gen(function*() {
      const instance = yield* servers.lease(spec, key, (release) => {
        held.release = release
      })
      return yield* Effect.gen(function*() {
        yield* checkSupport(spec, instance, query.operation)
        const startedAt = instance.diagnostics.sequence()
        yield* syncDocument(spec, instance, query, key.workspace, location, source, held)
        const partial = needsProject
          ? yield* ProjectModel.lend(services, spec, instance, key.workspace, location)
          : undefined
        const settled = instance.readiness.isSettled() ||
          (yield* instance.readiness.awaitSettled(yield* Readiness.deadlineFor(spec.config.readiness)))
        const result = query.operation === "diagnostics"
          ? yield* Diagnostics.collect(instance, {
            uri: location.uri,
            version: spec.config.documentSync === "retained"
              ? (yield* Ref.get(instance.retained)).get(location.uri)?.version ?? 1
              : instance.diagnostics.openVersion(location.uri),
            sentAt: instance.diagnostics.sentAt(location.uri),
            startedAt
          }, {
            threshold: query.severity ?? "warning",
            wait: spec.config.diagnosticsWait,
            untilMillis: yield* Readiness.deadlineWithin(spec.config.diagnosticsWait.maxWaitMs),
            inWorkspace: (uri) => isInsideUri(services.path, key.workspace, uri)
          })
          : yield* Requests.ask(instance, query, location.uri).pipe(
            Effect.catchIf(isMethodNotFound, (error) =>
              Errors.unsupportedOperation(
                `The "${spec.providerId}" language server does not support ${query.operation}: it advertises ` +
                  `${capabilityOf(query.operation)} but answered "${error.detail?.method}" with "method not found".`,
                { providerId: spec.providerId, operation: query.operation }
              ))
          )
        const flagged = partial === undefined ? result : LspResult.markIncomplete(result, partial)
        return settled ? flagged : LspResult.markIncomplete(flagged)
      }).pipe(
        Effect.catchIf(isTransportFailure, (error) =>
          Effect.gen(function*() {
            const quoted = yield* servers.quoteStatus(key, error)
            yield* servers.evict(key, instance)
            held.document = undefined
            return yield* quoted
          }))
      )
    })

  /** Step 9's first half: closes a transiently opened document; after an interruption, lets the cancel settle. */
  const closeDocument = (key: ServerKey.ServerKey, held: Held, interrupted: boolean) =>
    Effect.gen(function*() {
      const document = held.document
      if (document === undefined) return
      const { instance, uri } = document
      if (interrupted && !(yield* instance.connection.awaitCancelled)) {
        // The server ignored the cancellation: it must not serve the next query with a stale document.
        return yield* servers.evict(key, instance)
      }
      if (uri === null || !(yield* instance.isAlive)) return
      yield* instance.connection.post("textDocument/didClose", { textDocument: { uri } }).pipe(
        Effect.zipRight(Effect.sync(() => instance.diagnostics.markClosed(uri))),
        Effect.catchAll(() => servers.evict(key, instance))
      )
    })

  /**
   * Step 3: the source located, and read unless a live server holds it unchanged (retained documents); its
   * lines either way, for the position checks.
   */
  const locateAndRead = (spec: ServerInstance.ServerSpec, key: ServerKey.ServerKey, filePath: string) =>
    Effect.gen(function*() {
      const maxBytes = spec.config.maxDocumentBytes
      const location = yield* locateSourceWith(services, key.workspace, filePath, maxBytes)
      const running = spec.config.documentSync === "retained" ? servers.peek(key) : undefined
      // Should that server die before the lease, the text is read after its successor has started.
      const held = running !== undefined && (yield* running.isAlive)
        ? yield* RetainedDocuments.heldLines(running.retained, location)
        : undefined
      if (held !== undefined && (yield* services.files.readable(location.path))) {
        return { location, source: undefined, lines: held }
      }
      const source = yield* readLocatedWith(services, location, maxBytes)
      return { location, source, lines: linesOf(source) }
    })

  /**
   * The file a query is about: its own, or for a workspaceSymbol search without one, the first file of the
   * workspace this server handles (opening one gives servers that need a project their project). None: the
   * server has nothing to search here and is not started.
   */
  const fileOf = (spec: ServerInstance.ServerSpec, key: ServerKey.ServerKey, query: LspQuery.LspProviderQuery) =>
    Effect.gen(function*() {
      if (query.filePath !== undefined) {
        return { filePath: query.filePath, languageId: query.languageId }
      }
      const languages = ServerInstance.languagesOf(spec)
      const search = yield* WorkspaceFiles.findFiles(services.files, services.path, key.workspace.path, [
        { id: spec.providerId, extensions: [...languages.keys()], maxBytes: spec.config.maxDocumentBytes }
      ])
      const found = search.found.get(spec.providerId)
      if (found === undefined) return undefined
      return { filePath: found, languageId: languages.get(LspExtension.finalExtension(found)) ?? "" }
    })

  /** The whole query for the provider of `spec`. */
  const run = (
    spec: ServerInstance.ServerSpec,
    query: LspQuery.LspProviderQuery
  ): Effect.Effect<LspResult.LspQueryResult, LspError.LspError> =>
    Effect.gen(function*() {
      const key = ServerKey.make(spec.providerId, yield* resolveWorkspaceWith(services, query.workspaceRoot))
      const file = yield* fileOf(spec, key, query)
      if (file === undefined) return LspResult.symbols([], key.workspace.uri)
      return yield* Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          // Inside this query's uninterruptible region: holding the permit and reaching the cleanup below
          // cannot be split by an interruption.
          const releasePermit = yield* permits.acquireWith(key, restore)
          const held: Held = { release: undefined, document: undefined }
          const exit = yield* Effect.exit(restore(Effect.gen(function*() {
            // Read when this query's turn comes, and before any server is started.
            const { lines, location, source } = yield* locateAndRead(spec, key, file.filePath)
            // An impossible position or a symbol not there is an answer for the caller, not for a server.
            const located = LspQuery.isPositionRequest(query)
              ? yield* LspIdentifiers.locate(lines, query.position, query.symbol)
              : undefined
            const at = located === undefined || !LspQuery.isPositionRequest(query)
              ? { ...query, languageId: file.languageId }
              : { ...query, position: located.position }
            const markers = spec.config.projectMarkers
            const needsProject = isCrossFile(query.operation) && markers.length > 0 &&
              !(yield* ProjectModel.isGoverned(services, key.workspace, location.path, markers))
            const once = attempt(spec, key, at, location, source, held, needsProject)
            // A retry leases afresh: the failed attempt's lease ends first.
            const result = yield* Effect.catchIf(
              once,
              isTransportFailure,
              () => Effect.zipRight(Effect.sync(() => releaseLease(held)), once)
            )
            return located === undefined ? result : LspIdentifiers.annotate(result, lines, located)
          })))
          const interrupted = Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)
          // The lease ends after the document is closed, so an idle timeout cannot race the close.
          const cleanup = closeDocument(key, held, interrupted).pipe(
            Effect.ensuring(Effect.zipRight(Effect.sync(() => releaseLease(held)), releasePermit))
          )
          // An interrupted caller is released at once; the permit passes on only after the cleanup.
          if (interrupted) yield* Effect.forkIn(Effect.interruptible(cleanup), owner)
          else yield* cleanup
          return yield* exit
        })
      )
    }).pipe(
      // One span per query, not per message: spans cost as much as the rest of a message's handling. No
      // stack capture, which would cost more still.
      Effect.withSpan("LspStdio.query", {
        attributes: { "lsp.provider": spec.providerId, "lsp.operation": query.operation },
        captureStackTrace: false
      })
    )

  return { run }
}
