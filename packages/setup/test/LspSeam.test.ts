import { assert, describe, it } from "@effect/vitest"
import { LspError } from "@lsp-seam/lsp"
import { LspAiTool } from "@lsp-seam/tool-lsp"
import * as Effect from "effect/Effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as LspSeam from "../src/LspSeam.js"
import { fakeServer, tempDir, workspace } from "./support.js"

const timeout = 60_000

const fakeConfig = {
  servers: {
    fake: { command: process.execPath, args: [fakeServer], extensionToLanguage: { ".fake": "plaintext" } }
  }
}

const fakeWorkspace = () => {
  const dir = tempDir("library")
  NodeFs.writeFileSync(NodePath.join(dir, "a.fake"), "hello\n")
  return dir
}

describe("LspSeam.makeClient", () => {
  it.live(
    "answers with the presets (the bundled TypeScript server) and stops on close",
    () =>
      Effect.promise(async () => {
        const client = LspSeam.makeClient({ workingDirectory: workspace })
        try {
          const output = await client.query({
            operation: "goToDefinition",
            file_path: "main.ts",
            line: 7,
            character: 42
          })
          assert.strictEqual(output.text, "square.ts:3:14\nsquare.ts:4:3")
          assert.strictEqual(output.result.kind, "locations")
        } finally {
          await client.close()
        }
        const after = await client.query({ operation: "hover", file_path: "main.ts", line: 1, character: 1 }).then(
          () => undefined,
          (error: unknown) => error
        )
        assert.isTrue(LspError.isLspError(after) && after.code === "LSP_DISPOSED")
      }),
    timeout
  )

  it.live("uses the configuration it is given", () =>
    Effect.promise(async () => {
      const dir = fakeWorkspace()
      const client = LspSeam.makeClient({ workingDirectory: dir, config: fakeConfig })
      try {
        const output = await client.query({ operation: "hover", file_path: "a.fake", line: 1, character: 2 })
        assert.strictEqual(output.text, "fake hover at 0:1")
      } finally {
        await client.close()
        NodeFs.rmSync(dir, { recursive: true, force: true })
      }
    }), timeout)

  it.live(
    "rejects queries with LSP_INVALID_CONFIG when the configuration is invalid",
    () =>
      Effect.promise(async () => {
        const client = LspSeam.makeClient({ workingDirectory: workspace, config: { servers: {} } })
        const error = await client.query({ operation: "hover", file_path: "main.ts", line: 1, character: 1 }).then(
          () => undefined,
          (e: unknown) => e
        )
        await client.close()
        assert.isTrue(LspError.isLspError(error) && error.code === "LSP_INVALID_CONFIG")
      }),
    timeout
  )
})

describe("LspSeam.layerTool", () => {
  it.live("is the whole lsp tool for an @effect/ai agent in one Layer", () => {
    const dir = fakeWorkspace()
    return Effect.gen(function*() {
      const toolkit = yield* LspAiTool.LspToolkit
      const handled = yield* toolkit.handle("lsp", {
        operation: "goToDefinition",
        file_path: "a.fake",
        line: 1,
        character: 1
      })
      assert.isFalse(handled.isFailure)
      assert.strictEqual(handled.encodedResult, "a.fake:1:1")
    }).pipe(
      Effect.scoped,
      Effect.provide(LspSeam.layerTool({ workingDirectory: dir, config: fakeConfig })),
      Effect.ensuring(Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true })))
    )
  }, timeout)
})
