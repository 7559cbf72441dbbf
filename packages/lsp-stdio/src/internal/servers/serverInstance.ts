/**
 * One running language server for one workspace: the process, its JSON-RPC connection, the handshake,
 * and the teardown that always ends the whole process tree.
 */
import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import { LspError, LspExtension } from "@lsp-seam/lsp"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import * as JsonRpc from "../../JsonRpc.js"
import type { ServerConfig } from "../../StdioConfig.js"
import * as DiagnosticsStore from "../documents/diagnosticsStore.js"
import * as RetainedDocuments from "../documents/retainedDocuments.js"
import type { Workspace } from "../files/workspace.js"
import type { ProcessWorld } from "../process/processWorld.js"
import * as StderrTail from "../process/stderrTail.js"
import * as Registrations from "../wire/registrations.js"
import * as Readiness from "./readiness.js"

/** A configured server after validation: its provider id, resolved executable and child environment. */
export interface ServerSpec {
  readonly providerId: string
  readonly executable: string
  readonly env: Readonly<Record<string, string>>
  readonly config: ServerConfig
}

/** The server's languages by normalised extension (the seam's rule for extension keys). */
export const languagesOf = (spec: ServerSpec): ReadonlyMap<string, string> => {
  const languages = new Map<string, string>()
  for (const [extension, language] of Object.entries(spec.config.extensionToLanguage)) {
    const normalized = LspExtension.normalizeExtensionKey(extension)
    if (normalized._tag === "Right") languages.set(normalized.right, language)
  }
  return languages
}

/** A started, initialised server. Owned by the scope it was started in. */
export interface ServerInstance {
  readonly providerId: string
  readonly workspace: Workspace
  readonly pid: number
  readonly connection: JsonRpc.Connection
  readonly capabilities: ServerCapabilities
  /** Documents kept open between queries (documentSync "retained"); empty for a fresh instance. */
  readonly retained: RetainedDocuments.RetainedSet
  /** The diagnostics the server has pushed, per document. */
  readonly diagnostics: DiagnosticsStore.DiagnosticsStore
  /** What the server registered after the handshake (pull diagnostics, for pyright). */
  readonly registrations: Registrations.Registrations
  /** Whether the server's startup work (progress, a quiet period) has settled. */
  readonly readiness: Readiness.ReadinessTracker
  /** What the server said about itself, when it said something well-formed. */
  readonly serverInfo: Option.Option<typeof ServerInfo.Type>
  /** Resolves once the process has exited. */
  readonly exited: Effect.Effect<void>
  readonly isAlive: Effect.Effect<boolean>
}

/** The part of the server's capabilities lsp-seam reads; everything else is kept but unchecked. */
export const ServerCapabilities = Schema.Struct({
  positionEncoding: Schema.optional(Schema.Unknown),
  textDocumentSync: Schema.optional(Schema.Unknown),
  definitionProvider: Schema.optional(Schema.Unknown),
  referencesProvider: Schema.optional(Schema.Unknown),
  implementationProvider: Schema.optional(Schema.Unknown),
  hoverProvider: Schema.optional(Schema.Unknown),
  typeDefinitionProvider: Schema.optional(Schema.Unknown),
  callHierarchyProvider: Schema.optional(Schema.Unknown),
  documentSymbolProvider: Schema.optional(Schema.Unknown),
  workspaceSymbolProvider: Schema.optional(Schema.Unknown),
  diagnosticProvider: Schema.optional(Schema.Unknown),
  renameProvider: Schema.optional(Schema.Unknown),
  executeCommandProvider: Schema.optional(Schema.Unknown)
})

export type ServerCapabilities = typeof ServerCapabilities.Type

const ServerInfo = Schema.Struct({ name: Schema.String, version: Schema.optional(Schema.String) })

const InitializeResult = Schema.Struct({
  capabilities: ServerCapabilities,
  serverInfo: Schema.optional(Schema.Unknown)
})

/** Every symbol kind LSP 3.17 defines (1–26): we read them all. */
const symbolKinds = { valueSet: Array.from({ length: 26 }, (_, i) => i + 1) }

/** What we tell servers we can do: exactly what lsp-seam uses, nothing dynamic. */
export const clientCapabilities = {
  general: { positionEncodings: ["utf-16"] },
  window: { workDoneProgress: true },
  workspace: {
    workspaceFolders: true,
    configuration: true,
    // No resolveSupport: every answer must carry its ranges.
    symbol: { dynamicRegistration: false, symbolKind: symbolKinds },
    // Rename previews: edits per document, and file operations, so that they are listed rather than lost.
    workspaceEdit: { documentChanges: true, resourceOperations: ["create", "rename", "delete"] }
  },
  textDocument: {
    synchronization: { dynamicRegistration: false },
    hover: { dynamicRegistration: false, contentFormat: ["markdown", "plaintext"] },
    definition: { dynamicRegistration: false, linkSupport: true },
    implementation: { dynamicRegistration: false, linkSupport: true },
    references: { dynamicRegistration: false },
    typeDefinition: { dynamicRegistration: false, linkSupport: true },
    callHierarchy: { dynamicRegistration: false },
    rename: { dynamicRegistration: false, prepareSupport: true },
    documentSymbol: { dynamicRegistration: false, hierarchicalDocumentSymbolSupport: true, symbolKind: symbolKinds },
    // Versions let a query tell a set computed for the text it synced from one for an older text; related
    // information is kept with the diagnostic it explains.
    publishDiagnostics: { relatedInformation: true, versionSupport: true },
    // The one dynamic registration the host takes: pyright offers pull diagnostics, exact for the text it
    // holds, only by registering them, and only to a client that says it accepts that.
    diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false, relatedInformation: true }
  }
} as const

const describeExit = (providerId: string, exit: ExitInfo, stderr: string): LspError.LspLocalError => {
  const how = exit.signal !== undefined ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`
  const tail = stderr.length === 0 ? "It wrote nothing to stderr." : `Its last output on stderr:\n${stderr}`
  return LspError.serverExited(`The "${providerId}" language server ${how}. ${tail}`, {
    providerId,
    ...(exit.code === undefined ? {} : { exitCode: exit.code }),
    ...(exit.signal === undefined ? {} : { signal: exit.signal }),
    stderr
  }).pipe(LspError.withReason({ _tag: "ServerExited" }))
}

interface ExitInfo {
  readonly code?: number
  readonly signal?: string
}

/** The spawned process, before any message: its stderr tail and how it ends. */
interface Spawned {
  readonly child: CommandExecutor.Process
  readonly stderr: StderrTail.StderrTail
  readonly exitInfo: Deferred.Deferred<ExitInfo>
  /** Once it has exited: the error that says how, with its stderr. */
  readonly exitError: Effect.Effect<LspError.LspLocalError>
}

/** Step 1 of a start: the process spawned in the workspace, watched, its stderr kept, its exit recorded. */
const spawn = (spec: ServerSpec, workspace: Workspace, world: ProcessWorld) =>
  Effect.gen(function*() {
    const { config, providerId } = spec
    const command = Command.make(spec.executable, ...config.args).pipe(
      Command.workingDirectory(workspace.path),
      Command.env(spec.env, { extendEnv: false })
    )
    const child = yield* Command.start(command).pipe(
      Effect.mapError((error) =>
        LspError.serverStartFailed(`Could not start the "${providerId}" language server: ${error.message}`, {
          providerId,
          executable: spec.executable
        })
      )
    )
    yield* world.watch(child.pid)
    const stderr = yield* StderrTail.make(config.maxStderrBytes)
    yield* child.stderr.pipe(Stream.runForEach(stderr.append), Effect.ignore, Effect.forkScoped)
    const exitInfo = yield* Deferred.make<ExitInfo>()
    yield* child.exitCode.pipe(
      Effect.match({
        onSuccess: (code): ExitInfo => ({ code }),
        onFailure: (error): ExitInfo => ({ signal: /signal: (\w+)/.exec(error.message)?.[1] ?? "a signal" })
      }),
      Effect.flatMap((info) => Deferred.succeed(exitInfo, info)),
      Effect.forkScoped
    )
    const exitError = Effect.flatMap(
      Deferred.await(exitInfo),
      (info) => Effect.map(stderr.text, (text) => describeExit(providerId, info, text))
    )
    return { child, stderr, exitInfo, exitError } satisfies Spawned
  })

/** Step 2: the JSON-RPC connection over the process's stdio. */
const connect = (
  spec: ServerSpec,
  { child, exitError }: Spawned,
  onNotification: (method: string, params: unknown) => Effect.Effect<void>,
  onRequest: (method: string, params: unknown) => void
) => {
  const { config, providerId } = spec
  const transport: JsonRpc.Transport = {
    input: child.stdout.pipe(
      Stream.mapError((error) =>
        LspError.transportFailed(`Reading from the "${providerId}" server failed: ${error.message}`)
      )
    ),
    output: child.stdin.pipe(
      Sink.mapError((error) =>
        LspError.transportFailed(`Writing to the "${providerId}" server failed: ${error.message}`, { providerId })
      )
    )
  }
  return JsonRpc.make(transport, {
    maxMessageBytes: config.maxMessageBytes,
    configuration: config.configuration,
    cancelGrace: config.killGraceMs,
    onNotification,
    onRequest,
    // The process usually exits right after closing its output; give it a moment to report how.
    describeEnd: exitError.pipe(
      Effect.timeoutTo({
        duration: config.killGraceMs,
        onSuccess: (error) => error,
        onTimeout: () => LspError.transportFailed(`The "${providerId}" server closed its output but kept running.`)
      })
    ),
    // A write usually fails because the process has just exited (EPIPE): say that, with its stderr.
    describeWriteFailure: (error) =>
      exitError.pipe(
        Effect.timeoutTo({ duration: config.killGraceMs, onSuccess: (exited) => exited, onTimeout: () => error })
      )
  })
}

/**
 * Step 3: when the process exits, the connection fails with how it ended, an exit nobody asked for is
 * reported as a crash, and once nothing of its group is left its id is released. Runs in the scope.
 */
const watchExit = (
  spec: ServerSpec,
  world: ProcessWorld,
  spawned: Spawned,
  connection: JsonRpc.Connection,
  state: { readonly stopping: Ref.Ref<boolean>; readonly groupGone: Ref.Ref<boolean> },
  onCrash: (error: LspError.LspLocalError) => Effect.Effect<void>
) =>
  Deferred.await(spawned.exitInfo).pipe(
    Effect.zipRight(spawned.exitError),
    Effect.tap(connection.fail),
    Effect.flatMap((error) => Effect.flatMap(Ref.get(state.stopping), (asked) => asked ? Effect.void : onCrash(error))),
    // Once nothing of the server's group is left, its id is free for reuse: release it from the watchdog
    // now and never signal it again, rather than only at its teardown, which can come later (a crashed
    // server held by a query is evicted by that query). After a crash the host keeps looking for up to the
    // grace period, while the server's children go.
    Effect.zipRight(Ref.get(state.stopping)),
    Effect.flatMap((asked) =>
      world.treeGone(spawned.child.pid, Deferred.await(spawned.exitInfo), asked ? 0 : spec.config.killGraceMs)
    ),
    Effect.flatMap((gone) =>
      gone ? Effect.zipRight(Ref.set(state.groupGone, true), world.release(spawned.child.pid)) : Effect.void
    ),
    Effect.forkScoped
  )

/** Step 4: `initialize`, its answer checked (capabilities, UTF-16 positions), then `initialized`. */
const handshake = (spec: ServerSpec, workspace: Workspace, world: ProcessWorld, connection: JsonRpc.Connection) =>
  Effect.gen(function*() {
    const { config, providerId } = spec
    const initialized = yield* connection.request("initialize", {
      processId: world.hostPid,
      clientInfo: { name: "lsp-seam" },
      rootUri: workspace.uri,
      rootPath: workspace.path,
      workspaceFolders: [{ uri: workspace.uri, name: workspace.path.split(/[\\/]/).pop() || workspace.path }],
      initializationOptions: config.initializationOptions,
      capabilities: clientCapabilities
    })
    const decoded = Schema.decodeUnknownEither(InitializeResult)(Option.getOrUndefined(initialized))
    if (Either.isLeft(decoded)) {
      return yield* LspError.protocolError(
        `The "${providerId}" server answered initialize without a valid capabilities object.`,
        { providerId, reason: "initialize" }
      ).pipe(LspError.withReason({ _tag: "InitializeFailed" }))
    }
    const encoding = decoded.right.capabilities.positionEncoding
    if (encoding !== undefined && encoding !== "utf-16") {
      return yield* LspError.protocolError(
        `The "${providerId}" server chose position encoding ${JSON.stringify(encoding)}; lsp-seam only speaks ` +
          "UTF-16 positions.",
        { providerId, reason: "positionEncoding", positionEncoding: encoding }
      ).pipe(LspError.withReason({ _tag: "PositionEncoding" }))
    }
    // Some servers (gopls among them) reject `initialized` without params. The server's opt-in switches follow it
    // in the same step, all queued before the writer runs, so they precede anything the server answers to
    // `initialized` with (yaml-language-server's configuration request, which a readiness signal depends on); the
    // last one waits until everything is written.
    const messages = [{ method: "initialized", params: {} }, ...config.afterInitialized]
    for (const [index, message] of messages.entries()) {
      yield* (index === messages.length - 1 ? connection.notify : connection.post)(message.method, message.params)
    }
    return decoded.right
  })

/**
 * Spawns and initialises a server in the current scope. Closing the scope tears it down: `shutdown` and
 * `exit` within `shutdownTimeoutMs`, then SIGTERM to the process tree, SIGKILL after `killGraceMs`, and
 * a bounded wait until the tree is gone. Any failure here leaves nothing running.
 */
export const start = (
  spec: ServerSpec,
  workspace: Workspace,
  world: ProcessWorld,
  hooks: {
    readonly onNotification?: (method: string, params: unknown) => Effect.Effect<void>
    /** Told when the process exits without having been asked to (not during teardown). */
    readonly onCrash?: (error: LspError.LspLocalError) => Effect.Effect<void>
  } = {}
): Effect.Effect<ServerInstance, LspError.LspLocalError, Scope.Scope | CommandExecutor.CommandExecutor> =>
  Effect.gen(function*() {
    const { config, providerId } = spec
    const spawned = yield* spawn(spec, workspace, world)
    const readiness = yield* Readiness.make(config.readiness)
    const diagnostics = DiagnosticsStore.make(yield* Effect.clock)
    const registrations = Registrations.make()
    const connection = yield* connect(
      spec,
      spawned,
      (method, params) =>
        readiness.observe(method, params).pipe(
          Effect.zipRight(diagnostics.observe(method, params)),
          Effect.zipRight(hooks.onNotification?.(method, params) ?? Effect.void)
        ),
      registrations.observe
    )
    const state = { stopping: yield* Ref.make(false), groupGone: yield* Ref.make(false) }
    yield* watchExit(spec, world, spawned, connection, state, hooks.onCrash ?? (() => Effect.void))
    const { child, exitInfo } = spawned
    // Runs before the platform's own finaliser (added earlier), which would wait forever on a process that
    // ignores SIGTERM.
    yield* Effect.addFinalizer(() =>
      Effect.zipRight(
        Ref.set(state.stopping, true),
        teardown({
          providerId,
          config,
          world,
          pid: child.pid,
          connection,
          exited: Deferred.await(exitInfo),
          groupGone: Ref.get(state.groupGone),
          closeStdin: connection.closeOutput,
          kill: child.kill
        })
      )
    )
    const initialized = yield* handshake(spec, workspace, world, connection)
    yield* readiness.touch
    return {
      providerId,
      workspace,
      pid: child.pid,
      connection,
      capabilities: initialized.capabilities,
      readiness,
      diagnostics,
      registrations,
      retained: yield* RetainedDocuments.makeSet,
      serverInfo: Schema.decodeUnknownOption(ServerInfo)(initialized.serverInfo),
      exited: Effect.asVoid(Deferred.await(exitInfo)),
      isAlive: Effect.zipWith(Deferred.isDone(exitInfo), connection.isOpen, (exited, open) => !exited && open)
    }
  })

interface TeardownInput {
  readonly providerId: string
  readonly config: ServerConfig
  readonly world: ProcessWorld
  readonly pid: number
  readonly connection: JsonRpc.Connection
  readonly exited: Effect.Effect<ExitInfo>
  /** True once the server's whole group has been seen gone: its id may since belong to someone else. */
  readonly groupGone: Effect.Effect<boolean>
  readonly closeStdin: Effect.Effect<void>
  readonly kill: (signal: CommandExecutor.Signal) => Effect.Effect<void, unknown>
}

/** Polite first, then forceful; every wait bounded, so teardown never hangs. */
const teardown = (input: TeardownInput): Effect.Effect<void> =>
  Effect.gen(function*() {
    const { config, connection, world } = input
    const graceful = Effect.gen(function*() {
      if (yield* connection.isOpen) {
        yield* Effect.ignore(connection.request("shutdown", null))
        yield* Effect.ignore(connection.notify("exit"))
      }
      yield* input.closeStdin
      yield* input.exited
    })
    yield* graceful.pipe(Effect.interruptible, Effect.timeoutOption(config.shutdownTimeoutMs))
    // A server that never answered shutdown still gets its stdin closed, the signal orphan-aware servers
    // watch for, before any kill.
    yield* input.closeStdin.pipe(Effect.interruptible, Effect.timeoutOption(config.killGraceMs))
    yield* connection.fail(LspError.disposed(`The "${input.providerId}" server has been shut down.`))
    // Once the group has been seen gone its id may belong to someone else: it is never looked at again.
    const gone = (timeoutMs: number) =>
      Effect.gen(function*() {
        const done = (yield* input.groupGone) || (yield* world.treeGone(input.pid, input.exited, timeoutMs))
        if (done) yield* world.release(input.pid)
        return done
      })
    if (yield* gone(0)) {
      return
    }
    yield* world.signalTree(input.pid, "SIGTERM", input.kill)
    if (yield* gone(config.killGraceMs)) {
      return
    }
    yield* world.signalTree(input.pid, "SIGKILL", input.kill)
    // A group still not gone stays with the watchdog, which tries again when the host ends.
    yield* gone(config.killGraceMs)
  })
