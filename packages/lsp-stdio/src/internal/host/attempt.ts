/**
 * Steps 4–8 of a query (see `queryPipeline.ts`), once: lease the server, check it supports the operation,
 * put the document on it, wait for it to settle, ask, and flag what is partial. The lease and the document
 * are resources of the query's scope.
 */
import { LspDeadline, type LspError, LspError as Errors, LspExtension, type LspQuery, LspResult } from "@lsp-seam/lsp"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Diagnostics from "../answers/diagnostics.js"
import * as RenamePreview from "../answers/renamePreview.js"
import * as Requests from "../answers/requests.js"
import { MAX_TIMER_MS } from "../config/serverSettings.js"
import * as BatchedPins from "../documents/batchedPins.js"
import * as Documents from "../documents/documents.js"
import { locateSourceWith, readLocatedWith, type Source, type SourceLocation } from "../documents/source.js"
import type { FileServices } from "../files/fileAccess.js"
import { isTransportFailure, isUnknownMethod } from "../servers/failures.js"
import type * as Permits from "../servers/permits.js"
import * as Readiness from "../servers/readiness.js"
import * as ServerInstance from "../servers/serverInstance.js"
import type * as ServerKey from "../servers/serverKey.js"
import type { Servers } from "../servers/servers.js"
import { advertised, capabilityOf, isCrossFile, opensTransiently } from "../wire/capabilities.js"
import * as AnswerScope from "./answerScope.js"
import * as ProjectModel from "./projectModel.js"
import * as Projects from "./projects.js"

/** The method a "method not found" was about. */
const methodOf = (error: LspError.LspLocalError) => error.reason?._tag === "MethodNotFound" ? error.reason.method : "?"

/** The server a query is for, and what the host gives every step. */
export interface Target {
  readonly services: FileServices
  readonly servers: Servers
  readonly spec: ServerInstance.ServerSpec
  readonly key: ServerKey.ServerKey
  /** The servers' permits, and the host's scope: the background loader (`loadInBackground`) uses both. */
  readonly permits: Permits.Permits
  readonly owner: Scope.Scope
}

/**
 * How many projects' files are opened at a time. A query asked while projects load waits for at most one batch
 * of loads ahead of its own requests (see `documents/batchedPins`); measured in docs/decisions.md.
 */
const projectBatch = 4

/** What opening project files a batch at a time needs (the caller holds the server's permit). */
const pinning = (target: Target, instance: ServerInstance.ServerInstance): BatchedPins.Pinning => {
  const languages = ServerInstance.languagesOf(target.spec)
  return {
    services: target.services,
    set: instance.retained,
    connection: instance.connection,
    workspace: target.key.workspace,
    languageOf: (file) => languages.get(LspExtension.finalExtension(file)) ?? "",
    maxDocumentBytes: target.spec.config.maxDocumentBytes,
    onSent: instance.diagnostics.markSent,
    batchSize: projectBatch,
    fork: (effect) => Effect.asVoid(Effect.forkIn(effect, target.owner))
  }
}

/** Opens batch after batch, each once the previous one has loaded, until none of `paths` is loading. */
const loadAll = (target: Target, instance: ServerInstance.ServerInstance, paths: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const wanted = new Set(paths)
    while ([...BatchedPins.unloaded(instance.retained)].some((path) => wanted.has(path))) {
      const flight = yield* BatchedPins.next(pinning(target, instance))
      if (flight === undefined) return
      yield* Deferred.await(flight.done)
    }
  })

/**
 * What a query leaves loading is loaded between queries, on a fiber of the host's: it takes the server's permit
 * in its turn only to open the next batch, and waits for that batch to load without it, so a query waits for one
 * batch at most. It stops when nothing is left, or when the server is no longer the one pooled for its key.
 */
const loadInBackground = (target: Target, instance: ServerInstance.ServerInstance): Effect.Effect<void> =>
  Effect.gen(function*() {
    const claim = yield* BatchedPins.claimBackground(instance.retained)
    if (claim === undefined) return
    const release = BatchedPins.releaseBackground(instance.retained, claim)
    const turn = Effect.scoped(Effect.gen(function*() {
      yield* target.permits.hold(target.key, yield* Effect.scope)
      const current = target.servers.peek(target.key) === instance && (yield* instance.isAlive)
      const flight = current ? yield* BatchedPins.next(pinning(target, instance)) : undefined
      // Given back while the permit is held, so that a query queuing more after it starts a loader of its own.
      if (flight === undefined) yield* release
      return flight
    }))
    const loop: Effect.Effect<void, LspError.LspLocalError> = Effect.flatMap(
      turn,
      (flight) => flight === undefined ? Effect.void : Effect.zipRight(Deferred.await(flight.done), loop)
    )
    yield* Effect.forkIn(Effect.ensuring(Effect.ignore(loop), release), target.owner)
  })

/** The file the attempt is about, as step 3 left it. */
export interface Located {
  readonly location: SourceLocation
  /** Its text, or undefined when a retained document holds it unchanged. */
  readonly source: Source | undefined
  /** Whether a cross-file answer needs the workspace's files lent to the server (no project marker). */
  readonly needsProject: boolean
}

/** Step 5: the operation's capability, and documents that can be opened on request. */
const checkSupport = (
  spec: ServerInstance.ServerSpec,
  instance: ServerInstance.ServerInstance,
  operation: LspQuery.LspProviderOperation
): Effect.Effect<void, LspError.LspLocalError> => {
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

/**
 * A running server as the documents module sees it: alive only while it is still the one pooled for its
 * key (an evicted server is being torn down: nothing more is sent to it); giving it up evicts it.
 */
const documentServer = (target: Target, instance: ServerInstance.ServerInstance): Documents.DocumentServer => ({
  connection: instance.connection,
  retained: instance.retained,
  diagnostics: instance.diagnostics,
  textDocumentSync: instance.capabilities.textDocumentSync,
  isAlive: Effect.map(instance.isAlive, (alive) => alive && target.servers.peek(target.key) === instance),
  retire: target.servers.evict(target.key, instance)
})

/** Step 6's request: the located file, read only if no retained document holds it unchanged. */
const documentRequest = (
  { key, services, spec }: Target,
  query: LspQuery.LspProviderQuery,
  { location, source }: Located
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
  abandons: (error) => Errors.isLspLocalError(error) && isTransportFailure(error)
})

/** Another file of the workspace put on the server as a document of the query (asked from another project). */
const putOther = (
  target: Target,
  instance: ServerInstance.ServerInstance,
  query: LspQuery.LspProviderQuery,
  filePath: string,
  scope: Scope.Scope
) =>
  Effect.gen(function*() {
    const { key, services, spec } = target
    const location = yield* locateSourceWith(services, key.workspace, filePath, spec.config.maxDocumentBytes)
    const languageId = ServerInstance.languagesOf(spec).get(LspExtension.finalExtension(filePath)) ?? query.languageId
    const request = documentRequest(target, { ...query, languageId }, {
      location,
      source: undefined,
      needsProject: false
    })
    yield* Documents.put(services, documentServer(target, instance), request, scope)
    return location
  })

/** Before a transient reopen for diagnostics, the server's sets for the last open are let settle. */
const beforeOpen = (
  { spec }: Target,
  instance: ServerInstance.ServerInstance,
  query: LspQuery.LspProviderQuery,
  uri: string
): Effect.Effect<void> =>
  query.operation !== "diagnostics" ? Effect.void : Effect.flatMap(
    Readiness.deadlineWithin(spec.config.diagnosticsWait.maxWaitMs),
    (until) =>
      Diagnostics.quietBeforeReopen(instance, { uri, languageId: query.languageId }, {
        quietMs: spec.config.diagnosticsWait.quietMs,
        pull: spec.config.diagnosticsPull,
        untilMillis: until
      })
  )

/** Step 8's request(s): the diagnostics collected, or the operation asked and its answer normalised. */
const request = (
  target: Target,
  instance: ServerInstance.ServerInstance,
  query: LspQuery.LspProviderQuery,
  document: { readonly request: Documents.DocumentRequest; readonly startedAt: number }
) =>
  Effect.gen(function*() {
    const { key, services, spec } = target
    const uri = document.request.location.uri
    if (query.operation === "diagnostics") {
      return yield* Diagnostics.collect(instance, {
        uri,
        languageId: query.languageId,
        version: yield* Documents.versionOf(documentServer(target, instance), document.request),
        sentAt: instance.diagnostics.sentAt(uri),
        startedAt: document.startedAt
      }, {
        threshold: query.severity ?? "warning",
        wait: spec.config.diagnosticsWait,
        pull: spec.config.diagnosticsPull,
        untilMillis: yield* Readiness.deadlineWithin(spec.config.diagnosticsWait.maxWaitMs),
        workspaceUri: key.workspace.uri
      })
    }
    const asked = query.operation === "renamePreview"
      ? RenamePreview.preview(instance, spec.providerId, { uri, position: query.position, newName: query.newName }, {
        services,
        workspace: key.workspace,
        maxDocumentBytes: spec.config.maxDocumentBytes
      })
      : Requests.ask(instance, query, uri, key.workspace.uri)
    return yield* asked.pipe(
      Effect.catchIf(isUnknownMethod, (error) =>
        Errors.unsupportedOperation(
          `The "${spec.providerId}" language server does not support ${query.operation}: it advertises ` +
            `${capabilityOf(query.operation)} but answered "${methodOf(error)}" with "method not found".`,
          { providerId: spec.providerId, operation: query.operation }
        ))
    )
  })

/**
 * Whether the server's startup work begins only now, with this file open (`openStartsProgress`: clangd indexes
 * its compilation database once a file is open, and reports it as progress), so that silence is no sign of
 * readiness. Only a file a project marker governs starts such work.
 */
const expectsProgress = (target: Target, located: Located): Effect.Effect<boolean> => {
  const { key, services, spec } = target
  const markers = spec.config.projectMarkers
  return spec.config.readiness.openStartsProgress && markers.length > 0
    ? ProjectModel.isGoverned(services, key.workspace, located.location.path, markers)
    : Effect.succeed(false)
}

/** Steps 5–8 on a leased server. */
const onServer = (
  target: Target,
  instance: ServerInstance.ServerInstance,
  query: LspQuery.LspProviderQuery,
  located: Located,
  scope: Scope.Scope
) =>
  Effect.gen(function*() {
    const { key, services, spec } = target
    yield* checkSupport(spec, instance, query.operation)
    const startedAt = instance.diagnostics.sequence()
    const document = documentRequest(target, query, located)
    yield* Documents.put(
      services,
      documentServer(target, instance),
      document,
      scope,
      beforeOpen(target, instance, query, located.location.uri)
    )
    const partial = located.needsProject
      ? yield* ProjectModel.lend(services, spec, instance, key.workspace, located.location)
      : undefined
    // The files the server's configuration leaves out are opened before it settles, so their loading is waited for.
    const searched = spec.config.excludedFiles !== null && AnswerScope.isScoped(query.operation)
      ? yield* AnswerScope.open(services, spec, instance, key.root, located.location.path)
      : undefined
    // The workspace's other projects are loaded before the server settles, so their loading is waited for too.
    const projects = spec.config.projects !== null
    // The projects the server does not hold yet are loaded a batch at a time. With a caller's deadline, a
    // cross-project question answers first from the projects the server holds, then has the others loaded: at the
    // deadline the first answer is given, flagged, and the others go on loading.
    const loading = projects && isCrossFile(query.operation)
      ? yield* Projects.load(services, spec, instance, key.workspace, located.location)
      : undefined
    const early = AnswerScope.isScoped(query.operation) && Option.isSome(yield* FiberRef.get(LspDeadline.current))
    const unsearched = loading?.partial
    const settle = Effect.flatMap(
      Effect.zip(Readiness.deadlineFor(spec.config.readiness), expectsProgress(target, located)),
      ([until, progress]) => instance.readiness.awaitSettled(until, progress)
    )
    const whole = Effect.gen(function*() {
      const settled = instance.readiness.isSettled() || (yield* settle)
      const asked = yield* request(target, instance, query, { request: document, startedAt })
      const result = !projects ? asked : yield* Projects.acrossProjects(
        {
          services,
          spec,
          instance,
          workspace: key.workspace,
          open: (filePath) => putOther(target, instance, query, filePath, scope)
        },
        query,
        located.location,
        asked
      )
      const inProjects = projects && AnswerScope.isScoped(query.operation)
        ? yield* Projects.confine(services, instance, result)
        : result
      return { settled, inProjects }
    })
    const deferred = loading?.deferred
    // What this query leaves loading goes on loading after it, whatever ends it.
    if (deferred !== undefined) yield* loadInBackground(target, instance)
    const { inProjects, settled } = deferred === undefined
      ? yield* whole
      : !early
      ? yield* Effect.zipRight(loadAll(target, instance, deferred.paths), whole)
      : yield* Effect.gen(function*() {
        const settled = instance.readiness.isSettled() || (yield* settle)
        const first = yield* Effect.flatMap(
          request(target, instance, query, { request: document, startedAt }),
          (asked) => Projects.confineTo(services, deferred.early, asked)
        )
        const until = yield* Readiness.deadlineWithin(MAX_TIMER_MS)
        const left = until - (yield* Clock.currentTimeMillis)
        const finished = yield* Effect.timeoutOption(
          Effect.zipRight(loadAll(target, instance, deferred.paths), whole),
          Duration.millis(Math.max(0, left))
        )
        return Option.getOrElse(finished, () => ({
          settled,
          inProjects: LspResult.markIncomplete(first, Projects.deadline(spec.providerId, deferred.projects))
        }))
      })
    const withProjects = unsearched === undefined ? inProjects : Projects.flag(inProjects, unsearched)
    const flagged = partial === undefined ? withProjects : LspResult.markIncomplete(withProjects, partial)
    const renamed = searched === undefined || query.operation !== "renamePreview" || flagged.kind !== "edits"
      ? flagged
      : yield* AnswerScope.completeRename(
        {
          services,
          instance,
          workspace: key.workspace,
          maxDocumentBytes: spec.config.maxDocumentBytes
        },
        query,
        located.location.uri,
        searched,
        flagged
      )
    const confined = searched === undefined ? renamed : yield* AnswerScope.confine(
      services.path,
      searched,
      renamed,
      located.location.path
    )
    return settled ? confined : LspResult.markIncomplete(confined)
  })

/**
 * Steps 4–8, once, with the lease and the document as resources of `scope`, the query's. A transport failure
 * quotes the server's status and evicts it.
 */
export const attempt = (
  target: Target,
  query: LspQuery.LspProviderQuery,
  located: Located,
  scope: Scope.Scope
): Effect.Effect<LspResult.LspQueryResult, LspError.LspLocalError> =>
  Effect.gen(function*() {
    const { key, servers, spec } = target
    const instance = yield* servers.lease(spec, key, scope)
    return yield* onServer(target, instance, query, located, scope).pipe(
      Effect.catchIf(isTransportFailure, (error) =>
        Effect.gen(function*() {
          const quoted = yield* servers.quoteStatus(key, error)
          yield* servers.evict(key, instance)
          return yield* quoted
        }))
    )
  })
