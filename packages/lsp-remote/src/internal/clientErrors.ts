/**
 * Turns whatever ends a remote call into the seam's coded errors: the host's own `LspError`s pass through,
 * a lost or refused connection becomes `LSP_REMOTE_UNAVAILABLE` (or `LSP_REMOTE_UNAUTHORIZED`), a host
 * that stops a call without answering is unavailable too, and a host's defect is a protocol error.
 */
import * as Socket from "@effect/platform/Socket"
import type { RpcClientError } from "@effect/rpc/RpcClientError"
import { LspError } from "@lsp-seam/lsp"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Net from "node:net"
import * as Tls from "node:tls"

// Walks the causes a socket error carries (Node errors, ws ErrorEvents) for facts worth telling.
const facts = (
  root: unknown
): {
  readonly errno: string | undefined
  readonly tls: string | undefined
  readonly socketOwner: number | undefined
  readonly status401: boolean
  readonly status503: boolean
} => {
  let errno: string | undefined
  let socketOwner: number | undefined
  let tls: string | undefined
  let status401 = false
  let status503 = false
  const seen = new Set<unknown>()
  const visit = (u: unknown, depth: number): void => {
    if (depth > 6 || typeof u !== "object" || u === null || seen.has(u)) return
    seen.add(u)
    const code: unknown = Reflect.get(u, "code")
    const message: unknown = Reflect.get(u, "message")
    if (errno === undefined && typeof code === "string" && /^E[A-Z]+$/.test(code)) errno = code
    const owner: unknown = Reflect.get(u, "socketOwner")
    if (socketOwner === undefined && typeof owner === "number") socketOwner = owner
    if (tls === undefined && typeof code === "string" && tlsCode.test(code)) tls = code
    if (
      tls === undefined && typeof message === "string" && /wrong version number|packet length too long/.test(message)
    ) {
      tls = "ERR_SSL_WRONG_VERSION_NUMBER"
    }
    if (typeof message === "string" && /\b401\b/.test(message)) status401 = true
    if (typeof message === "string" && /Unexpected server response: 503\b/.test(message)) status503 = true
    visit(Reflect.get(u, "cause"), depth + 1)
    visit(Reflect.get(u, "error"), depth + 1)
  }
  visit(root, 0)
  return { errno, tls, socketOwner, status401, status503 }
}

// OpenSSL's verification results and Node's TLS errors.
const tlsCode = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$)/

const tlsReason = (code: string): string =>
  code === "ERR_SSL_WRONG_VERSION_NUMBER"
    ? `the TLS handshake failed (${code}): the host does not speak TLS there; use ws:// or http:// for a host ` +
      "without --tls-cert"
    : code === "ERR_TLS_CERT_ALTNAME_INVALID"
    ? `its TLS certificate is not valid for this host name (${code}); nothing was sent to it`
    : `its TLS certificate is not trusted (${code}); nothing was sent to it. Pass the CA that signed it ` +
      "with --ca-file (caFile), or use a certificate the system trusts"

// `cause`: what the socket reported (an RpcClientError's cause, or a socket error itself).
const fromTransport = (cause: unknown, where: string): LspError.LspRemoteError => {
  const { errno, socketOwner, status401, status503, tls } = facts(cause)
  if (socketOwner !== undefined) {
    return LspError.remoteUnavailable(
      `The lsp-seam host at ${where} is not used: its socket belongs to another user (uid ${socketOwner}), so ` +
        "it is someone else's host and no query is sent to it. Use a socket of your own (lsp-seam serve).",
      { address: where, owner: socketOwner }
    )
  }
  if (status401) {
    return LspError.remoteUnauthorized(
      `The lsp-seam host at ${where} refused the connection: the token is missing or wrong.`,
      { address: where }
    )
  }
  if (status503) {
    return LspError.remoteUnavailable(
      `The lsp-seam host at ${where} refused the connection: it has as many connections open as it allows ` +
        "(serve --max-connections). Try again once a client has disconnected, or raise the limit.",
      { address: where, limit: "max-connections" }
    )
  }
  if (tls !== undefined) {
    return LspError.remoteUnavailable(`The lsp-seam host at ${where} is unavailable: ${tlsReason(tls)}.`, {
      address: where,
      tls
    })
  }
  const why = errno === "ENOENT" || errno === "ECONNREFUSED"
    ? "nothing listens there"
    : errno !== undefined
    ? `the connection failed (${errno})`
    : "the connection was closed or could not be opened"
  return LspError.remoteUnavailable(
    `The lsp-seam host at ${where} is unavailable: ${why}. Start it (lsp-seam serve) or query locally.`,
    { address: where, ...(errno === undefined ? {} : { errno }) }
  )
}

/**
 * Whether something at `host:port` completes a TLS handshake. The certificate is not checked because nothing is
 * sent after the handshake: the answer only tells a plaintext URL aimed at a TLS port from a host that is down.
 */
const speaksTls = (host: string, port: number): Effect.Effect<boolean> =>
  Effect.async<boolean>((resume) => {
    const socket = Tls.connect({
      host,
      port,
      rejectUnauthorized: false,
      servername: Net.isIP(host) === 0 ? host : undefined
    })
    socket.once("secureConnect", () => resume(Effect.succeed(true)))
    socket.once("error", () => resume(Effect.succeed(false)))
    return Effect.sync(() => socket.destroy())
  }).pipe(
    Effect.timeoutTo({ duration: "2 seconds", onTimeout: () => false, onSuccess: (speaks) => speaks })
  )

/**
 * A plaintext URL (`ws://`, `http://`) whose connection was reset (a TLS server drops the plaintext request), not
 * refused or timed out: when the port speaks TLS, say so and name the URL to use, rather than suggesting to start
 * a host that is running. A silent port is not probed: the caller's connect timeout has been spent already.
 */
const withTlsHint = (where: string, error: LspError.LspRemoteError): Effect.Effect<LspError.LspRemoteError> => {
  const url = URL.canParse(where) ? new URL(where) : undefined
  const errno = error.detail?.errno
  if (
    url === undefined || (url.protocol !== "ws:" && url.protocol !== "http:") ||
    error.code !== "LSP_REMOTE_UNAVAILABLE" || (errno !== "ECONNRESET" && errno !== "EPIPE")
  ) return Effect.succeed(error)
  const port = url.port === "" ? 80 : Number(url.port)
  return Effect.map(speaksTls(url.hostname.replace(/^\[|\]$/g, ""), port), (tls) => {
    if (!tls) return error
    const secure = `${url.protocol === "ws:" ? "wss:" : "https:"}${where.slice(url.protocol.length)}`
    return LspError.remoteUnavailable(
      `The lsp-seam host at ${where} is unavailable over plaintext: the port speaks TLS (a host started with ` +
        `--tls-cert). Use ${secure} (with --ca-file for a private CA).`,
      { address: where, tls: "plaintext-to-tls" }
    )
  })
}

const isRpcClientError = (u: unknown): u is RpcClientError =>
  typeof u === "object" && u !== null && "_tag" in u && u._tag === "RpcClientError"

/** Maps every way a remote call can end other than success or the caller's own interruption. */
export const mapRemote = (where: string) =>
<A, R>(
  effect: Effect.Effect<A, LspError.LspError | RpcClientError, R>
): Effect.Effect<A, LspError.LspError, R> =>
  Effect.catchAllCause(effect, (cause) => {
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure)) {
      const error = failure.value
      return isRpcClientError(error)
        ? Effect.flip(withTlsHint(where, fromTransport(error.cause, where)))
        : Effect.fail(error)
    }
    const defect = Cause.dieOption(cause)
    if (Option.isSome(defect) && Socket.isSocketError(defect.value)) {
      // The socket protocol turns a failed write (the host went away under it) into a defect.
      return Effect.flip(withTlsHint(where, fromTransport(defect.value, where)))
    }
    if (Cause.isInterruptedOnly(cause)) {
      // The caller was not interrupted (this handler would not run): the host stopped the call, for example
      // because it is shutting down.
      return Effect.fail(LspError.remoteUnavailable(
        `The lsp-seam host at ${where} stopped the query without answering ` +
          "(it is shutting down or lost the connection).",
        { address: where }
      ))
    }
    return Effect.fail(LspError.protocolError(
      `The lsp-seam host at ${where} failed to answer: ${Cause.pretty(cause)}`,
      { address: where }
    ))
  })
