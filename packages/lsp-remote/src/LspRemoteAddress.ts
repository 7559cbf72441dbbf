/**
 * Where a remote host listens by default: a Unix domain socket in a per-user directory, and the HTTP path
 * of its WebSocket endpoint. Server and client compute the same defaults.
 *
 * @since 0.1.0
 */
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"

/**
 * The per-user directory of the default socket: `$XDG_RUNTIME_DIR/lsp-seam` when that variable names an
 * absolute directory, else `<tmpdir>/lsp-seam-<uid>`: a name others can predict, so nothing is put in it before
 * `LspRemoteDirectory.ensure` has found it private (or made it). The socket itself is 0600 from the moment it
 * appears.
 *
 * @since 0.1.0
 * @category constructors
 */
export const defaultSocketDirectory = (env: NodeJS.ProcessEnv = process.env): string => {
  const runtime = env.XDG_RUNTIME_DIR
  if (runtime !== undefined && Path.isAbsolute(runtime)) return Path.join(runtime, "lsp-seam")
  const uid = process.getuid === undefined ? Os.userInfo().username : String(process.getuid())
  return Path.join(Os.tmpdir(), `lsp-seam-${uid}`)
}

/**
 * The default socket: `lsp-seam.sock` in `defaultSocketDirectory`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const defaultSocketPath = (env: NodeJS.ProcessEnv = process.env): string =>
  Path.join(defaultSocketDirectory(env), "lsp-seam.sock")

/**
 * The HTTP path of the WebSocket endpoint.
 *
 * @since 0.1.0
 * @category constants
 */
export const webSocketPath = "/lsp-seam"

/**
 * The WebSocket URL of a host listening on `host:port`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const webSocketUrl = (host: string, port: number): string =>
  `ws://${host.includes(":") ? `[${host}]` : host}:${port}${webSocketPath}`

/**
 * True for an address only this machine can reach: `localhost`, 127.0.0.0/8 and `::1` (brackets allowed).
 * Anything else, `0.0.0.0` and `::` included, may be reachable from the network.
 *
 * @since 0.1.0
 * @category utils
 */
export const isLoopback = (host: string): boolean => {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase()
  if (bare === "localhost") return true
  const v4 = bare.startsWith("::ffff:") ? bare.slice(7) : bare
  if (Net.isIPv4(v4)) return v4.startsWith("127.")
  return Net.isIPv6(bare) && /^(0{1,4}:){7}0{0,3}1$|^::1$/.test(bare)
}
