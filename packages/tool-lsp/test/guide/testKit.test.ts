// #region test-kit
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { LspService } from "@lsp-seam/lsp"
import { LspStdio } from "@lsp-seam/lsp-stdio"
import * as Testing from "@lsp-seam/lsp-stdio/testing"
import { LspSession, LspToolConfig, LspToolHandler } from "@lsp-seam/tool-lsp"
import { Deferred, Effect, Fiber, Layer, Option, Ref, TestClock } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as Path from "node:path"

// A workspace with one file for the fake server, removed with the test's scope.
const workspace = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = NodeFs.mkdtempSync(Path.join(NodeOs.tmpdir(), "lsp-seam-kit-"))
    NodeFs.writeFileSync(Path.join(dir, "main.fake"), "hello\n")
    return dir
  }),
  (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
)

// The real stdio host with one server whose processes are Effects (`program`): nothing is spawned, and every
// delay of the host and of the tool runs on the Effect Clock, so TestClock drives them. `command` must be an
// existing executable (the host resolves it); the in-memory executor runs `program` in its place.
const host = (dir: string, program: Testing.MemoryProgram) =>
  Layer.mergeAll(
    LspStdio.layer(
      { servers: { fake: { command: process.execPath, extensionToLanguage: { ".fake": "plaintext" } } } },
      { local: false }
    ).pipe(
      Layer.provideMerge(LspService.layer),
      Layer.provide(Layer.mergeAll(Testing.layerMemoryExecutor(() => program), NodeFileSystem.layer, NodePath.layer))
    ),
    LspSession.layer(dir)
  )

const hover = { operation: "hover", file_path: "main.fake", line: 1, character: 1 } as const

describe("the test kit", () => {
  it.scoped("a query the server never answers times out when the TestClock passes timeoutMs", () =>
    Effect.gen(function*() {
      const dir = yield* workspace
      // Completed by the fake server when the hover reaches it: by then it is spawned and initialized.
      const asked = yield* Deferred.make<void>()
      const program = Testing.fakeLanguageServer({
        handlers: { "textDocument/hover": () => Effect.zipRight(Deferred.succeed(asked, undefined), Effect.never) }
      })
      // The tool's defaults with a 5 s budget (`LspToolConfig.defaults` has none changed).
      const config = yield* LspToolConfig.make({ timeoutMs: 5_000 })
      const query = yield* Effect.fork(
        LspToolHandler.run(hover, config).pipe(Effect.provide(host(dir, program)), Effect.flip)
      )
      // Move the clock only once the request has reached the server. Moved earlier, it would pass the whole
      // budget while the server is still being spawned, and the query would time out at once.
      yield* Deferred.await(asked)
      yield* TestClock.adjust("4999 millis")
      assert.isTrue(Option.isNone(yield* Fiber.poll(query)), "still waiting inside the budget")
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(query)
      assert.strictEqual(error._tag, "LspTimeoutError")
      assert.strictEqual(error.code, "LSP_TIMEOUT")
    }))

  it.scoped("a server that crashes fails the query with its exit code and its stderr", () =>
    Effect.gen(function*() {
      const dir = yield* workspace
      const starts = yield* Ref.make(0)
      // Crashes as soon as the host opens the file, every time it is started.
      const program = Testing.fakeLanguageServer({
        onStart: () => Ref.update(starts, (n) => n + 1),
        onNotification: (method, _params, process) =>
          method === "textDocument/didOpen"
            ? Effect.zipRight(process.writeStderr(new TextEncoder().encode("cannot parse\n")), process.exit(2))
            : Effect.void
      })
      const error = yield* LspToolHandler.run(hover, LspToolConfig.defaults).pipe(
        Effect.provide(host(dir, program)),
        Effect.flip
      )
      assert.strictEqual(error._tag, "LspServerError")
      assert.strictEqual(error.code, "LSP_SERVER_EXITED")
      assert.include(error.message, "exited with code 2")
      assert.include(error.message, "cannot parse")
      // A crash during a query is retried once, on a fresh server.
      assert.strictEqual(yield* Ref.get(starts), 2)
    }))
})
// #endregion
