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
 *    the query ended;
 * 10. with `includeBody`, give each location or symbol its declaration's text (host/bodies), asking the
 *    documentSymbol of each file it points into as a query of its own on the same server.
 *
 * A transport failure in steps 4–8 evicts the server and is retried once on a fresh one (servers/failures). A
 * server error its configuration's `workspaceErrors` recognise is told as the workspace's (host/workspaceErrors).
 *
 * The query's scope is passed to each step that acquires into it (`permits.hold(key, scope)`, `lease`,
 * `Documents.put`) rather than provided as the `Scope` service: providing a service is a `locally` on the
 * fiber's context, ~26 Effect operations per query, as many as the three finalizers together (measured in
 * docs/decisions.md, "Closing the gap: what was measured, and what changed").
 */
import { type LspError, LspExtension, LspIdentifiers, LspQuery, LspResult } from "@lsp-seam/lsp"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as RetainedDocuments from "../documents/retainedDocuments.js"
import { linesOf, locateSourceWith, readLocatedWith } from "../documents/source.js"
import type { FileServices } from "../files/fileAccess.js"
import { rootFor } from "../files/projectRoot.js"
import { resolveWorkspaceWith, type Workspace } from "../files/workspace.js"
import * as WorkspaceFiles from "../files/workspaceFiles.js"
import { isTransportFailure } from "../servers/failures.js"
import type * as Permits from "../servers/permits.js"
import * as ServerInstance from "../servers/serverInstance.js"
import * as ServerKey from "../servers/serverKey.js"
import type { Servers } from "../servers/servers.js"
import { isCrossFile } from "../wire/capabilities.js"
import { attempt, type Located, type Target } from "./attempt.js"
import * as Bodies from "./bodies.js"
import * as ProjectModel from "./projectModel.js"
import * as WorkspaceErrors from "./workspaceErrors.js"

export interface Dependencies {
  readonly services: FileServices
  readonly servers: Servers
  readonly permits: Permits.Permits
  /** Where the scopes of interrupted queries are closed, so the interrupted caller is released at once. */
  readonly owner: Scope.Scope
}

/**
 * `attempt`, and after a transport failure once more, on a fresh server. The failed attempt has evicted its
 * server, so its lease no longer holds a place in the pool and its document is not closed on a server that
 * is gone (see `documentServer`); both are released with the query's scope. (A child scope per attempt, to
 * end them before the retry, cost ~4 % of a warm query and changed nothing a caller can see.)
 */
const attemptWithRetry = (
  target: Target,
  query: LspQuery.LspProviderQuery,
  located: Located,
  scope: Scope.Scope
): Effect.Effect<LspResult.LspQueryResult, LspError.LspLocalError> =>
  Effect.catchIf(
    attempt(target, query, located, scope),
    isTransportFailure,
    () => attempt(target, query, located, scope)
  )

/**
 * Step 3: the source located, and read unless a live server holds it unchanged (retained documents); its
 * lines either way, for the position checks.
 */
const locateAndRead = ({ key, services, servers, spec }: Target, filePath: string) =>
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
const fileOf = (
  services: FileServices,
  spec: ServerInstance.ServerSpec,
  workspace: Workspace,
  query: LspQuery.LspProviderQuery
) =>
  query.filePath !== undefined
    ? Effect.succeed({ filePath: query.filePath, languageId: query.languageId })
    : searchFile(services, spec, workspace)

/** For a workspace search without a file: the first file of this server's that can be opened. */
const searchFile = (services: FileServices, spec: ServerInstance.ServerSpec, workspace: Workspace) =>
  Effect.gen(function*() {
    const languages = ServerInstance.languagesOf(spec)
    const maxBytes = spec.config.maxDocumentBytes
    // A file that cannot be opened (binary, not UTF-8, unreadable) is passed over, not the search failed.
    const readable = (relative: string) =>
      Effect.flatMap(
        locateSourceWith(services, workspace, relative, maxBytes),
        (location) => readLocatedWith(services, location, maxBytes)
      ).pipe(
        Effect.as(true),
        Effect.orElseSucceed(() => false)
      )
    const search = yield* WorkspaceFiles.findFiles(services.files, services.path, workspace.path, [
      { id: spec.providerId, extensions: [...languages.keys()], maxBytes, accepts: readable }
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
  target: Target,
  permits: Permits.Permits,
  query: LspQuery.LspProviderQuery,
  file: { readonly filePath: string; readonly languageId: string }
) =>
(scope: Scope.Scope) =>
  Effect.gen(function*() {
    const { key, services, spec } = target
    yield* permits.hold(key, scope)
    // Read when this query's turn comes, and before any server is started.
    const { lines, location, source } = yield* locateAndRead(target, file.filePath)
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
    const result = yield* attemptWithRetry(target, at, { location, source, needsProject }, scope)
    return located === undefined ? result : LspIdentifiers.annotate(result, lines, located)
  })

/**
 * Runs `use` in a new scope, the query's, and closes it when `use` ends. After an interruption the scope is
 * closed on a fiber of `owner`, so the interrupted caller is released at once while the permit passes on
 * only after the cleanup.
 */
const inQueryScope = <A, E>(
  owner: Scope.Scope,
  use: (scope: Scope.Scope) => Effect.Effect<A, E>
): Effect.Effect<A, E> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const exit = yield* Effect.exit(restore(use(scope)))
      if (Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)) {
        yield* Effect.forkIn(Effect.interruptible(Scope.close(scope, exit)), owner)
      } else {
        yield* Scope.close(scope, exit)
      }
      return yield* exit
    })
  )

/** The query pipeline of a host: `run` answers one query for the provider of `spec`. */
export const make = ({ owner, permits, servers, services }: Dependencies) => {
  // A body's declarations: the file's documentSymbol, asked as a query of its own on the query's server.
  const bodyContext = (target: Target, workspace: Workspace): Bodies.BodyContext => {
    const languages = ServerInstance.languagesOf(target.spec)
    return {
      services,
      workspace,
      maxDocumentBytes: target.spec.config.maxDocumentBytes,
      languageOf: (path) => languages.get(LspExtension.finalExtension(path)),
      documentSymbols: (filePath, languageId) =>
        inQueryScope(
          owner,
          answer(target, permits, {
            operation: "documentSymbol",
            filePath,
            workspaceRoot: workspace.path,
            languageId
          }, { filePath, languageId })
        )
    }
  }
  // Providers whose server, once started, turned out unable to search the workspace: skipped from then on.
  const cannotSearch = new Set<string>()
  const run = (
    spec: ServerInstance.ServerSpec,
    query: LspQuery.LspProviderQuery
  ): Effect.Effect<LspResult.LspQueryResult, LspError.LspLocalError> =>
    Effect.gen(function*() {
      const workspace = yield* resolveWorkspaceWith(services, query.workspaceRoot)
      // A workspace-wide search skips, unstarted and unblamed, a server that cannot search.
      const search = query.operation === "workspaceSymbol" && query.filePath === undefined
      const nothing = LspResult.symbols([], workspace.uri)
      if (search && (!spec.config.workspaceSymbols || cannotSearch.has(spec.providerId))) return nothing
      const file = yield* fileOf(services, spec, workspace, query)
      if (file === undefined) return nothing
      // The server is named by its root, so the permit is that server's: found before the query's turn.
      const root = yield* rootFor(services, workspace, file.filePath, spec.config.rootMarkers)
      const target: Target = {
        services,
        servers,
        spec,
        key: ServerKey.make(spec.providerId, workspace, root),
        permits,
        owner
      }
      const answered = inQueryScope(owner, answer(target, permits, query, file))
      const result = yield* !search ?
        answered :
        Effect.catchIf(answered, (error) => error.code === "LSP_UNSUPPORTED_OPERATION", () =>
          Effect.sync(() => {
            cannotSearch.add(spec.providerId)
            return nothing
          }))
      const bodies = query.operation !== "diagnostics" && query.operation !== "renamePreview" &&
        query.includeBody === true
      return bodies ? yield* Bodies.attach(bodyContext(target, workspace), query.operation, result) : result
    }).pipe(
      // Only servers with rules pay for reading their failures (the hot path stays as measured).
      (effect) =>
        spec.config.workspaceErrors.length === 0 ?
          effect :
          Effect.mapError(effect, (error) => WorkspaceErrors.explain(spec.config, error)),
      // One span per query, not per message: spans cost as much as the rest of a message's handling. No
      // stack capture, which would cost more still.
      Effect.withSpan("LspStdio.query", {
        attributes: { "lsp.provider": spec.providerId, "lsp.operation": query.operation },
        captureStackTrace: false
      })
    )
  return { run }
}
