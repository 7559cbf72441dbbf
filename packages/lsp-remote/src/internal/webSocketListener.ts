/**
 * The TCP listener of the WebSocket transport: an HTTP or HTTPS server the host owns (so it decides on TLS,
 * on how long a connection may take to be accepted, and on how many may be waiting), with the WebSocket
 * endpoint of `@effect/platform-node` attached to it.
 */
import * as NodeSocketServer from "@effect/platform-node/NodeSocketServer"
import type * as SocketServer from "@effect/platform/SocketServer"
import * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Http from "node:http"
import * as Https from "node:https"
import * as Net from "node:net"
import * as LspRemoteAuth from "../LspRemoteAuth.js"

export interface ListenerOptions {
  readonly host: string
  readonly port: number
  /** PEM certificate chain and key: serve HTTPS (`wss://`). */
  readonly tls?: { readonly cert: string; readonly key: string } | undefined
  /**
   * The WebSocket endpoint's options (path, limits, protocols). Its `verifyClient` is given the request and
   * says whether to accept it; an accepted connection is no longer counted as waiting.
   */
  readonly webSocket: Record<string, unknown>
  readonly verifyClient: (
    info: { readonly req: Http.IncomingMessage },
    done: (verified: boolean, code?: number, message?: string) => void
  ) => void
  /** How long a connection may take from its TCP accept to an accepted upgrade before it is closed. */
  readonly handshakeTimeoutMs: number
  /** How many connections may wait for that at once; a new one beyond it closes the one waiting longest. */
  readonly maxPendingConnections: number
  /** How many accepted connections may be open at once; one more is answered 503 instead of upgraded. */
  readonly maxConnections: number
}

/**
 * Connections that have not yet had their upgrade accepted (TLS, HTTP headers and token included), oldest
 * first. Each is closed when its time is up; past the cap, the oldest goes first, so a flood of stalled
 * connections cannot keep a client that completes its handshake in milliseconds out.
 */
const makePending = (handshakeTimeoutMs: number, maxPendingConnections: number) => {
  const waiting = new Map<Net.Socket, ReturnType<typeof setTimeout>>()
  const settle = (socket: Net.Socket) => {
    const timer = waiting.get(socket)
    if (timer === undefined) return
    clearTimeout(timer)
    waiting.delete(socket)
  }
  return {
    /** A new TCP connection: it has `handshakeTimeoutMs` to be accepted. */
    add: (socket: Net.Socket) => {
      while (waiting.size >= maxPendingConnections) {
        const [oldest] = waiting.keys()
        settle(oldest!)
        oldest!.destroy()
      }
      const timer = setTimeout(() => {
        waiting.delete(socket)
        socket.destroy()
      }, handshakeTimeoutMs)
      timer.unref()
      waiting.set(socket, timer)
      socket.once("close", () => settle(socket))
    },
    /** Its upgrade was accepted: it may stay. */
    accept: settle,
    clear: () => {
      for (const timer of waiting.values()) clearTimeout(timer)
      waiting.clear()
    }
  }
}

// The TCP connection under a request's socket (for HTTPS, the TLS socket wraps it).
const rawSocket = (socket: Net.Socket): Net.Socket => {
  const parent: unknown = Reflect.get(socket, "_parent")
  return parent instanceof Net.Socket ? parent : socket
}

/**
 * A WebSocket server on a fresh HTTP(S) server. The endpoint subscribes to the server's `listening` event
 * when it is made, so the server starts listening only once it has: its errors (an address in use) are the
 * endpoint's. Every connection is destroyed when the scope closes.
 */
export const make = (
  options: ListenerOptions
): Effect.Effect<
  { readonly server: SocketServer.SocketServer["Type"]; readonly http: Http.Server },
  SocketServer.SocketServerError,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const http: Http.Server = options.tls === undefined
      ? Http.createServer()
      : Https.createServer({
        cert: options.tls.cert,
        key: options.tls.key,
        handshakeTimeout: options.handshakeTimeoutMs
      })
    const connections = new Set<Net.Socket>()
    const pending = makePending(options.handshakeTimeoutMs, options.maxPendingConnections)
    http.on("connection", (socket: Net.Socket) => {
      connections.add(socket)
      socket.once("close", () => connections.delete(socket))
      pending.add(socket)
    })
    // Only upgrades are served: anything else is told so, and the connection closed.
    http.on("request", (_request: Http.IncomingMessage, response: Http.ServerResponse) => {
      response.writeHead(426, { Connection: "close", Upgrade: "websocket" }).end()
    })
    // Errors of single connections (a reset, a TLS client that gives up) concern that connection only.
    http.on("clientError", (_error: Error, socket: Net.Socket) => {
      // Answered as Node would: a TLS client that reached this plaintext port reads it as "not TLS".
      if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")
      else socket.destroy()
    })
    http.on("tlsClientError", (_error: Error, socket: Net.Socket) => socket.destroy())
    yield* Effect.addFinalizer(() =>
      Effect.async<void>((resume) => {
        pending.clear()
        http.close(() => resume(Effect.void))
        for (const socket of connections) socket.destroy()
      })
    )
    yield* Effect.forkScoped(Effect.gen(function*() {
      while (http.listenerCount("listening") === 0) yield* Effect.yieldNow()
      http.listen(options.port, options.host)
    }))
    // The connections whose upgrade was accepted, until they close.
    const admitted = new Set<Net.Socket>()
    const server = yield* NodeSocketServer.makeWebSocket({
      ...options.webSocket,
      server: http,
      verifyClient: (
        info: { readonly req: Http.IncomingMessage },
        done: (verified: boolean, code?: number, message?: string) => void
      ) =>
        options.verifyClient(info, (verified, code, message) => {
          if (!verified) return done(verified, code, message)
          const socket = rawSocket(info.req.socket)
          pending.accept(socket)
          // Only a client with the token learns that the host is full; the others were answered above.
          if (admitted.size >= options.maxConnections) return done(false, 503, "Service Unavailable")
          admitted.add(socket)
          socket.once("close", () => admitted.delete(socket))
          done(true)
        })
    })
    return { server, http }
  })

// ws calls `verifyClient` before it completes the upgrade: a refused client gets an HTTP status and never a
// WebSocket, so not one byte of it reaches the RPC protocol.
export const verifyClient = (token: Redacted.Redacted<string>) =>
(
  info: { readonly req: Http.IncomingMessage },
  done: (verified: boolean, code?: number, message?: string) => void
): void => {
  const headers = info.req.headers
  if (headers.origin !== undefined) {
    // Browsers send an Origin; a web page has no business with a local lsp-seam host.
    return done(false, 403, "Forbidden")
  }
  if (!LspRemoteAuth.authorize(token, headers)) return done(false, 401, "Unauthorized")
  done(true)
}
