// A WebSocket client by hand, for the tests that must send what a well-behaved client never would (no token,
// a browser's Origin, oversized or malformed messages) or vanish mid-query.
import { Effect } from "effect"
import type { Scope } from "effect"
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import type * as Net from "node:net"

export type Upgraded =
  | { readonly _tag: "Upgraded"; readonly socket: Net.Socket; readonly protocol: string | undefined }
  | { readonly _tag: "Refused"; readonly status: number }

/** Sends an upgrade request to the host's endpoint; the socket (if any) is destroyed with the scope. */
export const upgrade = (
  port: number,
  headers: Readonly<Record<string, string>>
): Effect.Effect<Upgraded, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<Upgraded>((resume) => {
      const request = Http.request({
        host: "127.0.0.1",
        port,
        path: "/lsp-seam",
        headers: {
          Connection: "Upgrade",
          Upgrade: "websocket",
          "Sec-WebSocket-Version": "13",
          "Sec-WebSocket-Key": Crypto.randomBytes(16).toString("base64"),
          ...headers
        }
      })
      request.once("upgrade", (response, socket) => {
        const protocol = response.headers["sec-websocket-protocol"]
        resume(Effect.succeed({ _tag: "Upgraded", socket, protocol }))
      })
      request.once("response", (response) => {
        response.resume()
        resume(Effect.succeed({ _tag: "Refused", status: response.statusCode ?? 0 }))
      })
      request.once("error", () => resume(Effect.succeed({ _tag: "Refused", status: 0 })))
      request.end()
    }),
    (upgraded) => Effect.sync(() => upgraded._tag === "Upgraded" && upgraded.socket.destroy())
  )

/** One masked text frame, as a client must send it. */
export const textFrame = (payload: string | Buffer): Buffer => {
  const data = typeof payload === "string" ? Buffer.from(payload, "utf8") : payload
  const mask = Crypto.randomBytes(4)
  const header = data.length < 126
    ? Buffer.from([0x81, 0x80 | data.length])
    : data.length < 65536
    ? Buffer.from([0x81, 0x80 | 126, data.length >> 8, data.length & 0xff])
    : Buffer.concat([
      Buffer.from([0x81, 0x80 | 127]),
      Buffer.from(new BigUint64Array([BigInt(data.length)]).buffer).reverse()
    ])
  const masked = Buffer.alloc(data.length)
  for (let i = 0; i < data.length; i++) masked[i] = data[i]! ^ mask[i % 4]!
  return Buffer.concat([header, mask, masked])
}

/** Resolves when the peer closes `socket`. */
export const untilClosed = (socket: Net.Socket): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    if (socket.destroyed) return resume(Effect.void)
    socket.on("data", () => {})
    socket.on("error", () => {})
    socket.once("close", () => resume(Effect.void))
  })
