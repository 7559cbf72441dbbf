import { assert, describe, it } from "@effect/vitest"
import { LspService } from "@lsp-seam/lsp"
import { LspRemoteClient } from "@lsp-seam/lsp-remote"
import { Context, Effect, Ref } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { canonicalPath } from "../src/internal/servedRoots.js"
import { codeOf, makeHost, request, serveSocket, tempDir } from "./support.js"

// Served roots on a real socket and a real file system: symbolic links made in the test.
const layout = Effect.gen(function*() {
  const base = Fs.realpathSync(yield* tempDir)
  const root = Path.join(base, "root")
  const outside = Path.join(base, "outside")
  Fs.mkdirSync(Path.join(root, "project", "deep"), { recursive: true })
  Fs.mkdirSync(Path.join(outside, "secret"), { recursive: true })
  Fs.symlinkSync(Path.join(outside, "secret"), Path.join(root, "out"))
  Fs.symlinkSync(Path.join(root, "project"), Path.join(outside, "in"))
  return { base, root, outside }
})

describe("served roots", () => {
  it.scoped("canonicalPath resolves links and .. as the kernel does, and a missing tail lexically", () =>
    Effect.gen(function*() {
      const { outside, root } = yield* layout
      assert.strictEqual(canonicalPath(Path.join(root, "project", "deep")), Path.join(root, "project", "deep"))
      // `out/..` is the parent of the link's target, not `root`.
      assert.strictEqual(canonicalPath(`${root}/out/..`), outside)
      assert.strictEqual(canonicalPath(`${root}/project/../out/x/../y`), Path.join(outside, "secret", "y"))
      assert.strictEqual(canonicalPath(`${root}/missing/../../outside`), outside)
      assert.strictEqual(canonicalPath(`${root}/missing/a/b`), Path.join(root, "missing", "a", "b"))
      assert.strictEqual(canonicalPath("/"), "/")
    }))

  it.scopedLive("a workspace outside the roots is refused before the service sees it; inside runs canonical", () =>
    Effect.gen(function*() {
      const { base, outside, root } = yield* layout
      const host = yield* makeHost
      const seen = yield* Ref.make<ReadonlyArray<string>>([])
      const service = Context.get(host.context, LspService.LspService)
      const watched = Context.make(LspService.LspService, {
        ...service,
        query: (query) =>
          Effect.zipRight(Ref.update(seen, (all) => [...all, query.workspaceRoot]), service.query(query))
      })
      const socket = Path.join(base, "host.sock")
      yield* serveSocket(watched, { path: socket, roots: [root] })
      const client = yield* LspRemoteClient.make({ transport: LspRemoteClient.socket(socket) })
      const at = (workspaceRoot: string) => ({ ...request("src/a.ts"), workspaceRoot })
      for (
        const workspace of [
          "/",
          outside,
          `${root}/..`,
          `${root}/out`,
          `${root}/out/..`,
          `${root}/missing/../../outside`,
          `${outside}/missing`,
          "relative",
          ""
        ]
      ) {
        assert.strictEqual(yield* codeOf(client.query(at(workspace))), "LSP_REMOTE_FORBIDDEN", workspace)
      }
      assert.deepStrictEqual(yield* Ref.get(seen), [])
      for (const workspace of [root, `${root}/project/deep/..`, `${outside}/in`, `${root}/missing`]) {
        assert.strictEqual(yield* codeOf(client.query(at(workspace))), "success", workspace)
      }
      assert.deepStrictEqual(yield* Ref.get(seen), [
        root,
        Path.join(root, "project"),
        Path.join(root, "project"),
        Path.join(root, "missing")
      ])
      const hello = yield* client.hello
      assert.deepStrictEqual(hello.roots, [root])
    }))

  it.scopedLive("a file outside the roots is refused before the service sees it, alike whether it exists", () =>
    Effect.gen(function*() {
      const { base, outside, root } = yield* layout
      Fs.writeFileSync(Path.join(outside, "secret", "x.ts"), "secret\n")
      Fs.symlinkSync(Path.join(root, "project"), Path.join(outside, "secret", "back"))
      const host = yield* makeHost
      const seen = yield* Ref.make<ReadonlyArray<string>>([])
      const service = Context.get(host.context, LspService.LspService)
      const watched = Context.make(LspService.LspService, {
        ...service,
        query: (query) =>
          Effect.zipRight(
            Ref.update(seen, (all) => [...all, "filePath" in query ? query.filePath ?? "" : ""]),
            service.query(query)
          )
      })
      const socket = Path.join(base, "host.sock")
      yield* serveSocket(watched, { path: socket, roots: [root] })
      const client = yield* LspRemoteClient.make({ transport: LspRemoteClient.socket(socket) })
      const at = (filePath: string) => ({ ...request(filePath), workspaceRoot: root })
      const messages = new Map<string, string>()
      for (
        const filePath of [
          Path.join(outside, "secret", "x.ts"),
          Path.join(outside, "secret", "missing.ts"),
          "out/x.ts",
          "out/missing.ts",
          Path.join(root, "out", "x.ts"),
          "../outside/secret/x.ts",
          // Into the root through a link outside it: refused as written, before anything is looked at.
          Path.join(outside, "in", "a.ts"),
          // Out of the root and back: refused where it leaves (nothing below out's target is looked at).
          "out/back/a.ts"
        ]
      ) {
        const error = yield* Effect.flip(client.query(at(filePath)))
        assert.strictEqual(error.code, "LSP_REMOTE_FORBIDDEN", filePath)
        messages.set(filePath, error.message.replace(JSON.stringify(filePath), "<file>"))
      }
      assert.strictEqual(new Set(messages.values()).size, 1, [...messages.values()].join("\n"))
      assert.notInclude([...messages.values()][0], outside)
      assert.deepStrictEqual(yield* Ref.get(seen), [])
      for (const filePath of ["src/a.ts", Path.join(root, "project", "a.ts"), "project/deep/../a.ts", "missing.ts"]) {
        assert.strictEqual(yield* codeOf(client.query(at(filePath))), "success", filePath)
      }
      assert.strictEqual((yield* Ref.get(seen)).length, 4)
    }))
})
