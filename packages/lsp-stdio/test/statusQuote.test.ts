import { assert, describe, it } from "@effect/vitest"
import { LspError } from "@lsp-seam/lsp"
import * as StatusQuote from "../src/internal/servers/statusQuote.js"
import type { ServerStatus } from "../src/StdioStatus.js"

const running: ServerStatus = {
  providerId: "ts",
  workspace: "/ws",
  root: "/ws",
  pid: 4242,
  state: "busy",
  uptimeMs: 12_345,
  queriesServed: 17,
  queued: 0,
  restarts: 2,
  lastError: null,
  rssBytes: null
}

describe("StatusQuote", () => {
  it("quotes pid, uptime, queries and restarts of a server that was running", () => {
    const error = LspError.serverExited("The \"ts\" language server exited with code 1.", { providerId: "ts" })
    const quoted = StatusQuote.quote(error, { providerId: "ts", status: running, starts: 3 })
    assert.strictEqual(quoted.code, "LSP_SERVER_EXITED")
    assert.strictEqual(
      quoted.message,
      "The \"ts\" language server exited with code 1.\n" +
        "Server status: pid 4242, up 12 s, 17 queries served, 2 restarts for this workspace."
    )
    assert.deepStrictEqual(quoted.detail, {
      providerId: "ts",
      server: { pid: 4242, uptimeMs: 12_345, queriesServed: 17, starts: 3, restarts: 2 }
    })
  })

  it("says which start it was when the server never came up, in the singular where it is one", () => {
    const error = LspError.serverStartFailed("Could not start the \"ts\" language server: ENOENT")
    const quoted = StatusQuote.quote(error, { providerId: "ts", status: undefined, starts: 2 })
    assert.strictEqual(
      quoted.message,
      "Could not start the \"ts\" language server: ENOENT\n" +
        "Server status: start 2 of the \"ts\" server for this workspace (1 restart before it)."
    )
    assert.deepStrictEqual(quoted.detail, { server: { starts: 2, restarts: 1 } })
    const first = StatusQuote.describe({
      providerId: "ts",
      status: { ...running, uptimeMs: 800, queriesServed: 1 },
      starts: 1
    })
    assert.strictEqual(first, "Server status: pid 4242, up 0.8 s, 1 query served, 0 restarts for this workspace.")
  })
  it("keeps the error's typed reason, which the host's retry decisions read", () => {
    const refused = LspError.withReason(LspError.protocolError("chose utf-8"), { _tag: "PositionEncoding" })
    const quoted = StatusQuote.quote(refused, { providerId: "ts", status: undefined, starts: 1 })
    assert.deepStrictEqual(quoted.reason, { _tag: "PositionEncoding" })
    assert.isUndefined(
      StatusQuote.quote(LspError.protocolError("x"), { providerId: "ts", status: undefined, starts: 1 }).reason
    )
  })
})
