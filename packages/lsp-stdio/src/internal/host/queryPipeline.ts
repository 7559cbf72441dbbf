/**
 * One query is a scope. Its steps (the module of each in brackets):
 *
 * 1. resolve the workspace (files/workspace) and name the server: provider + workspace (servers/serverKey);
 *    for a workspace-wide symbol search, find a file of this server's to open (files/workspaceFiles);
 * 2. hold that server's FIFO permit, for the rest of the query's scope (servers/permits);
 * 3. locate the source, and read it unless a live server holds it unchanged (documents/source,
 *    documents/retainedDocuments); check the position against its lines, or resolve `symbol` near it
 *    (LspIdentifiers, in the seam);
 * 4. lease the server into the query's scope, starting it if needed (servers/servers, servers/pool);
 * 5. check the server supports the operation (wire/capabilities);
 * 6. put the document on the server as a resource of the scope: kept in step with the disk, or opened for
 *    this query and closed with it (documents/documents);
 * 7. wait, within the caller's deadline, for a fresh server to settle (servers/readiness);
 * 8. send the request(s) and normalise the answer (answers/requests, answers/normalize*), then say what was
 *    resolved and, for an empty answer off any identifier, which identifiers the line has (LspIdentifiers);
 *    a cross-file question about a file no project marker governs first opens the workspace's files (within
 *    `looseFiles`), else its answer is flagged (host/projectModel);
 * 9. close the scope: the document is closed, the lease ends, the permit passes on — in that order, however
 *    the query ended.
 *
 * A transport failure in steps 4–8 closes that attempt's own scope and is retried once on a fresh server
 * (servers/failures).
 */
import { type LspError, LspError as Errors, LspExtension, LspIdentifiers, LspQuery, LspResult } from "@lsp-seam/lsp"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Diagnostics from "../answers/diagnostics.js"
import * as Requests from "../answers/requests.js"
import * as Documents from "../documents/documents.js"
import * as RetainedDocuments from "../documents/retainedDocuments.js"
import { linesOf, locateSourceWith, readLocatedWith, type Source, type SourceLocation } from "../documents/source.js"
import type { FileServices } from "../files/fileAccess.js"
import { isInsideUri, resolveWorkspaceWith } from "../files/workspace.js"
import * as WorkspaceFiles from "../files/workspaceFiles.js"
import { isTransportFailure } from "../servers/failures.js"
import type * as Permits from "../servers/permits.js"
import * as Readiness from "../servers/readiness.js"
import * as ServerInstance from "../servers/serverInstance.js"
import * as ServerKey from "../servers/serverKey.js"
import type { Servers } from "../servers/servers.js"
import { advertised, capabilityOf, isCrossFile, opensTransiently } from "../wire/capabilities.js"
import * as ProjectModel from "./projectModel.js"

export interface Dependencies {
  readonly services: FileServices
  readonly servers: Servers
  readonly permits: Permits.Permits
  /** Where the scopes of interrupted queries are closed, so the interrupted caller is released at once. */
  readonly owner: Scope.Scope
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
  /** A running server as the documents module sees it: giving it up evicts it from the host. */
  const documentServer = (
    key: ServerKey.ServerKey,
    instance: ServerInstance.ServerInstance
  ): Documents.DocumentServer => ({
    connection: instance.connection,
    retained: instance.retained,
    diagnostics: instance.diagnostics,
    textDocumentSync: instance.capabilities.textDocumentSync,
    isAlive: instance.isAlive,
    retire: servers.evict(key, instance)
  })

  /** Step 6's request: the located file, read only if no retained document holds it unchanged. */
  const documentRequest = (
    spec: ServerInstance.ServerSpec,
    key: ServerKey.ServerKey,
    query: LspQuery.LspProviderQuery,
    location: SourceLocation,
    source: Source | undefined
  ): Documents.DocumentRequest => ({
    mode: spec.config.documentSync,
    workspace: key.workspace,
    location,
    source,
    read: readLocatedWith(services, location, spec.config.maxDocumentBytes),
    languageId: query.languageId,
    maxDocumentBytes: spec.config.maxDocumentBytes,
    maxRetainedDocuments: spec.config.maxRetainedDocuments,
    // After a transport failure the server is evicted: its documents are moot.
    abandons: (error) => Errors.isLspError(error) && isTransportFailure(error)
  })

  /** Steps 7–8 on a leased server whose document is current: wait for readiness, ask, flag what is partial. */
  const ask = (
    spec: ServerInstance.ServerSpec,
    key: ServerKey.ServerKey,
    instance: ServerInstance.ServerInstance,
    query: LspQuery.LspProviderQuery,
    document: { readonly request: Documents.DocumentRequest; readonly startedAt: number },
    partial: LspResult.IncompleteReason | undefined
  ) =>
    Effect.gen(function*() {
      const uri = document.request.location.uri
      const settled = instance.readiness.isSettled() ||
        (yield* instance.readiness.awaitSettled(yield* Readiness.deadlineFor(spec.config.readiness)))
      const result = query.operation === "diagnostics"
        ? yield* Diagnostics.collect(instance, {
          uri,
          version: yield* Documents.versionOf(documentServer(key, instance), document.request),
          sentAt: instance.diagnostics.sentAt(uri),
          startedAt: document.startedAt
        }, {
          threshold: query.severity ?? "warning",
          wait: spec.config.diagnosticsWait,
          untilMillis: yield* Readiness.deadlineWithin(spec.config.diagnosticsWait.maxWaitMs),
          inWorkspace: (candidate) => isInsideUri(services.path, key.workspace, candidate)
        })
        : yield* Requests.ask(instance, query, uri).pipe(
          Effect.catchIf(isMethodNotFound, (error) =>
            Errors.unsupportedOperation(
              `The "${spec.providerId}" language server does not support ${query.operation}: it advertises ` +
                `${capabilityOf(query.operation)} but answered "${error.detail?.method}" with "method not found".`,
              { providerId: spec.providerId, operation: query.operation }
            ))
        )
      const flagged = partial === undefined ? result : LspResult.markIncomplete(result, partial)
      return settled ? flagged : LspResult.markIncomplete(flagged)
    })

  /**
   * Steps 4–8, once, with the lease and the document as resources of the caller's scope. A transport failure
   * quotes the server's status and evicts it.
   */
  const attempt = (
    spec: ServerInstance.ServerSpec,
    key: ServerKey.ServerKey,
    query: LspQuery.LspProviderQuery,
    location: SourceLocation,
    source: Source | undefined,
    needsProject: boolean
  ) =>
    Effect.gen(function*() {
      const instance = yield* servers.lease(spec, key)
      return yield* Effect.gen(function*() {
        yield* checkSupport(spec, instance, query.operation)
        const startedAt = instance.diagnostics.sequence()
        const request = documentRequest(spec, key, query, location, source)
        // Before a transient reopen for diagnostics, let the server's sets for the last open settle.
        const beforeOpen = query.operation === "diagnostics"
          ? Effect.flatMap(
            Readiness.deadlineWithin(spec.config.diagnosticsWait.maxWaitMs),
            (until) => Diagnostics.quietBeforeReopen(instance, location.uri, spec.config.diagnosticsWait.quietMs, until)
          )
          : Effect.void
        yield* Documents.put(services, documentServer(key, instance), request, beforeOpen)
        const partial = needsProject
          ? yield* ProjectModel.lend(services, spec, instance, key.workspace, location)
          : undefined
        return yield* ask(spec, key, instance, query, { request, startedAt }, partial)
      }).pipe(
        Effect.catchIf(isTransportFailure, (error) =>
          Effect.gen(function*() {
            const quoted = yield* servers.quoteStatus(key, error)
            yield* servers.evict(key, instance)
            return yield* quoted
          }))
      )
    })

  /**
   * `attempt` in a scope of its own under the query's; a transport failure closes that scope (ending the
   * failed attempt's lease) and the question is asked once more, on a fresh server, in a new one.
   */
  const attemptWithRetry = (
    ...args: Parameters<typeof attempt>
  ): Effect.Effect<LspResult.LspQueryResult, LspError.LspError, Scope.Scope> =>
    Effect.gen(function*() {
      const query = yield* Effect.scope
      const first = yield* Scope.fork(query, ExecutionStrategy.sequential)
      return yield* Effect.catchIf(Scope.extend(attempt(...args), first), isTransportFailure, (error) =>
        Effect.gen(function*() {
          yield* Scope.close(first, Exit.fail(error))
          const second = yield* Scope.fork(query, ExecutionStrategy.sequential)
          return yield* Scope.extend(attempt(...args), second)
        }))
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

  /**
   * Steps 2–8 in the query's scope: the permit, the lease and the document are its resources, given back
   * in reverse order (document, lease, permit) when it closes.
   */
  const answer = (
    spec: ServerInstance.ServerSpec,
    key: ServerKey.ServerKey,
    query: LspQuery.LspProviderQuery,
    file: { readonly filePath: string; readonly languageId: string }
  ) =>
    Effect.gen(function*() {
      yield* permits.hold(key)
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
      const result = yield* attemptWithRetry(spec, key, at, location, source, needsProject)
      return located === undefined ? result : LspIdentifiers.annotate(result, lines, located)
    })

  /**
   * Runs `use` in a new scope, the query's, and closes it when `use` ends. After an interruption the scope
   * is closed on a fiber of the host, so the interrupted caller is released at once while the permit passes
   * on only after the cleanup.
   */
  const inQueryScope = <A, E>(use: Effect.Effect<A, E, Scope.Scope>): Effect.Effect<A, E> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const exit = yield* Effect.exit(restore(Scope.extend(use, scope)))
        if (Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)) {
          yield* Effect.forkIn(Effect.interruptible(Scope.close(scope, exit)), owner)
        } else {
          yield* Scope.close(scope, exit)
        }
        return yield* exit
      })
    )

  /** The whole query for the provider of `spec`. */
  const run = (
    spec: ServerInstance.ServerSpec,
    query: LspQuery.LspProviderQuery
  ): Effect.Effect<LspResult.LspQueryResult, LspError.LspError> =>
    Effect.gen(function*() {
      const key = ServerKey.make(spec.providerId, yield* resolveWorkspaceWith(services, query.workspaceRoot))
      const file = yield* fileOf(spec, key, query)
      if (file === undefined) return LspResult.symbols([], key.workspace.uri)
      return yield* inQueryScope(answer(spec, key, query, file))
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
