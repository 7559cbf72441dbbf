/**
 * The host's configuration is typed where users write it: a wrong shape is a compile error (`npm run check`
 * type-checks this file; an `@ts-expect-error` line that compiled cleanly would fail it), while a wrong value
 * the type cannot see is still `LSP_INVALID_CONFIG` at run time.
 */
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { LspService } from "@lsp-seam/lsp"
import { Effect, Layer } from "effect"
import * as LspStdio from "../src/LspStdio.js"
import type * as StdioConfig from "../src/StdioConfig.js"

describe("LspStdio's typed configuration", () => {
  it("rejects wrong shapes at compile time", () => {
    const wrong = [
      // @ts-expect-error a server needs extensionToLanguage
      () => LspStdio.layer({ servers: { ts: { command: "typescript-language-server" } } }),
      // @ts-expect-error a misspelt field is not a default in disguise
      () => LspStdio.layer({ servers: { ts: { comand: "tsls", extensionToLanguage: { ts: "typescript" } } } }),
      () =>
        LspStdio.layer({
          servers: {
            // @ts-expect-error documentSync is "transient" or "retained"
            ts: { command: "tsls", extensionToLanguage: { ts: "typescript" }, documentSync: "sometimes" }
          }
        }),
      // @ts-expect-error maxServers is a number
      () => LspStdio.make({ servers: {}, maxServers: "4" }),
      // @ts-expect-error diagnose takes the same configuration
      () => LspStdio.diagnose({ servers: { ts: { args: [] } } }, "/")
    ]
    assert.strictEqual(wrong.length, 5)
  })

  it("takes a decoded configuration too (what StdioConfig.decodeJson gives for a file)", () => {
    const fromFile = (decoded: StdioConfig.StdioConfig) => LspStdio.layer(decoded)
    assert.isFunction(fromFile)
  })

  it.scoped("still refuses a wrong value the type cannot see, with LSP_INVALID_CONFIG", () =>
    Effect.gen(function*() {
      const layer = LspStdio.layer({
        servers: { ts: { command: "tsls", extensionToLanguage: { ts: "typescript" }, killGraceMs: -1 } }
      }).pipe(Layer.provide(LspService.layer), Layer.provide(NodeContext.layer))
      const refused = yield* Effect.flip(Layer.build(layer))
      assert.strictEqual(refused.code, "LSP_INVALID_CONFIG")
    }))
})
