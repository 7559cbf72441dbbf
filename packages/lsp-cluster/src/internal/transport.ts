/**
 * The socket transport between the runners and clients of an lsp-seam cluster, in place of
 * @effect/platform-node's plain `NodeClusterSocket`: the same RPC protocol (msgpack over a stream), over TCP or
 * TLS, and with a token, which both sides prove to each other (`handshake.ts`) before the protocol sees a byte: a
 * peer without the cluster's token gets nothing of the protocol, only a random challenge and a closed connection.
 */
import type * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as Runners from "@effect/cluster/Runners"
import * as NodeSocket from "@effect/platform-node/NodeSocket"
import * as Socket from "@effect/platform/Socket"
import * as SocketServer from "@effect/platform/SocketServer"
import * as RpcClient from "@effect/rpc/RpcClient"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Net from "node:net"
import * as Tls from "node:tls"
import * as Handshake from "./handshake.js"

/** What a runner's listener and every connection of the cluster need to agree on. */
export interface Security {
  /** The cluster's shared secret; undefined for a tokenless (loopback-only) cluster. */
  readonly token: Redacted.Redacted<string> | undefined
  /** TLS to the runners: the PEM certificates to trust, or undefined for the system's. Undefined: plain TCP. */
  readonly tls: { readonly ca: string | undefined } | undefined
}

/** How long a connection may take to prove its token (and, with TLS, to complete its handshake). */
export const handshakeTimeout = Duration.seconds(10)

/**
 * How many connections may be in their TLS handshake or presenting their token at once (as `serve
 * --max-pending-connections`' default): one more closes the one waiting longest, so stalled peers cannot hold a
 * runner's sockets.
 */
export const maxUnadmitted = 64

/** Admits a connection that proves the token (any, for a tokenless runner); fails for any other. */
const admit = (conn: Net.Socket, token: Redacted.Redacted<string> | undefined): Effect.Effect<void, Error> =>
  token === undefined ? Effect.void : Handshake.accept(conn, token).pipe(
    Effect.timeoutFail({ duration: handshakeTimeout, onTimeout: () => new Error("no token in time") })
  )

/**
 * A runner's listener on `host:port`: TLS when `tls` holds a certificate and key, else TCP; every connection
 * must present `token` (when there is one) before it reaches the handler.
 */
export const makeServer = (options: {
  readonly host: string
  readonly port: number
  readonly token: Redacted.Redacted<string> | undefined
  readonly tls: { readonly cert: string; readonly key: string } | undefined
}): Effect.Effect<SocketServer.SocketServer["Type"], SocketServer.SocketServerError, Scope.Scope> =>
  Effect.gen(function*() {
    const failed = yield* Deferred.make<never, SocketServer.SocketServerError>()
    const accepted = yield* Queue.unbounded<Net.Socket>()
    const live = new Set<Net.Socket>()
    // Each peer's TCP connection from its arrival until admitted, in arrival order (a Map iterates so): the first
    // is the one waiting longest. Keyed by the peer's address and port, which its TLS socket reports too.
    const unadmitted = new Map<string, Net.Socket>()
    const peerOf = (conn: Net.Socket) => `${conn.remoteAddress}:${conn.remotePort}`
    const server = yield* Effect.acquireRelease(
      Effect.try({
        try: () =>
          options.tls === undefined
            ? Net.createServer()
            : Tls.createServer({
              cert: options.tls.cert,
              key: options.tls.key,
              minVersion: "TLSv1.2",
              handshakeTimeout: Duration.toMillis(handshakeTimeout)
            }),
        catch: (cause) => new SocketServer.SocketServerError({ reason: "Open", cause })
      }),
      (server) =>
        Effect.async<void>((resume) => {
          // close() waits for every connection: end them, admitted or not.
          for (const conn of live) conn.destroy()
          server.close(() => resume(Effect.void))
        })
    )
    // Every TCP connection (a TLS one before its handshake) counts against the cap until it is admitted.
    server.on("connection", (raw: Net.Socket) => {
      if (options.token === undefined && options.tls === undefined) return
      const peer = peerOf(raw)
      live.add(raw)
      unadmitted.set(peer, raw)
      // A TLS server times out a handshake only once it has begun: a peer that never says hello is closed here.
      const deadline = setTimeout(() => {
        if (unadmitted.get(peer) === raw) raw.destroy()
      }, Duration.toMillis(handshakeTimeout))
      raw.once("close", () => {
        clearTimeout(deadline)
        live.delete(raw)
        if (unadmitted.get(peer) === raw) unadmitted.delete(peer)
      })
      if (unadmitted.size > maxUnadmitted) {
        const [[oldestPeer, oldest]] = unadmitted
        unadmitted.delete(oldestPeer)
        oldest.destroy()
      }
    })
    server.on(options.tls === undefined ? "connection" : "secureConnection", (conn: Net.Socket) => {
      live.add(conn)
      conn.once("close", () => live.delete(conn))
      // Until the protocol listens, an error must not go unhandled (it would end the process); "close" follows.
      conn.on("error", () => {})
      Queue.unsafeOffer(accepted, conn)
    })
    yield* Effect.async<void, SocketServer.SocketServerError>((resume) => {
      const onError = (cause: Error) =>
        resume(Effect.fail(new SocketServer.SocketServerError({ reason: "Open", cause })))
      server.once("error", onError)
      server.listen({ host: options.host, port: options.port }, () => {
        server.off("error", onError)
        server.on(
          "error",
          (cause) =>
            Deferred.unsafeDone(failed, Exit.fail(new SocketServer.SocketServerError({ reason: "Unknown", cause })))
        )
        resume(Effect.void)
      })
    })

    const serve = <R, E, _>(conn: Net.Socket, handler: (socket: Socket.Socket) => Effect.Effect<_, E, R>) =>
      admit(conn, options.token).pipe(
        Effect.ensuring(Effect.sync(() => unadmitted.delete(peerOf(conn)))),
        Effect.tapError((error) =>
          Effect.logWarning(
            `lsp-seam runner: refused a connection from ${conn.remoteAddress}:${conn.remotePort}: ${error.message}`
          )
        ),
        Effect.flatMap(() =>
          NodeSocket.fromDuplex(Effect.acquireRelease(
            conn.destroyed
              ? Effect.fail(new Socket.SocketCloseError({ reason: "Close", code: 1000 }))
              : Effect.succeed(conn),
            (conn) => Effect.sync(() => conn.destroySoon())
          ))
        ),
        Effect.flatMap(handler),
        Effect.catchAllCause((cause) => Effect.logDebug("lsp-seam runner: a connection ended", cause)),
        Effect.ensuring(Effect.sync(() => conn.destroy()))
      )

    const run = <R, E, _>(handler: (socket: Socket.Socket) => Effect.Effect<_, E, R>) =>
      Effect.scoped(Effect.gen(function*() {
        const connections = yield* FiberSet.make()
        const fork = yield* FiberSet.runtime(connections)<R>()
        return yield* Effect.forever(
          Effect.flatMap(Queue.take(accepted), (conn) => Effect.sync(() => fork(serve(conn, handler))))
        )
      })).pipe(Effect.raceFirst(Deferred.await(failed)))

    const address = server.address()
    return SocketServer.SocketServer.of({
      address: typeof address === "object" && address !== null
        ? { _tag: "TcpAddress", hostname: address.address, port: address.port }
        : { _tag: "TcpAddress", hostname: options.host, port: options.port },
      run
    })
  })

/** A request of the runners' own protocol (@effect/cluster's `Ping`), as the msgpack serialization frames it. */
export const pingRequest = (): Uint8Array => {
  const encoded = RpcSerialization.msgPack.unsafeMake().encode({
    _tag: "Request",
    id: "1",
    tag: "Ping",
    payload: null,
    headers: []
  })
  return typeof encoded === "string" ? Buffer.from(encoded, "utf8") : encoded ?? new Uint8Array()
}

/**
 * How a runner at `address` takes this side's token and TLS setting: it answers a ping after the token handshake
 * ("admitted"), or it closes the connection, fails the TLS handshake or does not prove the token back ("refused":
 * another token or TLS setting), or it cannot be reached or does not answer in time ("unreachable": gone, or
 * busy; no verdict).
 */
export const probe = (
  address: RunnerAddress.RunnerAddress,
  security: Security,
  timeout: Duration.DurationInput = Duration.seconds(3)
): Effect.Effect<"admitted" | "refused" | "unreachable"> =>
  Effect.scoped(Effect.gen(function*() {
    const conn = yield* Effect.acquireRelease(
      Effect.sync(() => dial(address, security)),
      (conn) => Effect.sync(() => conn.destroy())
    )
    conn.on("error", () => {})
    let connected = false
    conn.once("connect", () => (connected = true))
    const opened = yield* Effect.async<boolean>((resume) => {
      conn.once(security.tls === undefined ? "connect" : "secureConnect", () => resume(Effect.succeed(true)))
      conn.once("close", () => resume(Effect.succeed(false)))
    })
    if (!opened) return connected ? "refused" : "unreachable"
    if (security.token !== undefined) {
      const proven = yield* Effect.orElseSucceed(Effect.as(Handshake.initiate(conn, security.token), true), () => false)
      if (!proven) return "refused"
    }
    conn.write(pingRequest())
    return yield* Effect.async<"admitted" | "refused">((resume) => {
      conn.once("data", () => resume(Effect.succeed("admitted")))
      conn.once("close", () => resume(Effect.succeed("refused")))
    })
  })).pipe(Effect.timeoutTo({ duration: timeout, onTimeout: () => "unreachable" as const, onSuccess: (v) => v }))

/** A TCP or TLS connection to a runner, being opened. */
const dial = (address: RunnerAddress.RunnerAddress, security: Security): Net.Socket =>
  security.tls === undefined
    ? Net.connect({ host: address.host, port: address.port })
    : Tls.connect({
      host: address.host,
      port: address.port,
      ca: security.tls.ca,
      // A name is checked against the certificate's DNS names; an IP address against its IP addresses.
      servername: Net.isIP(address.host) === 0 ? address.host : undefined,
      minVersion: "TLSv1.2"
    })

/** Opens a connection to a runner and proves the token (the runner proving it back); closed with the scope. */
const connect = (
  address: RunnerAddress.RunnerAddress,
  security: Security
): Effect.Effect<Net.Socket, Socket.SocketError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<Net.Socket, Socket.SocketError>((resume) => {
      const conn = dial(address, security)
      conn.on("error", (cause) => resume(Effect.fail(new Socket.SocketGenericError({ reason: "Open", cause }))))
      conn.once(security.tls === undefined ? "connect" : "secureConnect", () => resume(Effect.succeed(conn)))
      return Effect.sync(() => conn.destroy())
    }).pipe(Effect.tap((conn) =>
      security.token === undefined ? Effect.void : Handshake.initiate(conn, security.token).pipe(
        Effect.timeoutFail({ duration: handshakeTimeout, onTimeout: () => new Error("no proof of the token in time") }),
        Effect.mapError((cause) => new Socket.SocketGenericError({ reason: "Open", cause })),
        Effect.onError(() => Effect.sync(() => conn.destroy()))
      )
    )),
    (conn) =>
      Effect.sync(() => conn.destroySoon())
  )

/** The protocol a runner and a client use to reach runners, over `connect`. */
export const layerClientProtocol = (
  security: Security
): Layer.Layer<Runners.RpcClientProtocol, never, RpcSerialization.RpcSerialization> =>
  Layer.effect(
    Runners.RpcClientProtocol,
    Effect.map(RpcSerialization.RpcSerialization, (serialization) => (address: RunnerAddress.RunnerAddress) =>
      Effect.flatMap(
        NodeSocket.fromDuplex(connect(address, security), { openTimeout: Duration.seconds(2) }),
        (socket) =>
          RpcClient.makeProtocolSocket().pipe(
            Effect.provideService(Socket.Socket, socket),
            Effect.provideService(RpcSerialization.RpcSerialization, serialization)
          )
      ))
  )

/** A runner's listener as the `SocketServer` @effect/cluster's socket runner serves on. */
export const layerServer = (
  options: Parameters<typeof makeServer>[0]
): Layer.Layer<SocketServer.SocketServer, SocketServer.SocketServerError> =>
  Layer.scoped(SocketServer.SocketServer, makeServer(options))
