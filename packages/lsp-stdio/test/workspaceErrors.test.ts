import { assert, describe, it } from "@effect/vitest"
import { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import { explain } from "../src/internal/host/workspaceErrors.js"
import * as StdioConfig from "../src/StdioConfig.js"

const serverWith = (workspaceErrors: ReadonlyArray<{ readonly message: string; readonly hint: string }>) =>
  Effect.map(
    StdioConfig.decode({
      servers: { go: { command: "gopls", extensionToLanguage: { ".go": "go" }, workspaceErrors } }
    }),
    (config) => config.servers.go
  )

const raw = (message: string) =>
  LspError.serverError(`The language server failed the "textDocument/references" request: ${message}`, {
    method: "textDocument/references",
    code: 0,
    message
  })

describe("workspaceErrors", () => {
  it.effect("a server error whose message a rule matches is LSP_WORKSPACE_NOT_READY with the hint", () =>
    Effect.gen(function*() {
      const server = yield* serverWith([{ message: "modules? ha(s|ve) errors", hint: "Run `go mod download`." }])
      const error = explain(server, raw("1 modules have errors:\n\texample.com/w: module lookup disabled"))
      assert.strictEqual(error.code, "LSP_WORKSPACE_NOT_READY")
      assert.strictEqual(
        error.message,
        "Run `go mod download`. (The server said: 1 modules have errors: example.com/w: module lookup disabled)"
      )
      assert.strictEqual(error.detail?.method, "textDocument/references")
      assert.strictEqual(error.detail?.hint, "Run `go mod download`.")
    }))

  it.effect("any other failure, and every failure of a server without rules, is left as it is", () =>
    Effect.gen(function*() {
      const server = yield* serverWith([{ message: "modules? ha(s|ve) errors", hint: "Run `go mod download`." }])
      const other = raw("no identifier found")
      assert.strictEqual(explain(server, other), other)
      const exited = LspError.serverExited("1 modules have errors")
      assert.strictEqual(explain(server, exited), exited)
      const bare = yield* serverWith([])
      const matching = raw("1 modules have errors")
      assert.strictEqual(explain(bare, matching), matching)
    }))

  it.effect("a rule whose message is not a regular expression is LSP_INVALID_CONFIG", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(serverWith([{ message: "(", hint: "x" }]))
      assert.strictEqual(error.code, "LSP_INVALID_CONFIG")
    }))
})
