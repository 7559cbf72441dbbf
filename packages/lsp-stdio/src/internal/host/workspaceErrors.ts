/**
 * A server's error that means the workspace is not set up for it, told as such: a request failing with a
 * message one of the server's `workspaceErrors` matches becomes `LSP_WORKSPACE_NOT_READY` with that rule's
 * hint. The rules are configuration (the Go preset carries gopls's), so the host knows no server by name.
 */
import { LspError } from "@lsp-seam/lsp"
import type { ServerConfig } from "../../StdioConfig.js"

// The server's own words stay in the message (they name the module at fault), on one line and bounded.
const maxQuoted = 400

const quote = (message: string): string => {
  const line = message.replace(/\s+/g, " ").trim()
  return line.length > maxQuoted ? `${line.slice(0, maxQuoted)}…` : line
}

/** `error` as the rules of `config` read it: unchanged unless it is a server error whose message one matches. */
export const explain = (config: ServerConfig, error: LspError.LspLocalError): LspError.LspLocalError => {
  if (error.code !== "LSP_SERVER_ERROR" || config.workspaceErrors.length === 0) return error
  const message = error.detail?.message
  if (typeof message !== "string") return error
  const rule = config.workspaceErrors.find((candidate) => new RegExp(candidate.message).test(message))
  if (rule === undefined) return error
  return LspError.workspaceNotReady(`${rule.hint} (The server said: ${quote(message)})`, {
    ...error.detail,
    hint: rule.hint
  })
}
