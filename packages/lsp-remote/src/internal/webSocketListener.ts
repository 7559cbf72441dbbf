/**
 * The TCP listener of the WebSocket transport: an HTTP or HTTPS server the host owns (so it decides on TLS,
 * on how long a connection may take to be accepted, and on how many may be waiting), with the WebSocket
 * endpoint of `@effect/platform-node` attached to it.
 */
import * as NodeSocketServer from "@effect/platform-node/NodeSocketServer"
import type * as SocketServer from "@effect/platform/SocketServer"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Http from "node:http"
import * as Https from "node:https"
import type * as Net from "node:net"

export interface ListenerOptions {
  readonly host: string
  readonly port: number
  /** PEM certificate chain and key: serve HTTPS (`wss://`). */
  readonly tls?: { readonly cert: string; readonly key: string } | undefined
  /** The WebSocket endpoint's options (path, limits, `verifyClient`, protocols). */
  readonly webSocket: Record<string, unknown>
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
      : Https.createServer({ cert: options.tls.cert, key: options.tls.key })
    const connections = new Set<Net.Socket>()
    http.on("connection", (socket: Net.Socket) => {
      connections.add(socket)
      socket.once("close", () => connections.delete(socket))
    })
    yield* Effect.addFinalizer(() =>
      Effect.async<void>((resume) => {
        http.close(() => resume(Effect.void))
        for (const socket of connections) socket.destroy()
      })
    )
    yield* Effect.forkScoped(Effect.gen(function*() {
      while (http.listenerCount("listening") === 0) yield* Effect.yieldNow()
      http.listen(options.port, options.host)
    }))
    const server = yield* NodeSocketServer.makeWebSocket({ ...options.webSocket, server: http })
    return { server, http }
  })
