import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { LspService } from "@lsp-seam/lsp"
import { LspStdio } from "@lsp-seam/lsp-stdio"
import { Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import * as LspSession from "../src/LspSession.js"
import * as LspToolConfig from "../src/LspToolConfig.js"
import * as LspToolHandler from "../src/LspToolHandler.js"

// The stdio host's fake language server: a real process speaking LSP, scripted through FAKE_LSP.
const fakeServer = fileURLToPath(new URL("../../lsp-stdio/test/fixtures/fake-server.mjs", import.meta.url))

const scratch = Effect.acquireRelease(
  Effect.sync(() => NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "lsp-seam-tool-")))),
  (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
)

const readRecord = (
  file: string
): ReadonlyArray<{ readonly method?: string; readonly id?: number; readonly params?: unknown }> =>
  NodeFs.existsSync(file)
    ? NodeFs.readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l))
    : []

const stack = (workspace: string, record: string, fake: Record<string, unknown>) =>
  Layer.mergeAll(
    LspStdio.layer({
      servers: {
        fake: {
          command: process.execPath,
          args: [fakeServer],
          extensionToLanguage: { fake: "fake" },
          env: { FAKE_LSP: JSON.stringify({ record, ...fake }) },
          killGraceMs: 200,
          shutdownTimeoutMs: 500
        }
      }
    }).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer)),
    LspSession.layer(workspace)
  )

describe("the lsp tool through the stdio host", () => {
  it.scopedLive("a tool call end to end: one-based in, rendered relative locations out", () =>
    Effect.gen(function*() {
      const workspace = yield* scratch
      const record = NodePath.join(workspace, "record.jsonl")
      NodeFs.writeFileSync(NodePath.join(workspace, "main.fake"), "first\nsecond line\n")
      const target = `file://${workspace}/lib/def.fake`
      const fake = {
        answers: {
          "textDocument/definition": [{
            uri: target,
            range: { start: { line: 4, character: 2 }, end: { line: 4, character: 8 } }
          }]
        }
      }
      const output = yield* LspToolHandler.run({
        operation: "goToDefinition",
        file_path: "main.fake",
        line: 2,
        character: 3
      }).pipe(Effect.provide(stack(workspace, record, fake)))
      assert.strictEqual(output.text, "lib/def.fake:5:3")
      assert.deepStrictEqual(output.result, {
        kind: "locations",
        locations: [{ uri: target, range: { start: { line: 4, character: 2 }, end: { line: 4, character: 8 } } }],
        resolvedWorkspaceUri: `file://${workspace}`
      })
      const request = readRecord(record).find((r) => r.method === "textDocument/definition")
      assert.deepStrictEqual(request?.params, {
        textDocument: { uri: `file://${workspace}/main.fake` },
        position: { line: 1, character: 2 }
      })
    }))

  it.scopedLive("the budget interrupts a slow server request, which receives $/cancelRequest", () =>
    Effect.gen(function*() {
      const workspace = yield* scratch
      const record = NodePath.join(workspace, "record.jsonl")
      NodeFs.writeFileSync(NodePath.join(workspace, "main.fake"), "x\n")
      // The budget covers the server's start too: generous enough for a loaded machine, far below the delay.
      const fake = { answerDelayMs: { "textDocument/hover": 60_000 } }
      const config = yield* LspToolConfig.make({ timeoutMs: 4_000 })
      const error = yield* LspToolHandler.run(
        { operation: "hover", file_path: "main.fake", line: 1, character: 1 },
        config
      ).pipe(Effect.flip, Effect.provide(stack(workspace, record, fake)))
      assert.strictEqual(error.code, "LSP_TIMEOUT")
      const all = readRecord(record)
      const hover = all.find((r) => r.method === "textDocument/hover")
      const cancel = all.find((r) => r.method === "$/cancelRequest")
      assert.deepStrictEqual(cancel?.params, { id: hover?.id })
    }))
})
