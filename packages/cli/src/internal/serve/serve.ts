/**
 * `lsp-seam serve [--socket PATH | --listen HOST:PORT --token-file F] [--root DIR]... [--config FILE]
 * [--idle-exit DURATION] [--no-prewarm] [--cluster STORAGE]`: one stdio host (or, with `--cluster`, the runners
 * of an lsp-seam cluster) served to any number of clients and workspaces, on a
 * private Unix socket (default `LspRemoteAddress.defaultSocketPath()`) or as WebSocket RPC on TCP behind a
 * bearer token, answering only inside its served roots (`--root`; with `--listen`, by default the directory it
 * started in). With
 * `--idle-exit`, the host stops (with its language servers) once no query has run for that long, and the
 * command exits 0; SIGINT/SIGTERM stop it too.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type * as SocketServer from "@effect/platform/SocketServer"
import { type LspError, LspService } from "@lsp-seam/lsp"
import { LspClusterStorage } from "@lsp-seam/lsp-cluster"
import { LspRemoteAddress, LspRemoteAuth, LspRemoteServer } from "@lsp-seam/lsp-remote"
import { LspStdio, StdioStatus } from "@lsp-seam/lsp-stdio"
import { LspConfigFile, LspDaemon, LspRemoteConnection, LspRemoteTarget } from "@lsp-seam/setup"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { type CliIO, stderr } from "../command/cliIO.js"
import { UsageError } from "../command/errors.js"
import * as MemoryReport from "../doctor/memoryReport.js"
import * as IdleExit from "./idleExit.js"
import * as Prewarm from "./prewarm.js"
import {
  allowPlaintextOption,
  allowWritableStorageOption,
  handshakeTimeoutOption,
  idleExitOption,
  listenOption,
  maxClientQueriesOption,
  maxClientRequestsOption,
  maxConnectionsOption,
  maxPendingConnectionsOption,
  noPrewarmOption,
  rootOption,
  socketOption,
  tlsCertOption,
  tlsKeyOption,
  tokenFileOption
} from "./remoteOptions.js"
import * as ServeCluster from "./serveCluster.js"

const configOption = Options.file("config").pipe(
  Options.withDescription(
    `A configuration file (default: ${LspConfigFile.fileName} in the current directory, else the presets).`
  ),
  Options.optional
)

/** `HOST:PORT`, `[v6]:PORT` or `:PORT` (127.0.0.1). */
export const parseListen = (text: string): Either.Either<{ readonly host: string; readonly port: number }, string> => {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):([0-9]{1,5})$/.exec(text)
  const port = match === null ? Number.NaN : Number(match[3])
  if (match === null || port > 65_535) return Either.left(`--listen ${text}: expected HOST:PORT.`)
  const host = match[1] ?? match[2] ?? ""
  return Either.right({ host: host === "" ? "127.0.0.1" : host, port })
}

/** `unix:PATH` or the WebSocket URL (`wss://` when `secure`). */
export const describeAddress = (address: SocketServer.Address, secure = false): string =>
  address._tag === "UnixAddress"
    ? `unix:${address.path}`
    : `${secure ? "wss" : "ws"}://${
      address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname
    }:${address.port}/lsp-seam`

export const readPem = (flag: string, file: string) =>
  Effect.try({
    try: () => NodeFs.readFileSync(NodePath.resolve(file), "utf8"),
    catch: (cause) => new UsageError({ message: `${flag} ${file}: cannot read it (${String(cause)}).` })
  })

/** `--tls-cert`/`--tls-key` (both or neither) and the plaintext rule for an address others can reach. */
export const tlsOf = (
  listen: { readonly host: string; readonly port: number },
  args: {
    readonly tlsCert: Option.Option<string>
    readonly tlsKey: Option.Option<string>
    readonly allowPlaintext: boolean
  }
) =>
  Effect.gen(function*() {
    if (Option.isSome(args.tlsCert) !== Option.isSome(args.tlsKey)) {
      return yield* new UsageError({ message: "--tls-cert and --tls-key go together: give both, or neither." })
    }
    if (Option.isSome(args.tlsCert) && Option.isSome(args.tlsKey)) {
      return {
        cert: yield* readPem("--tls-cert", args.tlsCert.value),
        key: yield* readPem("--tls-key", args.tlsKey.value)
      }
    }
    if (!LspRemoteAddress.isLoopback(listen.host) && !args.allowPlaintext) {
      return yield* new UsageError({
        message: `--listen ${listen.host}:${listen.port} can be reached from other machines: serve it with TLS ` +
          "(--tls-cert FILE --tls-key FILE), or pass --allow-plaintext to send the token and every answer " +
          "unencrypted."
      })
    }
    return undefined
  })

/**
 * The token of a listener: `--token-file`'s (a new one written there when the file does not exist), else
 * `LSP_SEAM_TOKEN`'s; none is a usage error naming `missing`.
 */
export const serverToken = (tokenFile: Option.Option<string>, command = "serve", missing = "--listen") =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    if (Option.isNone(tokenFile)) {
      if (process.env[LspRemoteTarget.tokenVariable] !== undefined) {
        return yield* LspRemoteAuth.fromEnv(LspRemoteTarget.tokenVariable)
      }
      return yield* new UsageError({
        message: `${missing} needs --token-file F (or ${LspRemoteTarget.tokenVariable}).`
      })
    }
    const file = NodePath.resolve(tokenFile.value)
    const exists = yield* fs.exists(file).pipe(Effect.orElseSucceed(() => false))
    if (exists) return yield* LspRemoteAuth.fromFile(file)
    const token = yield* LspRemoteAuth.generate
    yield* LspRemoteAuth.writeFile(file, token)
    yield* stderr(`lsp-seam ${command}: wrote a new token to ${file}\n`)
    return token
  })

type Transport =
  | { readonly _tag: "Socket"; readonly path: string | undefined }
  | {
    readonly _tag: "Http"
    readonly host: string
    readonly port: number
    readonly token: Redacted.Redacted<string>
    readonly tls: { readonly cert: string; readonly key: string } | undefined
  }

const clusterOption = Options.text("cluster").pipe(
  Options.withDescription(
    "Answer from an lsp-seam cluster instead of language servers of this host: its storage (sqlite:FILE or " +
      "postgres://…), as its runners were given (lsp-seam runner)."
  ),
  Options.optional
)

const clusterTokenFileOption = Options.text("cluster-token-file").pipe(
  Options.withDescription(
    "With --cluster: the runners' token file (their --token-file), presented to every runner (mode 0600)."
  ),
  Options.optional
)

const clusterTlsOption = Options.boolean("cluster-tls").pipe(
  Options.withDescription(
    "With --cluster: reach the runners over TLS (they serve --tls-cert), trusting the system's certificates."
  )
)

const clusterCaFileOption = Options.text("cluster-ca-file").pipe(
  Options.withDescription(
    "With --cluster: reach the runners over TLS, trusting these PEM certificates (a private CA) instead."
  ),
  Options.optional
)

/** The cluster client's options from `--cluster-token-file`, `--cluster-tls` and `--cluster-ca-file`. */
const clusterSecurity = (args: {
  readonly clusterTokenFile: Option.Option<string>
  readonly clusterTls: boolean
  readonly clusterCaFile: Option.Option<string>
}) =>
  Effect.gen(function*() {
    const token = yield* Option.match(args.clusterTokenFile, {
      onNone: () => Effect.succeed(undefined),
      onSome: (file) => LspRemoteAuth.fromFile(NodePath.resolve(file))
    })
    const ca = yield* Option.match(args.clusterCaFile, {
      onNone: () => Effect.succeed(undefined),
      onSome: (file) => readPem("--cluster-ca-file", file)
    })
    const tls = args.clusterTls || ca !== undefined ? { ca } : undefined
    return { token, tls }
  })

export const serve = Command.make(
  "serve",
  {
    socket: socketOption,
    listen: listenOption,
    tokenFile: tokenFileOption,
    root: rootOption,
    tlsCert: tlsCertOption,
    tlsKey: tlsKeyOption,
    allowPlaintext: allowPlaintextOption,
    handshakeTimeout: handshakeTimeoutOption,
    maxPendingConnections: maxPendingConnectionsOption,
    maxConnections: maxConnectionsOption,
    maxClientQueries: maxClientQueriesOption,
    maxClientRequests: maxClientRequestsOption,
    config: configOption,
    idleExit: idleExitOption,
    noPrewarm: noPrewarmOption,
    cluster: clusterOption,
    clusterTokenFile: clusterTokenFileOption,
    clusterTls: clusterTlsOption,
    clusterCaFile: clusterCaFileOption,
    allowWritableStorage: allowWritableStorageOption,
    clusterUnavailableAfter: ServeCluster.unavailableAfterOption
  },
  // Long on purpose (~140 lines): the command reads as its steps in order (options checked, the host built, the
  // listener, the banner, the wait for idleness), each a few lines; apart, each would take the options again.
  (args): Effect.Effect<
    void,
    LspError.LspError | UsageError,
    FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor | CliIO
  > =>
    Effect.gen(function*() {
      if (Option.isSome(args.socket) && Option.isSome(args.listen)) {
        return yield* new UsageError({ message: "serve takes --socket PATH or --listen HOST:PORT, not both." })
      }
      if (Option.isNone(args.listen) && (Option.isSome(args.tlsCert) || Option.isSome(args.tlsKey))) {
        return yield* new UsageError({ message: "--tls-cert and --tls-key go with --listen HOST:PORT." })
      }
      if (
        Option.isNone(args.listen) &&
        (Option.isSome(args.handshakeTimeout) || Option.isSome(args.maxPendingConnections) ||
          Option.isSome(args.maxConnections))
      ) {
        return yield* new UsageError({
          message: "--handshake-timeout, --max-pending-connections and --max-connections go with --listen HOST:PORT."
        })
      }
      const handshakeTimeoutMs = yield* Option.match(args.handshakeTimeout, {
        onNone: () => Effect.succeed(undefined),
        onSome: (text) =>
          Either.match(IdleExit.parseDuration(text), {
            onLeft: (message) => Effect.fail(new UsageError({ message: `--handshake-timeout: ${message}` })),
            onRight: (duration) => Effect.succeed(Math.max(1, Math.round(Duration.toMillis(duration))))
          })
      })
      for (
        const [flag, value] of [
          ["--max-pending-connections", args.maxPendingConnections],
          ["--max-connections", args.maxConnections],
          ["--max-client-queries", args.maxClientQueries],
          ["--max-client-requests", args.maxClientRequests]
        ] as const
      ) {
        if (Option.isSome(value) && value.value < 1) {
          return yield* new UsageError({ message: `${flag} must be at least 1 (got ${value.value}).` })
        }
      }
      const idleTime = yield* Option.match(args.idleExit, {
        onNone: () => Effect.succeed(Option.none<Duration.Duration>()),
        onSome: (text) =>
          Either.match(IdleExit.parseDuration(text), {
            onLeft: (message) => Effect.fail(new UsageError({ message: `--idle-exit: ${message}` })),
            onRight: (duration) => Effect.succeed(Option.some(duration))
          })
      })
      const transport: Transport = yield* Option.match(args.listen, {
        onNone: () =>
          Effect.succeed<Transport>({
            _tag: "Socket",
            path: Option.getOrUndefined(Option.map(args.socket, (path) => NodePath.resolve(path)))
          }),
        onSome: (text) =>
          Effect.gen(function*() {
            const listen = yield* Either.match(parseListen(text), {
              onLeft: (message) => Effect.fail(new UsageError({ message })),
              onRight: Effect.succeed
            })
            const tls = yield* tlsOf(listen, args)
            const token = yield* serverToken(args.tokenFile)
            return { _tag: "Http", ...listen, token, tls } satisfies Transport
          })
      })
      const cluster = yield* Option.match(args.cluster, {
        onNone: () => Effect.succeed(Option.none<LspClusterStorage.Storage>()),
        onSome: (text) =>
          Either.match(LspClusterStorage.decodeEither(text), {
            onLeft: (message) => Effect.fail(new UsageError({ message: `--cluster: ${message}` })),
            onRight: (storage) => Effect.succeed(Option.some(storage))
          })
      })
      if (
        Option.isNone(cluster) &&
        (Option.isSome(args.clusterTokenFile) || args.clusterTls || Option.isSome(args.clusterCaFile))
      ) {
        return yield* new UsageError({
          message: "--cluster-token-file, --cluster-tls and --cluster-ca-file go with --cluster STORAGE."
        })
      }
      const security = yield* clusterSecurity(args)
      const unavailableAfter = yield* ServeCluster.unavailableAfter(
        args.clusterUnavailableAfter,
        Option.isSome(cluster)
      )
      const workingDirectory = process.cwd()
      // A TCP host serves the directory it was started in unless told otherwise; the per-user socket serves
      // its user's workspaces, as before.
      const roots = args.root.length > 0
        ? args.root.map((root) => NodePath.resolve(root))
        : transport._tag === "Http"
        ? [workingDirectory]
        : undefined
      const configFile = Option.getOrUndefined(args.config)
      // It serves many workspaces: none of their node_modules/.bin may choose its servers.
      const loaded = yield* LspConfigFile.load({ configFile, workingDirectory, projectExecutables: false })
      const identity = yield* LspRemoteConnection.identifyDaemon(
        LspDaemon.resolveSource({ configFile, workingDirectory })
      )
      yield* Effect.scoped(Effect.gen(function*() {
        const idle = yield* Option.match(idleTime, {
          onNone: () => Effect.succeed(Option.none<IdleExit.IdleTracker>()),
          onSome: (duration) => Effect.map(IdleExit.make(duration), Option.some)
        })
        const track = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
          Option.match(idle, { onNone: () => effect, onSome: (tracker) => tracker.track(effect) })
        // With --cluster the queries go to the cluster's runners (each workspace to its entity's runner), which
        // hold the servers: this host has none of its own to prewarm, report or budget.
        const hosted = yield* Option.match(cluster, {
          onSome: (storage) =>
            Effect.map(
              ServeCluster.host({
                storage,
                ...security,
                unavailableAfter,
                allowWritableStorage: args.allowWritableStorage
              }),
              ({ placement, service: base }) => ({
                served: LspService.LspService.of({
                  registerProvider: base.registerProvider,
                  query: (request) => track(base.query(request))
                }),
                status: undefined,
                memory: undefined,
                placement,
                servers: `the cluster at ${LspClusterStorage.describe(storage)}`
              })
            ),
          onNone: () =>
            Effect.gen(function*() {
              const host = yield* Layer.build(LspStdio.layer(loaded.input).pipe(Layer.provideMerge(LspService.layer)))
              const base = Context.get(host, LspService.LspService)
              const view = Context.get(host, StdioStatus.StdioStatus)
              const prewarm = yield* Prewarm.make(
                base,
                loaded.config,
                !args.noPrewarm,
                Option.some(view.status),
                loaded.source._tag === "File"
              )
              const warming = Prewarm.afterQueries(base, prewarm)
              return {
                served: LspService.LspService.of({
                  registerProvider: base.registerProvider,
                  query: (request) => track(warming.query(request))
                }),
                status: view.status,
                memory: view.memory,
                placement: undefined,
                servers: Object.keys(loaded.config.servers).join(", ")
              }
            })
        })
        const options = {
          fingerprint: identity.fingerprint,
          version: identity.version,
          status: hosted.status,
          memory: hosted.memory,
          placement: hosted.placement,
          roots,
          maxQueriesPerClient: Option.getOrUndefined(args.maxClientQueries),
          maxRequestsPerClient: Option.getOrUndefined(args.maxClientRequests)
        }
        const server = yield* Layer.build(
          (transport._tag === "Socket"
            ? LspRemoteServer.layerSocket({ ...options, path: transport.path })
            : LspRemoteServer.layerHttp({
              ...options,
              host: transport.host,
              port: transport.port,
              token: transport.token,
              tls: transport.tls,
              allowPlaintext: args.allowPlaintext,
              handshakeTimeoutMs,
              maxPendingConnections: Option.getOrUndefined(args.maxPendingConnections),
              maxConnections: Option.getOrUndefined(args.maxConnections)
            }))
            .pipe(Layer.provide(Layer.succeed(LspService.LspService, hosted.served)))
        )
        const address = describeAddress(
          Context.get(server, LspRemoteServer.LspRemoteServer).address,
          transport._tag === "Http" && transport.tls !== undefined
        )
        if (transport._tag === "Http" && transport.tls === undefined && args.allowPlaintext) {
          yield* stderr(
            `lsp-seam serve: WARNING: --allow-plaintext: ${address} serves without TLS; the traffic and the ` +
              "token are unencrypted and anyone on the network path can read or replay them\n"
          )
        }
        const servers = hosted.servers
        const memory = hosted.memory === undefined ? undefined : yield* hosted.memory
        yield* stderr(
          `lsp-seam serve: listening on ${address} (pid ${process.pid}, version ${identity.version}, ` +
            `fingerprint ${identity.fingerprint}, servers: ${servers})\n` +
            `lsp-seam serve: serving ${
              roots === undefined ? "every workspace of this user" : `the roots ${roots.join(", ")}`
            }\n` +
            (memory === undefined ? "" : `lsp-seam serve: ${MemoryReport.budgetLine(memory)}\n`)
        )
        yield* Option.match(idle, {
          onNone: () => Effect.never,
          onSome: (tracker) =>
            Effect.zipRight(
              tracker.idle,
              stderr(
                `lsp-seam serve: no query for ${
                  Duration.format(Option.getOrThrow(idleTime))
                }; stopping the language servers\n`
              )
            )
        })
      }))
    })
).pipe(
  Command.withDescription(
    "Serve one host to any number of clients and workspaces, on a Unix socket (default: the per-user socket) " +
      "or, with --listen HOST:PORT and a token, over WebSocket."
  )
)
