import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { type LspError, LspService } from "@lsp-seam/lsp"
import { Effect, Either, Exit, Fiber, Layer, Ref, Schema, Scope, TestClock } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath_ from "node:path"
import { pathToFileURL } from "node:url"
import * as ProjectModel from "../src/internal/host/projectModel.js"
import * as LspStdio from "../src/LspStdio.js"
import * as Testing from "../src/testing.js"
import { makeWorkspace } from "./support/fakeHost.js"

// Addressing by position or by symbol, checked against the file's lines before anything reaches a server. The
// fake server answers a definition at the position it was asked, so the answer shows what the host sent.

const Position = Schema.Struct({ line: Schema.Number, character: Schema.Number })
const AtParams = Schema.Struct({ position: Position })

const Opened = Schema.Struct({ textDocument: Schema.Struct({ uri: Schema.String }) })

const echoing = (
  starts: Ref.Ref<number>,
  asked: Ref.Ref<ReadonlyArray<typeof Position.Type>>,
  empty: boolean,
  opened: Ref.Ref<ReadonlyArray<string>>
) =>
(
  process: Testing.MemoryProcess
) =>
  Effect.zipRight(
    Ref.update(starts, (n) => n + 1),
    Testing.fakeLanguageServer({
      onNotification: (method, params) =>
        method === "textDocument/didOpen"
          ? Ref.update(opened, (all) => [...all, Schema.decodeUnknownSync(Opened)(params).textDocument.uri])
          : Effect.void,
      handlers: {
        "textDocument/definition": (request) =>
          Effect.gen(function*() {
            const { position } = Schema.decodeUnknownSync(AtParams)(request.params)
            yield* Ref.update(asked, (all) => [...all, position])
            return Testing.result(
              empty ? [] : [{ uri: "file:///x.fake", range: { start: position, end: position } }]
            )
          }),
        "textDocument/hover": () => Effect.succeed(Testing.result(null)),
        "textDocument/references": () => Effect.succeed(Testing.result([]))
      }
    })(process)
  )

const text = [
  "const add = (a, b) => a + b",
  "",
  "  // add is used below",
  "const total = add(1, add(2, 3))",
  "const 😀x = \"add\"; add(4, 5)"
].join("\n")

const setup = (
  documentSync: "retained" | "transient",
  empty = false,
  projectMarkers: ReadonlyArray<string> = [],
  files: Record<string, string> = {},
  looseFiles: { readonly maxFiles: number; readonly maxBytes: number } | null = null
) =>
  Effect.gen(function*() {
    const workspace = yield* makeWorkspace({ "main.fake": text, ...files })
    // Changed long ago: a retained server's copy is trusted by its stat, so later queries check positions
    // against the held lines without reading the file.
    const longAgo = new Date(Date.now() - 3_600_000)
    NodeFs.utimesSync(NodePath_.join(workspace, "main.fake"), longAgo, longAgo)
    const starts = yield* Ref.make(0)
    const asked = yield* Ref.make<ReadonlyArray<typeof Position.Type>>([])
    const opened = yield* Ref.make<ReadonlyArray<string>>([])
    const scope = yield* Effect.acquireRelease(Scope.make(), (scope) => Scope.close(scope, Exit.void))
    const context = yield* Layer.buildWithScope(
      LspStdio.layer({
        servers: {
          mem: {
            command: process.execPath,
            args: ["fake"],
            extensionToLanguage: { fake: "fake" },
            documentSync,
            projectMarkers,
            looseFiles,
            readiness: { quietMs: 1, progress: false, maxWaitMs: 1 }
          }
        }
      }, { local: false }).pipe(
        Layer.provideMerge(LspService.layer),
        Layer.provide(Layer.mergeAll(
          Testing.layerMemoryExecutor(() => echoing(starts, asked, empty, opened)),
          NodeFileSystem.layer,
          NodePath.layer
        ))
      ),
      scope
    )
    const query = (
      operation: "goToDefinition" | "findReferences" | "hover",
      line: number,
      character: number,
      symbol?: string,
      filePath = "main.fake"
    ) =>
      Effect.provide(
        LspService.query({
          operation,
          filePath,
          position: { line, character },
          workspaceRoot: workspace,
          ...(symbol === undefined ? {} : { symbol })
        }),
        context
      ).pipe(Effect.either)
    return { asked, opened, query, starts, workspace }
  })

const right = <A>(either: Either.Either<A, LspError.LspError>): A => {
  if (Either.isLeft(either)) assert.fail(`${either.left.code}: ${either.left.message}`)
  return either.right
}

const left = (either: Either.Either<unknown, LspError.LspError>, code: string) => {
  if (Either.isRight(either)) assert.fail(`expected ${code}, got ${JSON.stringify(either.right)}`)
  assert.strictEqual(either.left.code, code, either.left.message)
  return either.left
}

for (const documentSync of ["retained", "transient"] as const) {
  describe(`LspStdio addressing (${documentSync})`, () => {
    it.scopedLive("a symbol on the line is queried where it stands, and the answer says so", () =>
      Effect.gen(function*() {
        const { asked, query } = yield* setup(documentSync)
        // Line 4 (zero-based 3) has `add` at 14 and 21; character 20 is nearest the second.
        const result = right(yield* query("goToDefinition", 3, 20, "add"))
        assert.deepStrictEqual(yield* Ref.get(asked), [{ line: 3, character: 21 }])
        assert.deepStrictEqual(result.resolved, {
          symbol: "add",
          position: { line: 3, character: 21 },
          requested: { line: 3, character: 20 },
          occurrences: 2
        })
      }))

    it.scopedLive("a symbol on a nearby line is found, nearest line first", () =>
      Effect.gen(function*() {
        const { asked, query } = yield* setup(documentSync)
        // `total` is only on line 3 (zero-based); asked on line 1, two lines away.
        const result = right(yield* query("goToDefinition", 1, 0, "total"))
        assert.deepStrictEqual(yield* Ref.get(asked), [{ line: 3, character: 6 }])
        assert.deepStrictEqual(result.resolved?.position, { line: 3, character: 6 })
      }))

    it.scopedLive("columns count UTF-16 units: an astral character before the symbol counts two", () =>
      Effect.gen(function*() {
        const { asked, query } = yield* setup(documentSync)
        // `const 😀x = "add"; add(4, 5)`: the emoji takes columns 6 and 7, so the string's "add" starts at 13 and
        // the call's at 19. The string's is passed over for the call's, with character 0 too, and the echo shows
        // it. At column 20, inside the call's, the call.
        right(yield* query("goToDefinition", 4, 20, "add"))
        assert.deepStrictEqual(yield* Ref.get(asked), [{ line: 4, character: 19 }])
        const first = right(yield* query("goToDefinition", 4, 0, "add"))
        assert.deepStrictEqual(first.resolved?.position, { line: 4, character: 19 })
        assert.strictEqual(first.resolved?.occurrences, 1)
      }))

    it.scopedLive("a symbol not in the window is LSP_SYMBOL_NOT_FOUND, listing the line's identifiers, and starts no server", () =>
      Effect.gen(function*() {
        const { query, starts } = yield* setup(documentSync)
        const error = left(yield* query("goToDefinition", 0, 0, "subtract"), "LSP_SYMBOL_NOT_FOUND")
        assert.include(error.message, "const (column 1), add (column 7), a (column 14), b (column 17)")
        assert.strictEqual(yield* Ref.get(starts), 0)
      }))

    it.scopedLive("a line or column past the end is LSP_POSITION_OUT_OF_RANGE, before any server starts", () =>
      Effect.gen(function*() {
        const { query, starts } = yield* setup(documentSync)
        const line = left(yield* query("hover", 399, 0), "LSP_POSITION_OUT_OF_RANGE")
        assert.include(line.message, "which has 5 lines")
        const column = left(yield* query("hover", 0, 399), "LSP_POSITION_OUT_OF_RANGE")
        assert.include(column.message, "which has 27 characters")
        assert.strictEqual(yield* Ref.get(starts), 0)
      }))

    it.scopedLive("without a symbol the position is used exactly as given, even off an identifier", () =>
      Effect.gen(function*() {
        const { asked, query } = yield* setup(documentSync)
        const result = right(yield* query("goToDefinition", 3, 13))
        assert.deepStrictEqual(yield* Ref.get(asked), [{ line: 3, character: 13 }])
        assert.isUndefined(result.resolved)
        assert.isUndefined(result.offIdentifier, "not empty: no note")
      }))

    it.scopedLive("an empty answer off any identifier lists the line's identifiers", () =>
      Effect.gen(function*() {
        const { query } = yield* setup(documentSync, true)
        const off = right(yield* query("goToDefinition", 3, 13))
        assert.deepStrictEqual(off.offIdentifier, {
          line: 3,
          character: 13,
          identifiers: [{ name: "const", character: 0 }, { name: "total", character: 6 }, {
            name: "add",
            character: 14
          }, { name: "add", character: 21 }]
        })
        // On an identifier, an empty answer is just empty.
        const on = right(yield* query("goToDefinition", 3, 7))
        assert.isUndefined(on.offIdentifier)
        const hover = right(yield* query("hover", 1, 0))
        assert.deepStrictEqual(hover.offIdentifier, { line: 1, character: 0, identifiers: [] })
      }))

    it.scopedLive("a file changed on disk is checked against its new lines", () =>
      Effect.gen(function*() {
        const { query, workspace } = yield* setup(documentSync)
        right(yield* query("goToDefinition", 3, 0, "total"))
        NodeFs.writeFileSync(NodePath_.join(workspace, "main.fake"), "let renamed = 1\n")
        const error = left(yield* query("goToDefinition", 3, 0, "total"), "LSP_POSITION_OUT_OF_RANGE")
        assert.include(error.message, "which has 2 lines")
        const found = right(yield* query("goToDefinition", 0, 0, "renamed"))
        assert.deepStrictEqual(found.resolved?.position, { line: 0, character: 4 })
      }))

    it.scopedLive("a cross-file answer about a file no project marker governs is flagged no-project", () =>
      Effect.gen(function*() {
        const { query, workspace } = yield* setup(documentSync, false, ["proj.json", "other.json"])
        const flagged = right(yield* query("findReferences", 0, 6))
        assert.isTrue(flagged.incomplete)
        assert.deepStrictEqual(flagged.incompleteReasons?.map((r) => r.reason), ["no-project"])
        assert.include(flagged.incompleteReasons?.[0]?.message ?? "", "proj.json or other.json")
        // Answers about one place are not flagged.
        assert.isUndefined(right(yield* query("goToDefinition", 0, 6)).incomplete)
        // A marker above the workspace does not govern it; one in the workspace root does.
        NodeFs.writeFileSync(NodePath_.join(NodePath_.dirname(workspace), "proj.json"), "{}")
        try {
          assert.isTrue(right(yield* query("findReferences", 0, 6)).incomplete)
        } finally {
          NodeFs.rmSync(NodePath_.join(NodePath_.dirname(workspace), "proj.json"))
        }
        NodeFs.writeFileSync(NodePath_.join(workspace, "other.json"), "{}")
        assert.isUndefined(right(yield* query("findReferences", 0, 6)).incomplete)
      }))

    it.scopedLive("a marker in a directory between the file and the workspace root governs it", () =>
      Effect.gen(function*() {
        const { query, workspace } = yield* setup(documentSync, false, ["proj.json"], {
          "pkg/src/deep.fake": "x\n",
          "lib/other.fake": "y\n"
        })
        NodeFs.writeFileSync(NodePath_.join(workspace, "pkg", "proj.json"), "{}")
        // A directory named like the marker is not one.
        NodeFs.mkdirSync(NodePath_.join(workspace, "lib", "proj.json"))
        assert.isUndefined(right(yield* query("findReferences", 0, 0, undefined, "pkg/src/deep.fake")).incomplete)
        assert.isTrue(right(yield* query("findReferences", 0, 0, undefined, "lib/other.fake")).incomplete)
      }))

    it.scopedLive("without a project, a small workspace's files are opened first instead of flagging the answer", () =>
      Effect.gen(function*() {
        const { opened, query, workspace } = yield* setup(documentSync, false, ["proj.json"], {
          "lib/a.fake": "a\n",
          "b.fake": "b\n",
          "notes.txt": "not a source of this server\n"
        }, { maxFiles: 3, maxBytes: 1_000_000 })
        const result = right(yield* query("findReferences", 0, 6))
        const uri = (file: string) => pathToFileURL(NodePath_.join(workspace, file)).href
        if (documentSync === "retained") {
          assert.isUndefined(result.incomplete, JSON.stringify(result.incompleteReasons))
          assert.sameMembers([...(yield* Ref.get(opened))], [uri("main.fake"), uri("b.fake"), uri("lib/a.fake")])
          // Opened once: a second question opens nothing new.
          right(yield* query("findReferences", 0, 6))
          assert.strictEqual((yield* Ref.get(opened)).length, 3)
        } else {
          // Transient documents cannot stay open for the server: flagged as without the bound.
          assert.deepStrictEqual(result.incompleteReasons?.map((r) => r.reason), ["no-project"])
        }
      }))

    it.scopedLive("beyond the bound the files are not opened and the answer says why", () =>
      Effect.gen(function*() {
        const { opened, query } = yield* setup(documentSync, false, ["proj.json"], {
          "a.fake": "a\n",
          "b.fake": "b\n",
          "c.fake": "c\n"
        }, { maxFiles: 3, maxBytes: 1_000_000 })
        const result = right(yield* query("findReferences", 0, 6))
        assert.deepStrictEqual(result.incompleteReasons?.map((r) => r.reason), ["no-project"])
        if (documentSync === "retained") assert.include(result.incompleteReasons?.[0]?.message ?? "", "more than 3")
        assert.strictEqual((yield* Ref.get(opened)).length, 1, "only the queried file")
      }))
  })
}

describe("LspStdio loose files on the Effect clock", () => {
  /**
   * Runs `effect` to its end, turning the event loop and moving TestClock 1 ms at a time as it waits, by at
   * most 2 s in all (far below `relistAfterMs`). Bounded by wall time, not turns: the file reads go through
   * libuv's thread pool, which on a loaded machine takes longer than thousands of turns.
   */
  const drive = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(effect)
      const deadline = Date.now() + 20_000
      for (let turn = 0; Date.now() < deadline; turn++) {
        const done = yield* Fiber.poll(fiber)
        if (done._tag === "Some") return yield* done.value
        yield* Effect.async<void>((resume) => {
          setImmediate(() => resume(Effect.void))
        })
        if (turn < 2_000) yield* TestClock.adjust(1)
      }
      return yield* Effect.dieMessage("the query never ended")
    })

  it.scoped("the workspace is listed again only after relistAfterMs: a file added meanwhile is opened then", () =>
    Effect.gen(function*() {
      const { opened, query, workspace } = yield* setup("retained", false, ["proj.json"], { "a.fake": "a\n" }, {
        maxFiles: 10,
        maxBytes: 1_000_000
      })
      const uri = (file: string) => pathToFileURL(NodePath_.join(workspace, file)).href
      right(yield* drive(query("findReferences", 0, 6)))
      assert.sameMembers([...(yield* Ref.get(opened))], [uri("main.fake"), uri("a.fake")])
      NodeFs.writeFileSync(NodePath_.join(workspace, "b.fake"), "b\n")
      right(yield* drive(query("findReferences", 0, 6)))
      assert.notInclude(yield* Ref.get(opened), uri("b.fake"), "not listed again so soon")
      yield* TestClock.adjust(ProjectModel.relistAfterMs)
      right(yield* drive(query("findReferences", 0, 6)))
      assert.include(yield* Ref.get(opened), uri("b.fake"))
    }))
})
