/**
 * The host's retry policy: which failures are the wire's or the process's (worth one retry on a fresh
 * server) and which are the server's own (worth quoting its status), as opposed to answers. Decided on the
 * error's family (its code, a closed union) and on its typed `reason` where one family holds both kinds:
 * a protocol error of the wire is retried, a refused handshake is not.
 */
import type { LspError } from "@lsp-seam/lsp"

/** A failed handshake: the server is unusable as configured, and a fresh one would fail the same way. */
const isHandshakeRefusal = (error: LspError.LspLocalError): boolean =>
  error.reason?._tag === "InitializeFailed" || error.reason?._tag === "PositionEncoding"

/** Failures of the wire or the process, as opposed to answers: worth one retry on a fresh server. */
export const isTransportFailure = (error: LspError.LspLocalError): boolean => {
  switch (error.code) {
    case "LSP_SERVER_EXITED":
    case "LSP_TRANSPORT_FAILED":
      return true
    case "LSP_PROTOCOL_ERROR":
      return !isHandshakeRefusal(error)
    default:
      return false
  }
}

/** Failures of a server, or of its start: worth quoting how it fared and how often it was started. */
export const isServerFailure = (error: LspError.LspLocalError): boolean =>
  isTransportFailure(error) || error.code === "LSP_SERVER_START_FAILED" || isHandshakeRefusal(error)

/** A server that advertised a capability yet does not know its method (clangd 14's outgoing calls, say). */
export const isUnknownMethod = (error: LspError.LspLocalError): boolean => error.reason?._tag === "MethodNotFound"
