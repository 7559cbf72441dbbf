/**
 * Queries a remote lsp-seam host over `@effect/rpc`. `layer` provides an `LspService` whose `query` is
 * answered by the host; `layerProvider` instead registers the host as a provider of some extensions in a
 * local `LspService`. Interrupting a call interrupts it on the host (which cancels the language server's
 * request); a host that cannot be reached, or a connection lost mid-call, fails the call promptly with
 * `LSP_REMOTE_UNAVAILABLE` and never leaves it hanging. The client adds no timeout: the caller's budget
 * applies, and its deadline (`LspDeadline`) travels with the query so the host can use the time it has.
 *
 * @since 0.1.0
 */
import * as NodeSocket from "@effect/platform-node/NodeSocket"
import * as Socket from "@effect/platform/Socket"
import * as RpcClient from "@effect/rpc/RpcClient"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import { LspDeadline, LspDecode, LspError, LspProvider, LspQuery, LspService } from "@lsp-seam/lsp"
import type { LspResult } from "@lsp-seam/lsp"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import { mapRemote } from "./internal/clientErrors.js"
import { guardSerialization } from "./internal/hostGuard.js"
import * as SocketFile from "./internal/socketFile.js"
import * as WebSocketClient from "./internal/webSocketClient.js"
import * as LspRemoteAddress from "./LspRemoteAddress.js"
import * as LspRemoteAuth from "./LspRemoteAuth.js"
import * as LspRpc from "./LspRpc.js"

/**
 * How to reach a host.
 *
 * @since 0.1.0
 * @category models
 */
export type Transport =
  | { readonly _tag: "Socket"; readonly path: string }
  | {
    readonly _tag: "WebSocket"
    readonly url: string
    readonly token: Redacted.Redacted<string>
    /** PEM certificates to trust for a `wss://` host instead of the system's (a private CA). */
    readonly ca?: string | undefined
  }

/**
 * A host on a Unix domain socket (default `LspRemoteAddress.defaultSocketPath()`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const socket = (path: string = LspRemoteAddress.defaultSocketPath()): Transport => ({ _tag: "Socket", path })

/**
 * A host's WebSocket endpoint (see `LspRemoteAddress.webSocketUrl`) and the token it requires. A `wss://`
 * host's certificate must be signed by a CA the system trusts, or by `options.ca` (PEM) when given; the token
 * is sent only once the certificate is verified.
 *
 * @since 0.1.0
 * @category constructors
 */
export const webSocket = (
  url: string,
  token: Redacted.Redacted<string>,
  options: { readonly ca?: string | undefined } = {}
): Transport => ({
  _tag: "WebSocket",
  url,
  token,
  ...(options.ca === undefined ? {} : { ca: options.ca })
})

/**
 * @since 0.1.0
 * @category models
 */
export interface ClientOptions {
  readonly transport: Transport
  /**
   * How long opening a connection may take before the calls waiting for it fail (default 2000 ms). A host
   * that refuses connections (nothing listens) fails them at once.
   */
  readonly connectTimeoutMs?: number | undefined
  /** The largest response line accepted, in bytes (default 64 MiB). */
  readonly maxResponseBytes?: number | undefined
  /**
   * When given, the client greets the host (`Hello`) while its Layer is built and fails with
   * `LSP_REMOTE_INCOMPATIBLE` unless the host speaks this wire revision and reports these values (with
   * `LSP_REMOTE_UNAVAILABLE` when it cannot be reached). Without it, building never fails for want of a host.
   */
  readonly expect?: {
    readonly version?: string | undefined
    readonly fingerprint?: string | undefined
  } | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface LspRemoteClientShape {
  /** Where the host is, as shown in messages. */
  readonly address: string
  /** One seam query, answered by the host's `LspService`. */
  readonly query: (request: LspQuery.LspQueryRequest) => Effect.Effect<LspResult.LspQueryResult, LspError.LspError>
  /** The host's status view (`LSP_UNSUPPORTED_OPERATION` when it has none). */
  readonly status: Effect.Effect<ReadonlyArray<LspRpc.ServerStatus>, LspError.LspError>
  /**
   * The host's memory view; call it only when `hello` says `memoryAvailable` (`LSP_UNSUPPORTED_OPERATION`
   * when the host has none). Absent from clients that do not offer it.
   *
   * @since 0.1.0
   */
  readonly memory?: Effect.Effect<LspRpc.MemoryStatus, LspError.LspError>
  /**
   * A cluster front's placement view; call it only when `hello` says `placementAvailable`
   * (`LSP_UNSUPPORTED_OPERATION` on other hosts). Absent from clients that do not offer it.
   *
   * @since 0.1.0
   */
  readonly placement?: Effect.Effect<LspRpc.ClusterPlacement, LspError.LspError>
  /**
   * The host's version, configuration fingerprint and process. Fails with `LspRemoteError`: a host that is
   * unreachable or refuses the token, or one that fails the greeting (`LSP_REMOTE_INCOMPATIBLE`); a client that
   * restarts its host (the per-user daemon's) may also fail to start it (`LspConfigurationError`).
   */
  readonly hello: Effect.Effect<LspRpc.HelloResponse, LspError.LspConfigurationError | LspError.LspRemoteError>
}

/**
 * A connection to a remote host, available while its Layer is.
 *
 * @since 0.1.0
 * @category tags
 */
export class LspRemoteClient
  extends Context.Tag("@lsp-seam/lsp-remote/LspRemoteClient")<LspRemoteClient, LspRemoteClientShape>()
{}

/**
 * The default connect timeout, in milliseconds.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultConnectTimeoutMs = 2_000

/**
 * The default response limit: 64 MiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxResponseBytes = 64 * 1024 * 1024

/**
 * After a lost connection the client reconnects in the background, first after 50 ms, then backing off to at
 * most every 2 s. While it is disconnected, calls fail at once instead of waiting for the next attempt.
 *
 * @since 0.1.0
 * @category constants
 */
export const reconnectSchedule: Schedule.Schedule<unknown, unknown> = Schedule.exponential("50 millis", 2).pipe(
  Schedule.union(Schedule.spaced("2 seconds"))
)

const describe = (transport: Transport): string =>
  transport._tag === "Socket" ? `unix:${transport.path}` : transport.url

// Every connection (and reconnection) first checks who owns the socket file.
const ownedSocket = (socket: Socket.Socket, path: string): Socket.Socket => {
  const check = Effect.mapError(
    SocketFile.checkOwner(path),
    (cause) => new Socket.SocketGenericError({ reason: "Open", cause })
  )
  return Socket.Socket.of({
    [Socket.TypeId]: Socket.TypeId,
    run: (handler, options) => Effect.zipRight(check, socket.run(handler, options)),
    runRaw: (handler, options) => Effect.zipRight(check, socket.runRaw(handler, options)),
    writer: socket.writer
  })
}

/** The hosts already warned about: once per process, though a client reconnects and clients may share a host. */
const warnedInClear = new Set<string>()

/** A token about to cross the network unencrypted (`ws://` to a host other than loopback) is said once. */
const warnTokenInClear = (url: string): Effect.Effect<void> =>
  Effect.suspend(() => {
    const parsed = URL.canParse(url) ? new URL(url) : undefined
    if (
      parsed === undefined || (parsed.protocol !== "ws:" && parsed.protocol !== "http:") ||
      LspRemoteAddress.isLoopback(parsed.hostname) || warnedInClear.has(parsed.host)
    ) return Effect.void
    warnedInClear.add(parsed.host)
    return Effect.logWarning(
      `lsp-seam: WARNING: the token is sent in clear to ${parsed.host} (${parsed.protocol}//, not loopback): ` +
        "anyone on the network path can read it and use it. Serve the host with --tls-cert and use wss:// (https://)."
    )
  })

const openSocket = (transport: Transport, connectTimeoutMs: number): Effect.Effect<Socket.Socket> =>
  transport._tag === "Socket"
    ? Effect.map(
      Effect.orDie(NodeSocket.makeNet({ path: transport.path, openTimeout: Duration.millis(connectTimeoutMs) })),
      (socket) => ownedSocket(socket, transport.path)
    )
    : Effect.zipRight(
      warnTokenInClear(transport.url),
      Socket.makeWebSocket(transport.url, {
        openTimeout: Duration.millis(connectTimeoutMs),
        protocols: [
          LspRemoteAuth.subprotocol,
          `${LspRemoteAuth.bearerSubprotocolPrefix}${Redacted.value(transport.token)}`
        ]
      })
    ).pipe(Effect.provideService(Socket.WebSocketConstructor, WebSocketClient.constructor(transport.ca)))

const decodeRequest = LspDecode.decodeUnknownEither(LspQuery.LspQueryRequest)

const checkOptions = (options: ClientOptions): Effect.Effect<{
  readonly connectTimeoutMs: number
  readonly maxResponseBytes: number
}, LspError.LspConfigurationError> => {
  const connectTimeoutMs = options.connectTimeoutMs ?? defaultConnectTimeoutMs
  const maxResponseBytes = options.maxResponseBytes ?? defaultMaxResponseBytes
  if (!Number.isSafeInteger(connectTimeoutMs) || connectTimeoutMs < 1 || connectTimeoutMs > 2_147_483_647) {
    return LspError.invalidConfig(`connectTimeoutMs must be an integer from 1 to 2147483647 (got ${connectTimeoutMs}).`)
  }
  if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes < 1024) {
    return LspError.invalidConfig(`maxResponseBytes must be an integer of at least 1024 (got ${maxResponseBytes}).`)
  }
  return Effect.succeed({ connectTimeoutMs, maxResponseBytes })
}

const greet = (client: LspRemoteClientShape, expect: NonNullable<ClientOptions["expect"]>) =>
  Effect.gen(function*() {
    const hello = yield* client.hello
    const mismatches: Array<string> = []
    if (hello.protocolRevision !== LspRpc.protocolRevision) {
      mismatches.push(`wire revision ${hello.protocolRevision} (this client speaks ${LspRpc.protocolRevision})`)
    }
    if (expect.version !== undefined && hello.version !== expect.version) {
      mismatches.push(`version ${hello.version} (expected ${expect.version})`)
    }
    if (expect.fingerprint !== undefined && hello.fingerprint !== expect.fingerprint) {
      mismatches.push(`configuration fingerprint "${hello.fingerprint}" (expected "${expect.fingerprint}")`)
    }
    if (mismatches.length > 0) {
      return yield* LspError.remoteIncompatible(
        `The lsp-seam host at ${client.address} (pid ${hello.pid}) does not match this client: ${
          mismatches.join("; ")
        }.`,
        { address: client.address, pid: hello.pid, version: hello.version, fingerprint: hello.fingerprint }
      )
    }
  })

/**
 * Connects to a host for the lifetime of the scope. The connection is opened in the background (making a
 * client never fails for want of a host; its calls do) and re-opened after a loss, on `reconnectSchedule`.
 * Fails with `LSP_INVALID_CONFIG` for options out of range and, with `expect`, with the greeting's
 * `LspRemoteError` (`LSP_REMOTE_UNAVAILABLE`, `LSP_REMOTE_UNAUTHORIZED`, `LSP_REMOTE_INCOMPATIBLE`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: ClientOptions
): Effect.Effect<LspRemoteClientShape, LspError.LspConfigurationError | LspError.LspRemoteError, Scope.Scope> =>
  Effect.gen(function*() {
    const { connectTimeoutMs, maxResponseBytes } = yield* checkOptions(options)
    const address = describe(options.transport)
    const socket = yield* openSocket(options.transport, connectTimeoutMs)
    const protocol = yield* RpcClient.makeProtocolSocket({
      retryTransientErrors: false,
      retrySchedule: reconnectSchedule
    }).pipe(
      Effect.provideService(Socket.Socket, socket),
      Effect.provideService(
        RpcSerialization.RpcSerialization,
        guardSerialization(RpcSerialization.makeNdjson({ maxBufferSize: maxResponseBytes }))
      )
    )
    const rpc = yield* RpcClient.make(LspRpc.LspRpcs, { disableTracing: true }).pipe(
      Effect.provideService(RpcClient.Protocol, protocol)
    )
    const remote = mapRemote(address)
    const client: LspRemoteClientShape = {
      address,
      query: (input) =>
        Either.match(decodeRequest(input), {
          onLeft: (error) =>
            LspError.invalidArguments(
              `Invalid LSP query: ${ParseResult.TreeFormatter.formatErrorSync(error)}`
            ),
          onRight: (request) =>
            Effect.flatMap(LspDeadline.remaining, (remaining) =>
              remote(Option.match(remaining, {
                onNone: () => rpc.Query(request),
                onSome: (budgetMs) =>
                  rpc.Query(request, { headers: { [LspRpc.budgetHeader]: String(Math.floor(budgetMs)) } })
              })))
        }),
      status: Effect.suspend(() => remote(rpc.Status())),
      memory: Effect.suspend(() => remote(rpc.Memory())),
      placement: Effect.suspend(() => remote(rpc.Placement())),
      // A host answers Hello or is unreachable (LspRemoteError); one that fails it otherwise is not one this
      // client can use.
      hello: Effect.suspend(() => remote(rpc.Hello({ clientVersion: LspRpc.version }))).pipe(
        Effect.catchIf(LspError.isLspLocalError, (error) =>
          LspError.remoteIncompatible(
            `The lsp-seam host at ${address} failed the greeting (${error.code}: ${error.message}).`,
            { address, code: error.code }
          ))
      )
    }
    if (options.expect !== undefined) yield* greet(client, options.expect)
    return client
  })

const remoteService = (client: LspRemoteClientShape): LspService.LspServiceShape => ({
  registerProvider: (provider) =>
    LspError.invalidProvider(
      `Cannot register provider "${provider.id}": this LspService forwards every query to the remote ` +
        `lsp-seam host at ${client.address}. ` +
        "Register providers on that host, or build a local LspService and add the host to it with " +
        "LspRemoteClient.layerProvider.",
      { providerId: provider.id }
    ),
  query: client.query
})

/**
 * Provides an `LspService` answered entirely by the remote host (its routing, its providers), and the
 * `LspRemoteClient` behind it. `registerProvider` on that service fails with `LSP_INVALID_PROVIDER`: the
 * host owns the providers. Fails to build as `make` does.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: ClientOptions
): Layer.Layer<LspService.LspService | LspRemoteClient, LspError.LspConfigurationError | LspError.LspRemoteError> =>
  Layer.scopedContext(
    Effect.map(
      make(options),
      (client) => Context.make(LspRemoteClient, client).pipe(Context.add(LspService.LspService, remoteService(client)))
    )
  )

/**
 * Registers the remote host, for the lifetime of the Layer, as the provider `id` of the given extensions in
 * the local `LspService` (which must not already route them). Queries for those files are forwarded
 * without the local language id; the host routes them by its own configuration. Fails to build as `make` does,
 * or with the registration's error (`LspError.LspRegistrationError`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerProvider = (
  options: ClientOptions & {
    readonly id: string
    readonly extensionToLanguage: Readonly<Record<string, string>>
  }
): Layer.Layer<
  LspRemoteClient,
  LspError.LspConfigurationError | LspError.LspOperationError | LspError.LspRemoteError,
  LspService.LspService
> =>
  Layer.scoped(
    LspRemoteClient,
    Effect.gen(function*() {
      const client = yield* make(options)
      yield* LspService.registerProvider(LspProvider.make({
        id: options.id,
        extensionToLanguage: options.extensionToLanguage,
        // The request decoder drops the local `languageId`: the host routes by its own configuration.
        query: (query) => client.query(query)
      }))
      return client
    })
  )
