/**
 * Serves the `LspService` in context to remote clients over `@effect/rpc`: on a private Unix domain socket
 * (the default) or on a WebSocket endpoint guarded by a bearer token. Every request is checked before the
 * RPC server decodes it (size, UTF-8, JSON, message shape) and Schema-validated by it; a query whose
 * workspace or file is outside the served roots (`ServeOptions.roots`) is refused (`LSP_REMOTE_FORBIDDEN`);
 * queries then run through the served `LspService` exactly as local ones do, so its workspace containment
 * rules apply unchanged, under the caller's deadline when the client sends one (`LspRpc.budgetHeader`).
 * Interrupting a client's call, or losing the client, interrupts the handler's fiber.
 *
 * @since 0.1.0
 */
import * as NodeSocketServer from "@effect/platform-node/NodeSocketServer"
import * as Headers from "@effect/platform/Headers"
import type * as SocketServer from "@effect/platform/SocketServer"
import { LspDeadline, LspError, type LspQuery, LspService } from "@lsp-seam/lsp"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Path from "node:path"
import * as CertificateValidity from "./internal/certificateValidity.js"
import * as ClientLimit from "./internal/clientLimit.js"
import * as RpcListener from "./internal/rpcListener.js"
import * as ServedRoots from "./internal/servedRoots.js"
import * as SocketFile from "./internal/socketFile.js"
import * as WebSocketListener from "./internal/webSocketListener.js"
import * as LspRemoteAddress from "./LspRemoteAddress.js"
import * as LspRemoteAuth from "./LspRemoteAuth.js"
import * as LspRemoteDirectory from "./LspRemoteDirectory.js"
import * as LspRpc from "./LspRpc.js"

/**
 * What every transport accepts.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServeOptions {
  /** The largest request line, in bytes (default 1 MiB). A larger one closes the connection. */
  readonly maxRequestBytes?: number | undefined
  /** The version `Hello` reports (default `LspRpc.version`). */
  readonly version?: string | undefined
  /** The configuration fingerprint `Hello` reports (default `""`): the launcher's digest of its config. */
  readonly fingerprint?: string | undefined
  /**
   * The host's status view for `Status` (for the stdio host: `StdioStatus.status`). Without one, `Status`
   * fails with `LSP_UNSUPPORTED_OPERATION`.
   */
  readonly status?: Effect.Effect<ReadonlyArray<LspRpc.ServerStatus>, LspError.LspConfigurationError> | undefined
  /**
   * The host's memory view for `Memory` (for the stdio host: `StdioStatus.memory`). Without one, `Memory`
   * fails with `LSP_UNSUPPORTED_OPERATION` and `Hello` says `memoryAvailable: false`.
   *
   * @since 0.1.0
   */
  readonly memory?: Effect.Effect<LspRpc.MemoryStatus, LspError.LspConfigurationError> | undefined
  /**
   * A cluster front's placement view for `Placement`. Without one, `Placement` fails with
   * `LSP_UNSUPPORTED_OPERATION` and `Hello` does not say `placementAvailable`.
   *
   * @since 0.1.0
   */
  readonly placement?: Effect.Effect<LspRpc.ClusterPlacement, LspError.LspConfigurationError> | undefined
  /**
   * The directories this host serves at all (each must be an existing directory; symbolic links are resolved
   * when the Layer is built). A query whose workspace, after resolving `..` and symbolic links, is not inside
   * one of them is refused with `LSP_REMOTE_FORBIDDEN` before the served `LspService` sees it, and runs with
   * that canonical workspace otherwise. So is a query whose file (relative to that workspace, or absolute) is
   * not inside one of them as written, or once resolved. Without it, every workspace is served.
   *
   * @since 0.1.0
   */
  readonly roots?: ReadonlyArray<string> | undefined
  /**
   * How many queries one connection may have running at once (default 8); its further queries wait for one
   * of them to end.
   *
   * @since 0.1.0
   */
  readonly maxQueriesPerClient?: number | undefined
  /**
   * How many requests of any kind (`Query`, `Status`, `Memory`, `Hello`) one connection may have unanswered
   * (default `defaultMaxRequestsPerClient`); an answer counts once the OS has taken it. Later requests wait in
   * order, and while as many wait the host stops reading that connection until one is answered.
   *
   * @since 0.1.0
   */
  readonly maxRequestsPerClient?: number | undefined
  /**
   * How many bytes of answers one connection may leave unread (written by the host, not yet taken by the OS)
   * before the host stops reading it (default `defaultMaxUnreadBytesPerClient`); it reads on once they are taken.
   *
   * @since 0.1.0
   */
  readonly maxUnreadBytesPerClient?: number | undefined
  /**
   * How long a connection may stay in the middle of a frame (a WebSocket frame, or a request line, begun and
   * not completed) without completing a request before it is closed (WebSocket close code 1008). Default: the
   * WebSocket transport's `handshakeTimeoutMs`, else `defaultHandshakeTimeoutMs`. A connection idle between
   * whole frames is never closed for it.
   *
   * @since 0.1.0
   */
  readonly frameTimeoutMs?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface LspRemoteServerShape {
  /** Where the server listens (for TCP, the port actually bound, also when 0 was asked for). */
  readonly address: SocketServer.Address
}

/**
 * A running remote host, available while its Layer is.
 *
 * @since 0.1.0
 * @category tags
 */
export class LspRemoteServer
  extends Context.Tag("@lsp-seam/lsp-remote/LspRemoteServer")<LspRemoteServer, LspRemoteServerShape>()
{}

/**
 * The default request limit: 1 MiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxRequestBytes = 1024 * 1024

const budgetOf = (headers: Headers.Headers): Option.Option<number> =>
  Option.flatMap(Headers.get(headers, LspRpc.budgetHeader), (text) => {
    const budgetMs = /^[0-9]{1,10}$/.test(text) ? Number(text) : Number.NaN
    return budgetMs <= 2_147_483_647 ? Option.some(budgetMs) : Option.none()
  })

/**
 * The default number of queries one connection may have running at once.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxQueriesPerClient = 8

/**
 * The default number of requests one connection may have unanswered.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxRequestsPerClient = 32

/**
 * The default number of answer bytes one connection may leave unread: 4 MiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxUnreadBytesPerClient = 4 * 1024 * 1024

/**
 * Served roots as a host checks them: each an existing directory, by its canonical path; anything else fails
 * with `LSP_INVALID_CONFIG` naming the root. For a host of another kind (a cluster runner) to refuse bad roots
 * when it starts, as `serve` does.
 *
 * @since 0.1.0
 * @category utils
 */
export const resolveRoots: (
  roots: ReadonlyArray<string>
) => Effect.Effect<ReadonlyArray<string>, LspError.LspConfigurationError> = ServedRoots.resolveRoots

/**
 * Fails with `LSP_INVALID_CONFIG` when the (first) certificate of the PEM text `cert` has expired or is not valid
 * yet, naming `flag` and the date, as `layerHttp` refuses its own: for a host of another kind (a cluster runner)
 * to refuse such a certificate when it starts rather than let every peer fail its handshake. A text that is not a
 * certificate passes (the TLS layer names it).
 *
 * @since 0.1.0
 * @category utils
 */
export const checkCertificate: (cert: string, flag: string) => Effect.Effect<void, LspError.LspConfigurationError> =
  CertificateValidity.check

/**
 * The handlers of `LspRpc.LspRpcs` for the `LspService` in context, as values: what `layerHandlers` serves,
 * for a server of another kind (a cluster entity) to answer exactly as a remote host does.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeHandlers = (options: ServeOptions = {}) =>
  Effect.gen(function*() {
    const service = yield* LspService.LspService
    const status = options.status
    const roots = options.roots === undefined ? undefined : yield* ServedRoots.resolveRoots(options.roots)
    const hello: LspRpc.HelloResponse = {
      protocolRevision: LspRpc.protocolRevision,
      version: options.version ?? LspRpc.version,
      fingerprint: options.fingerprint ?? "",
      pid: process.pid,
      statusAvailable: status !== undefined,
      ...(roots === undefined ? {} : { roots }),
      memoryAvailable: options.memory !== undefined,
      // Only a cluster's front has one: other hosts greet as before.
      ...(options.placement === undefined ? {} : { placementAvailable: true })
    }
    const perClient = yield* ClientLimit.make(options.maxQueriesPerClient ?? defaultMaxQueriesPerClient)
    // Decided before the service sees the query: no server starts and no file is read for a refused one.
    const admitted = (request: LspQuery.LspQueryRequest) =>
      roots === undefined
        ? Effect.succeed(request)
        : Effect.flatMap(ServedRoots.admit(roots, request.workspaceRoot), (workspaceRoot) =>
          Effect.as(
            "filePath" in request && request.filePath !== undefined
              ? ServedRoots.admitFile(roots, workspaceRoot, request.filePath)
              : Effect.void,
            { ...request, workspaceRoot }
          ))
    return LspRpc.LspRpcs.of({
      Hello: () => Effect.succeed(hello),
      Query: (request, { clientId, headers }) =>
        Effect.flatMap(admitted(request), (query) =>
          Option.match(budgetOf(headers), {
            onNone: () => perClient(clientId, service.query(query)),
            onSome: (budgetMs) => LspDeadline.within(budgetMs)(perClient(clientId, service.query(query)))
          })),
      Status: () => status ?? LspError.unsupportedOperation("This lsp-seam host was started without a status view."),
      Memory: () =>
        options.memory ?? LspError.unsupportedOperation("This lsp-seam host was started without a memory view."),
      Placement: () =>
        options.placement ?? LspError.unsupportedOperation("This lsp-seam host is not a cluster's front.")
    })
  })

/**
 * The handlers of `LspRpc.LspRpcs` for the `LspService` in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHandlers = (options: ServeOptions = {}) => LspRpc.LspRpcs.toLayer(makeHandlers(options))

const checkLimit = (maxRequestBytes: number | undefined): Effect.Effect<number, LspError.LspConfigurationError> => {
  const limit = maxRequestBytes ?? defaultMaxRequestBytes
  return Number.isSafeInteger(limit) && limit >= 1024
    ? Effect.succeed(limit)
    : LspError.invalidConfig(`maxRequestBytes must be an integer of at least 1024 (got ${limit}).`)
}

const positive = RpcListener.positive

const serveOn = (
  server: SocketServer.SocketServer["Type"],
  options: ServeOptions,
  maxRequestBytes: number,
  defaultFrameTimeoutMs: number
): Effect.Effect<LspRemoteServerShape, LspError.LspConfigurationError, LspService.LspService | Scope.Scope> =>
  Effect.gen(function*() {
    const frameTimeoutMs = yield* positive("frameTimeoutMs", options.frameTimeoutMs ?? defaultFrameTimeoutMs)
    const maxRequests = options.maxRequestsPerClient ?? defaultMaxRequestsPerClient
    const maxUnreadBytes = options.maxUnreadBytesPerClient ?? defaultMaxUnreadBytesPerClient
    const bounds = {
      maxRequests: yield* positive("maxRequestsPerClient", maxRequests),
      maxUnreadBytes: yield* positive("maxUnreadBytesPerClient", maxUnreadBytes)
    }
    yield* RpcListener.serve(server, layerHandlers(options), { maxRequestBytes, frameTimeoutMs, bounds })
    return { address: server.address }
  })

/**
 * Options of the Unix socket transport.
 *
 * @since 0.1.0
 * @category models
 */
export interface SocketOptions extends ServeOptions {
  /** The socket (default `LspRemoteAddress.defaultSocketPath()`). */
  readonly path?: string | undefined
}

/**
 * Serves the `LspService` in context on a Unix domain socket. The socket's directory is created with mode
 * 0700 when missing and refused (`LSP_INVALID_CONFIG`) when it is a symlink, belongs to another user (root
 * aside) or is writable by others without the sticky bit; a stale socket is removed only when nothing answers
 * on it (a live one is `LSP_CONFLICT`); the socket is 0600 from the moment it can be reached (made in a
 * private directory and linked into place) and removed when the Layer is released.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSocket = (
  options: SocketOptions = {}
): Layer.Layer<LspRemoteServer, LspError.LspConfigurationError, LspService.LspService> =>
  Layer.scoped(
    LspRemoteServer,
    Effect.gen(function*() {
      const maxRequestBytes = yield* checkLimit(options.maxRequestBytes)
      const path = Path.resolve(options.path ?? LspRemoteAddress.defaultSocketPath())
      yield* LspRemoteDirectory.ensure(SocketFile.directoryOf(path))
      yield* SocketFile.clearStaleSocket(path)
      const server = yield* SocketFile.bindPrivately(path, (temporary) =>
        NodeSocketServer.make({ path: temporary }).pipe(
          Effect.mapError(RpcListener.listenError(`the socket "${path}"`))
        ))
      yield* SocketFile.removeOnClose(path)
      const served = yield* serveOn(server, options, maxRequestBytes, defaultHandshakeTimeoutMs)
      return { ...served, address: { _tag: "UnixAddress", path } }
    })
  )

/**
 * Options of the WebSocket transport.
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpOptions extends ServeOptions {
  /** The interface to bind (default `127.0.0.1`; anything else exposes the host to the network). */
  readonly host?: string | undefined
  /** The TCP port; 0 picks a free one (read it from `LspRemoteServer.address`). */
  readonly port: number
  /** The bearer token every connection must present (see `LspRemoteAuth`). */
  readonly token: Redacted.Redacted<string>
  /**
   * Serve HTTPS (`wss://`) with this PEM certificate chain and key.
   *
   * @since 0.1.0
   */
  readonly tls?: { readonly cert: string; readonly key: string } | undefined
  /**
   * How long a connection may take, from its TCP accept to its accepted upgrade (TLS, headers and token), before
   * it is closed (default `defaultHandshakeTimeoutMs`).
   *
   * @since 0.1.0
   */
  readonly handshakeTimeoutMs?: number | undefined
  /**
   * How many connections may be in that phase at once (default `defaultMaxPendingConnections`); one more
   * closes the one that has waited longest.
   *
   * @since 0.1.0
   */
  readonly maxPendingConnections?: number | undefined
  /**
   * How many connections that presented the token may be open at once (default `defaultMaxConnections`); one
   * more is answered `503 Service Unavailable` instead of upgraded, which the client reports as
   * `LSP_REMOTE_UNAVAILABLE` naming the limit.
   *
   * @since 0.1.0
   */
  readonly maxConnections?: number | undefined
  /**
   * Listen on an address other machines can reach without `tls` (the token and every answer then cross the
   * network in clear). Without it, such an address is refused with `LSP_INVALID_CONFIG`.
   *
   * @since 0.1.0
   */
  readonly allowPlaintext?: boolean | undefined
}

/**
 * The default time a TCP connection has to complete its upgrade and authentication: 10 s.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultHandshakeTimeoutMs = 10_000

/**
 * The default number of connections that may be completing their upgrade at once.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxPendingConnections = 64

/**
 * The default number of token holders' connections open at once.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxConnections = 128

/**
 * Serves the `LspService` in context as WebSocket RPC on `ws://host:port/lsp-seam` (`wss://` with `tls`). An
 * address other machines can reach needs `tls` or `allowPlaintext`. Before any upgrade the
 * request must carry the bearer token, as `Authorization: Bearer <token>` or as the subprotocol
 * `lsp-seam.bearer.<token>` (compared in constant time); otherwise it is answered 401 (403 when it comes
 * from a browser, which sends an `Origin`). WebSocket messages over `maxRequestBytes` are refused by the
 * WebSocket layer before they are buffered.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttp = (
  options: HttpOptions
): Layer.Layer<LspRemoteServer, LspError.LspConfigurationError, LspService.LspService> =>
  Layer.scoped(
    LspRemoteServer,
    Effect.gen(function*() {
      const maxRequestBytes = yield* checkLimit(options.maxRequestBytes)
      const host = options.host ?? "127.0.0.1"
      if (options.tls === undefined && options.allowPlaintext !== true && !LspRemoteAddress.isLoopback(host)) {
        return yield* LspError.invalidConfig(
          `Refusing to listen on ${host}:${options.port} without TLS: other machines can reach it, and the ` +
            "token and every answer would cross the network in clear. Give a certificate and key (tls), " +
            "or allowPlaintext to accept that.",
          { address: `${host}:${options.port}` }
        )
      }
      if (options.tls !== undefined) yield* CertificateValidity.check(options.tls.cert, "--tls-cert")
      const handshakeTimeoutMs = yield* positive(
        "handshakeTimeoutMs",
        options.handshakeTimeoutMs ?? defaultHandshakeTimeoutMs
      )
      const maxPendingConnections = yield* positive(
        "maxPendingConnections",
        options.maxPendingConnections ?? defaultMaxPendingConnections
      )
      const maxConnections = yield* positive(
        "maxConnections",
        options.maxConnections ?? defaultMaxConnections
      )
      const { server } = yield* WebSocketListener.make({
        host,
        port: options.port,
        tls: options.tls,
        handshakeTimeoutMs,
        maxPendingConnections,
        maxConnections,
        verifyClient: WebSocketListener.verifyClient(options.token),
        webSocket: {
          path: LspRemoteAddress.webSocketPath,
          maxPayload: maxRequestBytes,
          perMessageDeflate: false,
          handleProtocols: (protocols: ReadonlySet<string>) =>
            protocols.has(LspRemoteAuth.subprotocol) ? LspRemoteAuth.subprotocol : false
        }
      }).pipe(Effect.mapError(RpcListener.listenError(`${host}:${options.port}`)))
      return yield* serveOn(server, options, maxRequestBytes, handshakeTimeoutMs)
    })
  )
