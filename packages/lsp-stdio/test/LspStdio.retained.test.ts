import { NodeContext } from "@effect/platform-node"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { LspService } from "@lsp-seam/lsp"
import { Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import { createRequire } from "node:module"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as LspStdio from "../src/LspStdio.js"
import {
  assertNothingSurvives,
  dig,
  fakeConfig,
  makeRecordFile,
  makeWorkspace,
  query,
  readRecord,
  withHost
} from "./support/fakeHost.js"

afterAll(assertNothingSurvives)

/** The document lifecycle the fake server saw: [method, uri file name, version, text]. */
const lifecycle = (record: string) =>
  readRecord(record)
    .filter((r) => r.type === "message" && String(r.method).startsWith("textDocument/did"))
    .map((r) => {
      const document = dig(r.params, "textDocument")
      const changes = dig(r.params, "contentChanges")
      return [
        String(r.method).slice("textDocument/".length),
        NodePath.basename(String(dig(document, "uri"))),
        dig(document, "version") ?? null,
        dig(document, "text") ?? (Array.isArray(changes) ? dig(changes[0], "text") : null)
      ]
    })

const retained = (record: string, server: Record<string, unknown> = {}) =>
  fakeConfig({
    recordFile: record,
    fake: { answers: { "textDocument/hover": null } },
    server: { documentSync: "retained", ...server }
  })

// Date a file a minute back. (utimes sets its ctime to now, so the next two seconds still compare bytes.)
const age = (path: string) => {
  const past = new Date(Date.now() - 60_000)
  NodeFs.utimesSync(path, past, past)
}

describe("documentSync: retained (fake server)", () => {
  it.scopedLive("keeps documents open, sends the new text when the file changed, and nothing when it did not", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace({ "a.fake": "one\n" })
      yield* withHost(
        retained(record),
        Effect.gen(function*() {
          yield* query(workspace, "hover", "a.fake", { line: 0, character: 0 })
          yield* query(workspace, "hover", "a.fake", { line: 0, character: 0 })
          NodeFs.writeFileSync(`${workspace}/a.fake`, "two\n")
          yield* query(workspace, "hover", "a.fake", { line: 0, character: 0 })
        })
      )
      assert.deepStrictEqual(lifecycle(record), [
        ["didOpen", "a.fake", 1, "one\n"],
        ["didChange", "a.fake", 2, "two\n"]
      ])
    }))

  it.scopedLive("before a query on another file, every retained document is made disk-true", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace({ "a.fake": "a1\n", "b.fake": "b1\n", "c.fake": "c1\n" })
      yield* withHost(
        retained(record),
        Effect.gen(function*() {
          yield* query(workspace, "hover", "a.fake")
          yield* query(workspace, "hover", "b.fake")
          NodeFs.writeFileSync(`${workspace}/a.fake`, "a2 longer\n")
          NodeFs.rmSync(`${workspace}/b.fake`)
          yield* query(workspace, "hover", "c.fake")
        })
      )
      assert.deepStrictEqual(lifecycle(record), [
        ["didOpen", "a.fake", 1, "a1\n"],
        ["didOpen", "b.fake", 1, "b1\n"],
        ["didChange", "a.fake", 2, "a2 longer\n"],
        ["didClose", "b.fake", null, null],
        ["didOpen", "c.fake", 1, "c1\n"]
      ])
    }))

  it.scopedLive("a same-size edit with its mtime put back is still sent (its ctime, or its bytes, show it)", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace({ "a.fake": "aaaa\n", "b.fake": "b\n" })
      yield* withHost(
        retained(record),
        Effect.gen(function*() {
          yield* query(workspace, "hover", "a.fake")
          const { mtime } = NodeFs.statSync(`${workspace}/a.fake`)
          NodeFs.writeFileSync(`${workspace}/a.fake`, "bbbb\n")
          NodeFs.utimesSync(`${workspace}/a.fake`, mtime, mtime)
          yield* query(workspace, "hover", "b.fake")
        })
      )
      assert.deepStrictEqual(lifecycle(record).slice(1, 2), [["didChange", "a.fake", 2, "bbbb\n"]])
    }))

  it.scopedLive("an old file whose size and mtime are unchanged is not sent again", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace({ "a.fake": "aaaa\n", "b.fake": "b\n" })
      age(`${workspace}/a.fake`)
      yield* withHost(
        retained(record),
        Effect.gen(function*() {
          yield* query(workspace, "hover", "a.fake")
          yield* query(workspace, "hover", "b.fake")
          yield* query(workspace, "hover", "b.fake")
        })
      )
      assert.deepStrictEqual(lifecycle(record), [["didOpen", "a.fake", 1, "aaaa\n"], ["didOpen", "b.fake", 1, "b\n"]])
    }))

  it.scopedLive("the retained set is bounded: the least recently queried document is closed", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace({ "a.fake": "a\n", "b.fake": "b\n", "c.fake": "c\n" })
      yield* withHost(
        retained(record, { maxRetainedDocuments: 2 }),
        Effect.gen(function*() {
          yield* query(workspace, "hover", "a.fake")
          yield* query(workspace, "hover", "b.fake")
          yield* query(workspace, "hover", "a.fake")
          yield* query(workspace, "hover", "c.fake")
        })
      )
      assert.deepStrictEqual(lifecycle(record), [
        ["didOpen", "a.fake", 1, "a\n"],
        ["didOpen", "b.fake", 1, "b\n"],
        ["didOpen", "c.fake", 1, "c\n"],
        ["didClose", "b.fake", null, null]
      ])
    }))

  it.scopedLive("after a crash, the fresh server gets fresh documents: nothing stale is replayed", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace({ "a.fake": "a\n", "b.fake": "b\n" })
      const config = fakeConfig({
        recordFile: record,
        fake: { crash: "afterReply", crashMarker: `${record}.crashed`, answers: { "textDocument/hover": null } },
        server: { documentSync: "retained" }
      })
      yield* withHost(
        config,
        Effect.gen(function*() {
          yield* query(workspace, "hover", "a.fake") // answered, then the server dies
          NodeFs.writeFileSync(`${workspace}/a.fake`, "a2\n")
          yield* query(workspace, "hover", "b.fake") // a fresh server
        })
      )
      assert.deepStrictEqual(lifecycle(record), [["didOpen", "a.fake", 1, "a\n"], ["didOpen", "b.fake", 1, "b\n"]])
    }))
})

// The same project as the transient end-to-end suite, copied so it can be edited.
const fixture = fileURLToPath(new URL("./fixtures/ts-project", import.meta.url))
const server = createRequire(import.meta.url).resolve("typescript-language-server/lib/cli.mjs")

describe("documentSync: retained (typescript-language-server)", () => {
  it.scopedLive(
    "an edit to a retained file changes answers about another file that depends on it",
    () =>
      Effect.gen(function*() {
        const workspace = yield* Effect.acquireRelease(
          Effect.sync(() => {
            const dir = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "lsp-seam-retained-")))
            NodeFs.cpSync(fixture, dir, { recursive: true })
            return dir
          }),
          (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
        )
        const config = {
          servers: {
            typescript: {
              command: process.execPath,
              args: [server, "--stdio"],
              extensionToLanguage: { ts: "typescript" },
              documentSync: "retained" as const,
              initializationOptions: {
                tsserver: { useSyntaxServer: "never" },
                disableAutomaticTypingAcquisition: true,
                preferences: { includePackageJsonAutoImports: "off" }
              }
            }
          }
        }
        const layer = LspStdio.layer(config).pipe(
          Layer.provideMerge(LspService.layer),
          Layer.provide(NodeContext.layer)
        )
        const circle = pathToFileURL(`${workspace}/circle.ts`).href
        const definition = LspService.query({
          operation: "goToDefinition",
          filePath: "main.ts",
          position: { line: 6, character: 27 },
          workspaceRoot: workspace
        }).pipe(
          Effect.map((r) =>
            r.kind === "locations" ? r.locations.filter((l) => l.uri === circle).map((l) => l.range.start.line) : []
          )
        )
        const lines = yield* Effect.gen(function*() {
          // Opens circle.ts and keeps it open.
          yield* LspService.query({
            operation: "hover",
            filePath: "circle.ts",
            position: { line: 2, character: 13 },
            workspaceRoot: workspace
          })
          const before = yield* definition
          NodeFs.writeFileSync(
            `${workspace}/circle.ts`,
            "// a new first line\n" + NodeFs.readFileSync(`${workspace}/circle.ts`, "utf8")
          )
          const after = yield* definition
          return { before, after }
        }).pipe(Effect.provide(layer))
        // The class and its constructor moved down by one line in the server's view too.
        assert.deepStrictEqual(lines.before, [2, 3])
        assert.deepStrictEqual(lines.after, [3, 4])
      }),
    { timeout: 90_000 }
  )
})
