/**
 * The host: turns each configured server into a seam provider whose queries run through a pool of
 * servers, one per (provider, canonical workspace), under a FIFO permit per workspace.
 */
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { LspDeadline, LspError, LspProvider, type LspQuery, LspResult } from "@lsp-seam/lsp"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import type { Readiness, StdioConfig } from "../StdioConfig.js"
import type { ServerStatus, StdioHostShape } from "../StdioHost.js"
import * as CrashLoop from "./crashLoop.js"
import { pathVariable, scrubEnvironment } from "./environment.js"
import { resolveExecutable } from "./executable.js"
import * as FifoMutex from "./fifoMutex.js"
import { Files, type FileServices } from "./fileAccess.js"
import { normalizeHover, normalizeLocations } from "./normalize.js"
import * as Pool from "./pool.js"
import type { ProcessWorld } from "./processWorld.js"
import * as RetainedDocuments from "./retainedDocuments.js"
import * as ServerInstance from "./serverInstance.js"
import { locateSourceWith, readLocatedWith, type Source, type SourceLocation } from "./source.js"
import * as StatusQuote from "./statusQuote.js"
import { resolveWorkspaceWith, type Workspace } from "./workspace.js"

type Platform = FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor

export const capabilityOf = {
  goToDefinition: "definitionProvider",
  findReferences: "referencesProvider",
  goToImplementation: "implementationProvider",
  hover: "hoverProvider"
} as const

const methodOf = {
  goToDefinition: "textDocument/definition",
  findReferences: "textDocument/references",
  goToImplementation: "textDocument/implementation",
  hover: "textDocument/hover"
} as const

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/** A capability is on when it is `true` or an options object. */
export const advertised = (value: unknown) => value === true || (isRecord(value) && !Array.isArray(value))

/** Transient open needs open/close notifications: sync kind Full (1) or Incremental (2), or `openClose`. */
export const opensTransiently = (sync: unknown) =>
  sync === 1 || sync === 2 || (isRecord(sync) && sync.openClose === true)

/** Failures of the wire or the process, as opposed to answers: worth one retry on a fresh server. */
const isTransportFailure = (error: LspError.LspError) => {
  switch (error.code) {
    case "LSP_SERVER_EXITED":
    case "LSP_TRANSPORT_FAILED":
      return true
    case "LSP_PROTOCOL_ERROR":
      return error.detail?.reason !== "positionEncoding" && error.detail?.reason !== "initialize"
    default:
      return false
  }
}

/** Failures of a server starting: worth quoting how often it has been started. */
const isServerFailure = (error: LspError.LspError) =>
  isTransportFailure(error) || error.code === "LSP_SERVER_START_FAILED" ||
  (error.code === "LSP_PROTOCOL_ERROR" && error.detail?.reason === "initialize")

/**
 * How long a query may wait for a starting server to settle: `maxWaitMs`, and never so long that the
 * request itself could not finish before the caller's deadline (a quarter of what is left, at most 2 s, is
 * kept for it).
 */
const readinessDeadline = (rule: Readiness) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const deadline = yield* FiberRef.get(LspDeadline.current)
    const byRule = now + rule.maxWaitMs
    return Option.match(deadline, {
      onNone: () => byRule,
      onSome: (d) => Math.min(byRule, d - Math.min(2_000, Math.max(0, d - now) / 4))
    })
  })

/** Resolved, validated configuration: every server's executable found and environment built. */
export const prepare = (
  config: StdioConfig,
  ambient: Readonly<Record<string, string | undefined>>
): Effect.Effect<ReadonlyArray<ServerInstance.ServerSpec>, LspError.LspError, FileSystem.FileSystem | Path.Path> =>
  Effect.forEach(Object.entries(config.servers), ([providerId, server]) =>
    Effect.gen(function*() {
      const env = scrubEnvironment(ambient, server.env)
      const executable = yield* resolveExecutable(providerId, server.command, pathVariable(env))
      return { providerId, executable, env, config: server }
    }))

/**
 * Builds one provider per server spec, sharing a pool and the workspace permits. Everything is owned by
 * the current scope.
 */
export const makeProviders = (
  specs: ReadonlyArray<ServerInstance.ServerSpec>,
  world: ProcessWorld,
  options: { readonly maxServers: number }
): Effect.Effect<
  { readonly providers: ReadonlyArray<LspProvider.LspProvider>; readonly host: StdioHostShape },
  never,
  Scope.Scope | Platform
> =>
  Effect.gen(function*() {
    const owner = yield* Effect.scope
    // Only these three: the full context would also carry the Layer's Scope, and providing that to a server
    // start would attach the server's finalisers to the host instead of to the server's own scope.
    const picked = Context.pick(FileSystem.FileSystem, Path.Path, CommandExecutor.CommandExecutor)(
      yield* Effect.context<Platform>()
    )
    const files = world.files(Context.get(picked, FileSystem.FileSystem))
    const platform = Context.add(picked, Files, files)
    const services: FileServices = { files, path: Context.get(picked, Path.Path) }
    const pool = yield* Pool.make<ServerInstance.ServerInstance>({ maxEntries: options.maxServers })
    const crashes = yield* CrashLoop.make
    const starts = yield* Ref.make(new Map<string, number>())
    // A plain map: looking up and inserting happen in one synchronous step.
    const permits = new Map<string, FifoMutex.FifoMutex>()

    const permitFor = (workspace: Workspace) =>
      Effect.sync(() => {
        const existing = permits.get(workspace.path)
        if (existing !== undefined) return existing
        const fresh = FifoMutex.unsafeMake()
        permits.set(workspace.path, fresh)
        return fresh
      })

    const poolKey = (spec: ServerInstance.ServerSpec, workspace: Workspace) =>
      `${spec.providerId}\u0000${workspace.path}`

    const startsOf = (key: string) => Effect.map(Ref.get(starts), (map) => map.get(key) ?? 0)

    /**
     * A failure of the server itself (it exited, broke the protocol, could not start), with the server's
     * status quoted: read before the failed server is evicted, since eviction forgets it.
     */
    const quoteStatus = (spec: ServerInstance.ServerSpec, key: string, error: LspError.LspError) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const entry = (yield* pool.status).find((candidate) => candidate.key === key)
        const status = entry === undefined ? undefined : yield* describeEntry(entry, now)
        return StatusQuote.quote(error, { providerId: spec.providerId, status, starts: yield* startsOf(key) })
      })

    interface OpenDocument {
      readonly instance: ServerInstance.ServerInstance
      readonly key: string
      /** The transiently opened document to close; null when documents are retained. */
      readonly uri: string | null
    }

    /**
     * What one query holds, for its cleanup: the server lease and the document it opened. Plain fields, set
     * in the same synchronous step as what they record, so an interruption cannot fall in between.
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

    /**
     * One try on the pooled server: start if needed, check support, open, ask, normalise. `source` is the
     * file's text when it has been read; only retained documents can do without (when held unchanged).
     */
    const attempt = (
      spec: ServerInstance.ServerSpec,
      query: LspQuery.LspProviderQuery,
      workspace: Workspace,
      location: SourceLocation,
      source: Source | undefined,
      held: Held
    ) =>
      Effect.gen(function*() {
        const key = poolKey(spec, workspace)
        const read = readLocatedWith(services, location, spec.config.maxDocumentBytes)
        const start = Effect.gen(function*() {
          yield* crashes.check(key, spec.providerId, spec.config.crashLoop)
          yield* Ref.update(starts, (map) => new Map(map).set(key, (map.get(key) ?? 0) + 1))
          const instance = yield* ServerInstance.start(spec, workspace, world, {
            onCrash: (error) => crashes.record(key, error)
          })
          // A server that exits on its own while idle is evicted at once rather than at the next query for its
          // workspace or its idle timeout: its teardown ends what is left of its process group, and the status
          // view stops showing a dead server as idle. A query holding it evicts it itself, after quoting its
          // status in the error. (Its scope's closing interrupts this watch first.)
          yield* Effect.forkScoped(
            Effect.zipRight(instance.exited, Effect.suspend(() => pool.evictIfIdle(key, instance)))
          )
          return instance
        })
        const instance = yield* pool.lease(key, {
          start: Effect.provide(start, platform),
          idleTimeoutMs: spec.config.idleTimeoutMs
        }, (release) => {
          held.release = release
        }).pipe(
          Effect.catchIf(isServerFailure, (error) => Effect.flip(quoteStatus(spec, key, error)))
        )
        const evictOnTransportFailure = <A, R>(self: Effect.Effect<A, LspError.LspError, R>) =>
          Effect.catchAll(self, (error) =>
            isTransportFailure(error)
              ? Effect.gen(function*() {
                const quoted = yield* quoteStatus(spec, key, error)
                yield* pool.evict(key, instance)
                held.document = undefined
                return yield* quoted
              })
              : Effect.fail(error))
        return yield* Effect.gen(function*() {
          const capability = capabilityOf[query.operation]
          if (!advertised(instance.capabilities[capability])) {
            return yield* LspError.unsupportedOperation(
              `The "${spec.providerId}" language server does not support ${query.operation} (it does not ` +
                `advertise ${capability}).`,
              { providerId: spec.providerId, operation: query.operation }
            )
          }
          if (!opensTransiently(instance.capabilities.textDocumentSync)) {
            return yield* LspError.unsupportedOperation(
              `The "${spec.providerId}" language server cannot open documents on request (its textDocumentSync ` +
                "does not allow open/close notifications).",
              { providerId: spec.providerId, textDocumentSync: instance.capabilities.textDocumentSync ?? null }
            )
          }
          if (spec.config.documentSync === "retained") {
            // The documents stay open; cleanup only has to see the request settle.
            held.document = { instance, key, uri: null }
            yield* RetainedDocuments.prepare(services, instance.retained, instance.connection, {
              workspace,
              location,
              source,
              read,
              languageId: query.languageId,
              maxDocumentBytes: spec.config.maxDocumentBytes,
              maxDocuments: spec.config.maxRetainedDocuments,
              sync: instance.capabilities.textDocumentSync
            })
          } else {
            const text = (source ?? (yield* read)).text
            // Opening and remembering that we opened happen together, so cleanup knows whether to close. The
            // request queued next goes out in the same write, and nothing waits on a server not reading.
            yield* Effect.uninterruptible(
              instance.connection.post("textDocument/didOpen", {
                textDocument: { uri: location.uri, languageId: query.languageId, version: 1, text }
              }).pipe(Effect.zipRight(Effect.sync(() => {
                held.document = { instance, key, uri: location.uri }
              })))
            )
          }
          const settled = instance.readiness.isSettled() ||
            (yield* instance.readiness.awaitSettled(yield* readinessDeadline(spec.config.readiness)))
          const params = {
            textDocument: { uri: location.uri },
            position: query.position,
            ...(query.operation === "findReferences" ? { context: { includeDeclaration: true } } : {})
          }
          const raw = yield* instance.connection.request(methodOf[query.operation], params)
          const result = query.operation === "hover"
            ? LspResult.hover(yield* normalizeHover(raw))
            : LspResult.locations(yield* normalizeLocations(raw, query.operation), workspace.uri)
          return settled ? result : LspResult.markIncomplete(result)
        }).pipe(evictOnTransportFailure)
      })

    /** Closes the transiently opened document; after an interruption, first lets the cancel settle. */
    const closeDocument = (held: Held, interrupted: boolean) =>
      Effect.gen(function*() {
        const document = held.document
        if (document === undefined) return
        const { instance, key, uri } = document
        if (interrupted && !(yield* instance.connection.awaitCancelled)) {
          // The server ignored the cancellation: it must not serve the next query with a stale document.
          return yield* pool.evict(key, instance)
        }
        if (uri === null || !(yield* instance.isAlive)) return
        yield* instance.connection.post("textDocument/didClose", { textDocument: { uri } }).pipe(
          Effect.catchAll(() => pool.evict(key, instance))
        )
      })

    const runQuery = (spec: ServerInstance.ServerSpec, query: LspQuery.LspProviderQuery) =>
      Effect.gen(function*() {
        const workspace = yield* resolveWorkspaceWith(services, query.workspaceRoot)
        const permit = yield* permitFor(workspace)
        return yield* Effect.uninterruptibleMask((restore) =>
          Effect.gen(function*() {
            // Inside this query's uninterruptible region: holding the permit and reaching the cleanup below
            // cannot be split by an interruption.
            yield* permit.acquireWith(restore)
            const held: Held = { release: undefined, document: undefined }
            const exit = yield* Effect.exit(restore(Effect.gen(function*() {
              // The file is checked and read when this query's turn comes, and before any server is started;
              // unless a live server holds it unchanged (retained documents), and it is still readable: then
              // its text is not needed. (Should that server die before the lease, the text is read after
              // its successor has started.)
              const maxBytes = spec.config.maxDocumentBytes
              const location = yield* locateSourceWith(services, workspace, query.filePath, maxBytes)
              const running = spec.config.documentSync === "retained"
                ? pool.peek(poolKey(spec, workspace))
                : undefined
              const heldUnchanged = running !== undefined && (yield* running.isAlive) &&
                (yield* RetainedDocuments.holdsUnchanged(running.retained, location)) &&
                (yield* services.files.readable(location.path))
              const source = heldUnchanged ? undefined : yield* readLocatedWith(services, location, maxBytes)
              const once = attempt(spec, query, workspace, location, source, held)
              // A retry leases afresh: the failed attempt's lease ends first.
              return yield* Effect.catchIf(
                once,
                isTransportFailure,
                () => Effect.zipRight(Effect.sync(() => releaseLease(held)), once)
              )
            })))
            const interrupted = Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)
            // The lease ends after the document is closed, so an idle timeout cannot race the close.
            const cleanup = closeDocument(held, interrupted).pipe(
              Effect.ensuring(Effect.zipRight(Effect.sync(() => releaseLease(held)), permit.release))
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

    const providers = specs.map((spec) =>
      LspProvider.make({
        id: spec.providerId,
        extensionToLanguage: spec.config.extensionToLanguage,
        query: (query) => runQuery(spec, query)
      })
    )

    const describeEntry = (entry: Pool.EntryStatus<ServerInstance.ServerInstance>, now: number) =>
      Effect.gen(function*() {
        const [providerId = "", workspace = ""] = entry.key.split("\u0000")
        const instance = Option.getOrUndefined(entry.value)
        const lastCrash = yield* crashes.last(entry.key)
        return {
          providerId,
          workspace,
          pid: instance?.pid ?? null,
          state: instance === undefined ? "starting" : entry.inUse > 0 ? "busy" : "idle",
          uptimeMs: now - entry.startedAt,
          queriesServed: entry.leases,
          restarts: Math.max(0, (yield* startsOf(entry.key)) - 1),
          lastError: lastCrash?.error.message ?? null,
          rssBytes: instance === undefined ? null : yield* world.residentBytes(instance.pid)
        } satisfies ServerStatus
      })

    const status = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      return yield* Effect.forEach(yield* pool.status, (entry) => describeEntry(entry, now))
    })

    return { providers, host: { status } }
  })
