import { assert, describe, it } from "@effect/vitest"
import { LspError, LspResult, LspService } from "@lsp-seam/lsp"
import type { LspQuery } from "@lsp-seam/lsp"
import { LspRemoteClient } from "@lsp-seam/lsp-remote"
import { registerFakeProvider } from "@lsp-seam/lsp/testing"
import { Context, Effect } from "effect"
import * as Path from "node:path"
import { clientOf, serveSocket, tempDir } from "./support.js"

// Issue 33 through a remote host: a location's body, a rename preview's edits and its coded refusal cross the
// wire exactly as the host's LspService gives them.
const range = { start: { line: 1, character: 0 }, end: { line: 3, character: 1 } }

const script = (query: LspQuery.LspProviderQuery) => {
  if (query.operation === "renamePreview") {
    return query.newName === "for"
      ? { _tag: "Fail" as const, error: LspError.cannotRename("a keyword cannot be a name", { newName: "for" }) }
      : {
        _tag: "Succeed" as const,
        result: LspResult.edits(
          [
            { uri: "file:///ws/b.ts", range, newText: query.newName, oldText: "f" },
            { uri: "file:///lib/x.d.ts", range, newText: query.newName, outsideWorkspace: true }
          ],
          [{ kind: "rename", uri: "file:///ws/b.ts", newUri: "file:///ws/c.ts" }],
          "file:///ws"
        )
      }
  }
  const body = "includeBody" in query && query.includeBody === true
    ? { body: { range, text: "function f() {\n  return 1\n}" } }
    : {}
  return {
    _tag: "Succeed" as const,
    result: LspResult.locations([{ uri: "file:///ws/b.ts", range, ...body }], "file:///ws")
  }
}

describe("LspRemote: bodies and rename previews", () => {
  it.scopedLive("cross the wire unchanged: includeBody, body, renamePreview, edits, LSP_CANNOT_RENAME", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const service = yield* LspService.make
      const context = Context.make(LspService.LspService, service)
      const fake = yield* registerFakeProvider({
        id: "typescript",
        extensionToLanguage: { ".ts": "typescript" },
        script
      }).pipe(Effect.provide(context))
      const socket = Path.join(dir, "run", "host.sock")
      yield* serveSocket(context, { path: socket })
      const client = yield* clientOf(LspRemoteClient.socket(socket))
      const position = { line: 0, character: 9 }
      const definition = {
        operation: "goToDefinition" as const,
        filePath: "a.ts",
        position,
        workspaceRoot: "/ws",
        includeBody: true
      }
      const remote = yield* client.query(definition)
      assert.deepStrictEqual(remote, yield* service.query(definition))
      assert.strictEqual(
        remote.kind === "locations" ? remote.locations[0]?.body?.text : undefined,
        "function f() {\n  return 1\n}"
      )
      const rename = {
        operation: "renamePreview" as const,
        filePath: "a.ts",
        position,
        workspaceRoot: "/ws",
        newName: "g"
      }
      const edits = yield* client.query(rename)
      assert.deepStrictEqual(edits, yield* service.query(rename))
      assert.strictEqual(edits.kind, "edits")
      const refused = yield* Effect.flip(client.query({ ...rename, newName: "for" }))
      assert.strictEqual(refused.code, "LSP_CANNOT_RENAME")
      assert.deepStrictEqual(refused.detail, { newName: "for" })
      const received = yield* fake.queries
      assert.deepStrictEqual(received.map((q) => q.operation), [
        "goToDefinition",
        "goToDefinition",
        "renamePreview",
        "renamePreview",
        "renamePreview"
      ])
      assert.strictEqual(received[0]?.operation === "goToDefinition" ? received[0].includeBody : undefined, true)
    }))
})
