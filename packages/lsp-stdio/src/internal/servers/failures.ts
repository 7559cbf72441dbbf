/**
 * The host's retry policy: which failures are the wire's or the process's (worth one retry on a fresh
 * server) and which are the server's own (worth quoting its status), as opposed to answers.
 */
import type { LspError } from "@lsp-seam/lsp"

/** Failures of the wire or the process, as opposed to answers: worth one retry on a fresh server. */
export const isTransportFailure = (error: LspError.LspError): boolean => {
  switch (error.code) {
    case "LSP_SERVER_EXITED":
    case "LSP_TRANSPORT_FAILED":
      return true
    case "LSP_PROTOCOL_ERROR":
      return error.detail?.reason !== "positionEncoding" && error.detail?.reason !== "initialize"
    default:
      return false
  }
}

/** Failures of a server, or of its start: worth quoting how it fared and how often it was started. */
export const isServerFailure = (error: LspError.LspError): boolean =>
  isTransportFailure(error) || error.code === "LSP_SERVER_START_FAILED" ||
  (error.code === "LSP_PROTOCOL_ERROR" && error.detail?.reason === "initialize")

/** A server that advertised a capability yet does not know its method (clangd 14's outgoing calls, say). */
export const isUnknownMethod = (error: LspError.LspError): boolean =>
  error.code === "LSP_SERVER_ERROR" && error.detail?.code === -32601
