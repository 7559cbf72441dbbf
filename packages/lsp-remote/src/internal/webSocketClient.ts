/**
 * The WebSocket the client opens: the `ws` implementation `@effect/platform-node` itself uses (found through
 * it, so it is always there), given the CA to trust for `wss://` when the caller names one. Certificates are
 * always verified: the upgrade request, and the token in it, is written only after the TLS handshake has
 * verified the host.
 */
import type * as Socket from "@effect/platform/Socket"
import type * as Context from "effect/Context"
import { createRequire } from "node:module"

type WebSocketClass = new(
  url: string,
  protocols: string | Array<string> | undefined,
  options: { readonly ca?: string; readonly perMessageDeflate: boolean }
) => globalThis.WebSocket

let loaded: WebSocketClass | undefined

const webSocketClass = (): WebSocketClass => {
  if (loaded === undefined) {
    const platform = createRequire(import.meta.url).resolve("@effect/platform-node/NodeSocket")
    const ws = createRequire(platform)("ws") as { readonly WebSocket: WebSocketClass }
    loaded = ws.WebSocket
  }
  return loaded
}

/** A `Socket.WebSocketConstructor` trusting `ca` (PEM) in place of the system's CAs when given. */
export const constructor =
  (ca: string | undefined): Context.Tag.Service<typeof Socket.WebSocketConstructor> => (url, protocols) => {
    const WebSocket = webSocketClass()
    return new WebSocket(url, protocols, { ...(ca === undefined ? {} : { ca }), perMessageDeflate: false })
  }
