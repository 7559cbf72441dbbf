/**
 * Bodies (`includeBody`) and rename previews against real servers (typescript-language-server, pyright): a
 * body is the file's own text of the declaration a location points at; a preview is exactly the edit the
 * server itself answers when asked directly, and no fixture file changes.
 */
import { NodeContext } from "@effect/platform-node"
import { assert, describe, layer } from "@effect/vitest"
import { LspError, type LspQuery, type LspResult, LspService } from "@lsp-seam/lsp"
import { Effect, Layer } from "effect"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as LspStdio from "../src/LspStdio.js"
import * as Servers from "./compat/servers.js"
import * as Raw from "./support/rawServer.js"

const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url))
const tsRoot = NodeFs.realpathSync(NodePath.join(fixtures, "rename-ts"))
const pyRoot = NodeFs.realpathSync(NodePath.join(fixtures, "rename-py"))
const pyBodies = NodeFs.realpathSync(NodePath.join(fixtures, "bodies-py"))
const tsBodies = NodeFs.realpathSync(NodePath.join(fixtures, "bodies-ts"))

const typescript = Servers.typescript.servers.typescript!
const python = Servers.pyright.servers.python!

const HostLayer = LspStdio.layer({ servers: { typescript, python } }).pipe(
  Layer.provideMerge(LspService.layer),
  Layer.provide(NodeContext.layer)
)

/** Lines `from`..`to` (zero-based, inclusive) of a fixture file, as the file holds them. */
const linesOf = (root: string, file: string, from: number, to: number) =>
  NodeFs.readFileSync(NodePath.join(root, file), "utf8").split("\n").slice(from, to + 1).join("\n")

/** A hash of every file of a fixture, by relative path. */
const hashes = (root: string): Record<string, string> =>
  Object.fromEntries(
    NodeFs.readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const path = NodePath.join(entry.parentPath, entry.name)
        return [
          NodePath.relative(root, path),
          NodeCrypto.createHash("sha256").update(NodeFs.readFileSync(path)).digest("hex")
        ]
      })
  )

const relative = (root: string, uri: string) => NodePath.relative(root, fileURLToPath(uri))

/** Each location's file, first line and body text, sorted. */
const bodies = (root: string, result: LspResult.LspQueryResult) => {
  assert.strictEqual(result.kind, "locations")
  if (result.kind !== "locations") return []
  return result.locations
    .map((l) => [relative(root, l.uri), l.body?.range.start.line ?? -1, l.body?.text ?? "(none)"] as const)
    .sort((a, b) => a[0].localeCompare(b[0]) || a[1] - b[1])
}

/** The zero-based position of the `nth` occurrence of `word` on line `line` of a fixture file. */
const find = (root: string, file: string, line: number, word: string, nth = 1): LspQuery.LspPosition => {
  const text = NodeFs.readFileSync(NodePath.join(root, file), "utf8").split("\n")[line]!
  let character = -1
  for (let i = 0; i < nth; i++) character = text.indexOf(word, character + 1)
  assert.isAtLeast(character, 0, `${word} on ${file}:${line}`)
  return { line, character }
}

const at = (
  operation: LspQuery.LspPositionOperation,
  root: string,
  filePath: string,
  line: number,
  word: string,
  nth = 1
) =>
  LspService.query({
    operation,
    filePath,
    position: find(root, filePath, line, word, nth),
    workspaceRoot: root,
    includeBody: true
  })

const slow = { timeout: 120_000 }

layer(HostLayer, { timeout: "180 seconds", excludeTestServices: true })("bodies against real servers", (it) => {
  it.effect("TypeScript: a function, a class (through an import alias), a method, an arrow function", () =>
    Effect.gen(function*() {
      // main.ts line 12: export const report = [describe(scale(total, 3)), describe("done"), tape.measure(double(4))]
      const fn = yield* at("goToDefinition", tsRoot, "main.ts", 11, "scale")
      assert.deepStrictEqual(bodies(tsRoot, fn), [["geometry.ts", 1, linesOf(tsRoot, "geometry.ts", 1, 3)]])
      const cls = yield* at("goToDefinition", tsRoot, "main.ts", 9, "Tape")
      assert.deepStrictEqual(
        bodies(tsRoot, cls).filter(([file]) => file === "geometry.ts"),
        [["geometry.ts", 15, linesOf(tsRoot, "geometry.ts", 15, 21)]]
      )
      const method = yield* at("goToDefinition", tsRoot, "main.ts", 11, "measure")
      assert.deepStrictEqual(bodies(tsRoot, method), [["geometry.ts", 18, linesOf(tsRoot, "geometry.ts", 18, 20)]])
      const arrow = yield* at("goToDefinition", tsRoot, "main.ts", 11, "double")
      assert.deepStrictEqual(bodies(tsRoot, arrow), [["geometry.ts", 11, linesOf(tsRoot, "geometry.ts", 11, 13)]])
    }))

  it.effect("TypeScript: overloads: a signature is its own declaration, the implementation has the code", () =>
    Effect.gen(function*() {
      // describe(number) from the call with a number; describe(string) from the call with a string.
      const byNumber = yield* at("goToDefinition", tsRoot, "main.ts", 11, "describe")
      assert.deepStrictEqual(bodies(tsRoot, byNumber), [["geometry.ts", 6, linesOf(tsRoot, "geometry.ts", 6, 6)]])
      const byString = yield* at("goToDefinition", tsRoot, "main.ts", 11, "describe", 2)
      assert.deepStrictEqual(bodies(tsRoot, byString), [["geometry.ts", 5, linesOf(tsRoot, "geometry.ts", 5, 5)]])
      const implementation = yield* at("goToDefinition", tsRoot, "geometry.ts", 7, "describe")
      assert.deepStrictEqual(bodies(tsRoot, implementation), [
        ["geometry.ts", 7, linesOf(tsRoot, "geometry.ts", 7, 9)]
      ])
    }))

  it.effect("TypeScript: goToImplementation of an interface method gives each implementation's code", () =>
    Effect.gen(function*() {
      const found = yield* at("goToImplementation", tsRoot, "shape.ts", 2, "area")
      assert.deepStrictEqual(bodies(tsRoot, found), [
        ["circle.ts", 5, linesOf(tsRoot, "circle.ts", 5, 7)],
        ["square.ts", 5, linesOf(tsRoot, "square.ts", 5, 7)]
      ])
    }))

  it.effect("TypeScript: documentSymbol and workspaceSymbol bodies are their declarations", () =>
    Effect.gen(function*() {
      const outline = yield* LspService.query({
        operation: "documentSymbol",
        filePath: "geometry.ts",
        workspaceRoot: tsRoot,
        includeBody: true
      })
      assert.strictEqual(outline.kind, "symbols")
      if (outline.kind !== "symbols") return
      const ruler = outline.symbols.find((s) => s.name === "Ruler")
      assert.strictEqual(ruler?.body?.text, linesOf(tsRoot, "geometry.ts", 15, 21))
      for (const symbol of outline.symbols) {
        const body = symbol.body!
        assert.strictEqual(
          body.text,
          linesOf(tsRoot, "geometry.ts", symbol.range.start.line, symbol.range.end.line),
          symbol.name
        )
      }
      const search = yield* LspService.query({
        operation: "workspaceSymbol",
        query: "Ruler",
        filePath: "main.ts",
        workspaceRoot: tsRoot,
        includeBody: true
      })
      assert.strictEqual(search.kind, "symbols")
      if (search.kind !== "symbols") return
      const found = search.symbols.find((s) => s.name === "Ruler" && s.uri.endsWith("geometry.ts"))
      assert.strictEqual(found?.body?.text, linesOf(tsRoot, "geometry.ts", 15, 21))
    }))

  it.effect("without includeBody no location carries a body", () =>
    Effect.gen(function*() {
      const plain = yield* LspService.query({
        operation: "goToDefinition",
        filePath: "main.ts",
        position: { line: 11, character: 33 },
        workspaceRoot: tsRoot
      })
      assert.strictEqual(plain.kind, "locations")
      if (plain.kind === "locations") assert.isTrue(plain.locations.every((l) => l.body === undefined))
    }))

  it.effect("Python: a function and a class (through an import alias)", () =>
    Effect.gen(function*() {
      // main.py line 5: report = [scale(2.0, 3.0), tape.measure(4.0)]
      const fn = yield* at("goToDefinition", pyRoot, "main.py", 4, "scale")
      assert.deepStrictEqual(bodies(pyRoot, fn), [["shapes.py", 0, linesOf(pyRoot, "shapes.py", 0, 2)]])
      const method = yield* at("goToDefinition", pyRoot, "main.py", 4, "measure")
      assert.deepStrictEqual(bodies(pyRoot, method), [["shapes.py", 8, linesOf(pyRoot, "shapes.py", 8, 9)]])
      const cls = yield* at("goToDefinition", pyRoot, "main.py", 3, "Tape")
      assert.deepStrictEqual(
        bodies(pyRoot, cls).filter(([file]) => file === "shapes.py"),
        [["shapes.py", 5, linesOf(pyRoot, "shapes.py", 5, 9)]]
      )
    }), slow)

  // bodies-py/config.py: multi-line assignments (brackets, a continuation line, a triple-quoted string), a
  // function with two decorators (one spanning lines), a decorated class with a multi-line attribute.
  it.effect(
    "Python: a multi-line assignment and a decorated definition are whole; the next one is not in",
    () =>
      Effect.gen(function*() {
        const inConfig = (result: LspResult.LspQueryResult) =>
          bodies(pyBodies, result).filter(([file]) => file === "config.py")
        const whole = (
          from: number,
          to: number
        ) => [["config.py", from, linesOf(pyBodies, "config.py", from, to)] as const]
        const expected = [
          ["SETTINGS", whole(3, 6)],
          ["LIMIT", whole(7, 7)],
          ["MESSAGE", whole(8, 11)],
          ["PATTERN", whole(12, 13)],
          ["DOC", whole(14, 17)],
          ["cached", whole(25, 30)],
          ["origin", whole(35, 37)],
          ["norm", whole(40, 42)]
        ] as const
        for (const [word, body] of expected) {
          // main.py line 3: used = [SETTINGS, LIMIT, MESSAGE, PATTERN, DOC, cached(1), Point().origin, Point().norm]
          assert.deepStrictEqual(inConfig(yield* at("goToDefinition", pyBodies, "main.py", 2, word)), body, word)
        }
        // A reference inside the dictionary is in the assignment's body.
        const depth = yield* at("findReferences", pyBodies, "config.py", 2, "DEPTH")
        assert.deepStrictEqual(inConfig(depth), [...whole(2, 2), ...whole(3, 6)])
        const outline = yield* LspService.query({
          operation: "documentSymbol",
          filePath: "config.py",
          workspaceRoot: pyBodies,
          includeBody: true
        })
        assert.strictEqual(outline.kind, "symbols")
        if (outline.kind !== "symbols") return
        const bodyOf = (name: string) => outline.symbols.find((s) => s.name === name)?.body?.text
        assert.strictEqual(bodyOf("SETTINGS"), linesOf(pyBodies, "config.py", 3, 6))
        assert.strictEqual(bodyOf("DOC"), linesOf(pyBodies, "config.py", 14, 17))
        assert.strictEqual(bodyOf("NEXT"), linesOf(pyBodies, "config.py", 18, 18))
        assert.strictEqual(bodyOf("Point"), linesOf(pyBodies, "config.py", 33, 42))
      }),
    slow
  )

  it.effect(
    "TypeScript: a multi-line const and type are whole; the next declaration is not in",
    () =>
      Effect.gen(function*() {
        // main.ts line 3: export const all: [typeof table, Pair | undefined, number, typeof handlers] = [...]
        const expected = [["table", 0, 3], ["Pair", 4, 6], ["next", 7, 7], ["handlers", 8, 11]] as const
        for (const [word, from, to] of expected) {
          const found = yield* at("goToDefinition", tsBodies, "main.ts", 2, word)
          assert.deepStrictEqual(bodies(tsBodies, found), [["decls.ts", from, linesOf(tsBodies, "decls.ts", from, to)]])
        }
      }),
    slow
  )
})

interface RawSpec {
  readonly command: string
  readonly args?: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
}

const tsServer = typescript as RawSpec
const pyServer = python as RawSpec

/** The raw server's own edit for the same rename, flattened by the test. */
const rawRename = (
  server: RawSpec,
  root: string,
  languageId: string,
  file: string,
  position: LspQuery.LspPosition,
  newName: string,
  initializationOptions?: unknown
) =>
  Effect.promise(async () => {
    const raw = await Raw.start(server.command, server.args ?? [], root, initializationOptions, server.env)
    try {
      await raw.open(NodePath.join(root, file), languageId)
      const textDocument = { uri: pathToFileURL(NodePath.join(root, file)).href }
      const prepared = await raw.request("textDocument/prepareRename", { textDocument, position }).then(
        (answer) => answer,
        (error: Error) => ({ refused: error.message })
      )
      if (prepared === null || (typeof prepared === "object" && "refused" in prepared)) return { prepared, edits: [] }
      return {
        prepared,
        edits: Raw.flatten(await raw.request("textDocument/rename", { textDocument, position, newName }))
      }
    } finally {
      await raw.close()
    }
  })

const preview = (root: string, filePath: string, position: LspQuery.LspPosition, newName: string) =>
  Effect.gen(function*() {
    const before = hashes(root)
    const result = yield* Effect.either(
      LspService.query({ operation: "renamePreview", filePath, position, workspaceRoot: root, newName })
    )
    assert.deepStrictEqual(hashes(root), before, "a rename preview changed a fixture file")
    return result
  })

const asEdits = (result: LspResult.LspQueryResult) => {
  assert.strictEqual(result.kind, "edits")
  if (result.kind !== "edits") return []
  assert.deepStrictEqual(result.resourceOperations, [])
  return result.edits.map(({ newText, range, uri }) => ({ uri, range, newText }))
}

layer(HostLayer, { timeout: "180 seconds", excludeTestServices: true })("renamePreview against real servers", (it) => {
  const tsOptions = (typescript as { readonly initializationOptions?: unknown }).initializationOptions
  const cases = [
    {
      name: "a function used across files",
      file: "geometry.ts",
      position: { line: 1, character: 17 },
      newName: "resize"
    },
    {
      name: "an interface method with implementations",
      file: "shape.ts",
      position: { line: 2, character: 2 },
      newName: "surface"
    },
    { name: "an import alias", file: "main.ts", position: find(tsRoot, "main.ts", 9, "Tape"), newName: "Measure" }
  ] as const
  for (const c of cases) {
    it.effect(`TypeScript: ${c.name} equals the server's own WorkspaceEdit`, () =>
      Effect.gen(function*() {
        const result = yield* preview(tsRoot, c.file, c.position, c.newName)
        assert.isTrue(result._tag === "Right", JSON.stringify(result))
        if (result._tag !== "Right") return
        const edits = asEdits(result.right)
        const raw = yield* rawRename(tsServer, tsRoot, "typescript", c.file, c.position, c.newName, tsOptions)
        assert.deepStrictEqual(edits, raw.edits)
        assert.isAbove(edits.length, 0)
        if (result.right.kind === "edits") {
          for (const edit of result.right.edits) {
            assert.isUndefined(edit.outsideWorkspace)
            assert.isDefined(edit.oldText)
          }
        }
        if (c.name === "an import alias") {
          // Only the alias changes: the class keeps its name in geometry.ts.
          assert.deepStrictEqual([...new Set(edits.map((e) => relative(tsRoot, e.uri)))], ["main.ts"])
        }
        if (c.name === "an interface method with implementations") {
          assert.deepStrictEqual(
            [...new Set(edits.map((e) => relative(tsRoot, e.uri)))].sort(),
            ["circle.ts", "main.ts", "shape.ts", "square.ts"]
          )
        }
      }), slow)
  }

  it.effect(
    "TypeScript: a keyword is LSP_CANNOT_RENAME, as the server's prepareRename says",
    () =>
      Effect.gen(function*() {
        const position = { line: 13, character: 2 }
        const result = yield* preview(tsRoot, "main.ts", position, "x")
        assert.isTrue(result._tag === "Left" && LspError.isLspError(result.left))
        if (result._tag === "Left") {
          assert.strictEqual(result.left.code, "LSP_CANNOT_RENAME")
          assert.include(result.left.message, "You cannot rename this element")
        }
        // The server refuses it too: typescript-language-server with an error, others with null.
        const raw = yield* rawRename(tsServer, tsRoot, "typescript", "main.ts", position, "x", tsOptions)
        assert.deepStrictEqual(raw.prepared, {
          refused: "-32603: Request textDocument/prepareRename failed with message: You cannot rename this element."
        })
      }),
    slow
  )

  it.effect(
    "TypeScript: a number and a string literal are LSP_CANNOT_RENAME, as the server's prepareRename says",
    () =>
      Effect.gen(function*() {
        // circle.ts line 7: return Math.PI * this.radius ** 2; main.ts line 12: … describe("done") …
        const literals = [
          { file: "circle.ts", position: find(tsRoot, "circle.ts", 6, "2") },
          { file: "main.ts", position: find(tsRoot, "main.ts", 11, "\"done\"") }
        ]
        for (const { file, position } of literals) {
          const result = yield* preview(tsRoot, file, position, "x")
          assert.isTrue(result._tag === "Left", `${file}: ${JSON.stringify(result)}`)
          if (result._tag === "Left") {
            assert.strictEqual(result.left.code, "LSP_CANNOT_RENAME")
            assert.include(result.left.message, "You cannot rename this element")
          }
          const raw = yield* rawRename(tsServer, tsRoot, "typescript", file, position, "x", tsOptions)
          assert.deepStrictEqual(raw.prepared, {
            refused: "-32603: Request textDocument/prepareRename failed with message: You cannot rename this element."
          })
        }
      }),
    slow
  )

  it.effect(
    "TypeScript: a symbol of the standard library is LSP_CANNOT_RENAME, with the server's reason",
    () =>
      Effect.gen(function*() {
        // circle.ts line 7: return Math.PI * this.radius ** 2
        const result = yield* preview(tsRoot, "circle.ts", find(tsRoot, "circle.ts", 6, "PI"), "Tau")
        assert.isTrue(result._tag === "Left")
        if (result._tag === "Left") {
          assert.strictEqual(result.left.code, "LSP_CANNOT_RENAME")
          assert.include(result.left.message, "standard TypeScript library")
        }
      }),
    slow
  )

  it.effect("Python: a keyword is LSP_CANNOT_RENAME, as the server's prepareRename says", () =>
    Effect.gen(function*() {
      const position = find(pyRoot, "shapes.py", 5, "class")
      const result = yield* preview(pyRoot, "shapes.py", position, "x")
      assert.isTrue(result._tag === "Left")
      if (result._tag === "Left") assert.strictEqual(result.left.code, "LSP_CANNOT_RENAME")
      const raw = yield* rawRename(pyServer, pyRoot, "python", "shapes.py", position, "x")
      assert.isNull(raw.prepared)
    }), slow)

  it.effect("Python: a function used across files equals the server's own WorkspaceEdit", () =>
    Effect.gen(function*() {
      const position = { line: 0, character: 5 }
      const result = yield* preview(pyRoot, "shapes.py", position, "resize")
      assert.isTrue(result._tag === "Right", JSON.stringify(result))
      if (result._tag !== "Right") return
      const edits = asEdits(result.right)
      const raw = yield* rawRename(pyServer, pyRoot, "python", "shapes.py", position, "resize")
      assert.deepStrictEqual(edits, raw.edits)
      assert.deepStrictEqual([...new Set(edits.map((e) => relative(pyRoot, e.uri)))].sort(), ["main.py", "shapes.py"])
    }), slow)
})

// gopls where it is installed (Debian's gopls and go, as the compat suite): bodies of a Go function and method,
// and a rename across files equal to its own.
const goInstalled = ["gopls", "go"].every((name) =>
  (process.env.PATH ?? "").split(NodePath.delimiter).some((dir) =>
    dir !== "" && NodeFs.existsSync(NodePath.join(dir, name))
  )
)
const goRoot = NodeFs.realpathSync(NodePath.join(fixtures, "compat", "gopls"))
const go = Servers.gopls.servers.go!

describe.skipIf(!goInstalled)("gopls", () => {
  layer(
    LspStdio.layer({ servers: { go } }).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer)),
    { timeout: "180 seconds", excludeTestServices: true }
  )("bodies and renamePreview against gopls", (it) => {
    it.effect("a function's and a method's bodies are the file's text", () =>
      Effect.gen(function*() {
        // total.go line 16: var total = TotalArea(all) + disc; line 14: ... Circle{Radius: 3}.Area()
        const fn = yield* at("goToDefinition", goRoot, "total.go", 15, "TotalArea")
        assert.deepStrictEqual(bodies(goRoot, fn), [["total.go", 3, linesOf(goRoot, "total.go", 3, 9)]])
        const method = yield* at("goToDefinition", goRoot, "total.go", 13, "Area")
        assert.deepStrictEqual(bodies(goRoot, method), [["shape.go", 11, linesOf(goRoot, "shape.go", 11, 11)]])
      }), slow)

    it.effect("a function used across files equals the server's own WorkspaceEdit", () =>
      Effect.gen(function*() {
        const position = find(goRoot, "total.go", 3, "TotalArea")
        const result = yield* preview(goRoot, "total.go", position, "SumAreas")
        assert.isTrue(result._tag === "Right", JSON.stringify(result))
        if (result._tag !== "Right") return
        const edits = asEdits(result.right)
        const raw = yield* rawRename(go as RawSpec, goRoot, "go", "total.go", position, "SumAreas")
        assert.deepStrictEqual(edits, raw.edits)
        // The declaration, its use, and its doc comment (gopls renames the name there too).
        assert.strictEqual(edits.length, 3)
      }), slow)
  })
})

// clangd where it is installed (Debian's clangd, as the compat suite): a C struct and typedefs in a header are
// whole from their definitions, and one does not take in the next.
const clangdInstalled = (process.env.PATH ?? "").split(NodePath.delimiter).some((dir) =>
  dir !== "" && NodeFs.existsSync(NodePath.join(dir, "clangd"))
)

/** A fresh copy of bodies-c whose compilation database names the copy's absolute directory. */
const cRoot = () => {
  const root = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "lsp-seam-bodies-c-")))
  NodeFs.cpSync(NodePath.join(fixtures, "bodies-c"), root, { recursive: true })
  const database = NodePath.join(root, "compile_commands.json")
  const commands = JSON.parse(NodeFs.readFileSync(database, "utf8")) as Array<Record<string, unknown>>
  NodeFs.writeFileSync(database, JSON.stringify(commands.map((command) => ({ ...command, directory: root }))))
  return root
}

describe.skipIf(!clangdInstalled)("clangd", () => {
  const c = {
    ...Servers.clangd.servers.cpp!,
    extensionToLanguage: { ".c": "c", ".h": "c" }
  }
  layer(
    LspStdio.layer({ servers: { c } }).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer)),
    { timeout: "180 seconds", excludeTestServices: true }
  )("bodies against clangd", (it) => {
    it.effect("a struct and a typedef (of an anonymous struct, of a type) are whole", () =>
      Effect.gen(function*() {
        const root = cRoot()
        // main.c lines 8-10: struct point p = {1, 2}; size s = {3, 4}; count n = 0;
        const expected = [[7, "point", 0, 3], [8, "size", 5, 8], [9, "count", 10, 10]] as const
        for (const [line, word, from, to] of expected) {
          const found = yield* at("goToDefinition", root, "main.c", line, word)
          assert.deepStrictEqual(bodies(root, found), [["shapes.h", from, linesOf(root, "shapes.h", from, to)]], word)
        }
        const outline = yield* LspService.query({
          operation: "documentSymbol",
          filePath: "shapes.h",
          workspaceRoot: root,
          includeBody: true
        })
        assert.strictEqual(outline.kind, "symbols")
        if (outline.kind === "symbols") {
          const bodyOf = (name: string) => outline.symbols.find((s) => s.name === name)?.body?.text
          assert.strictEqual(bodyOf("point"), linesOf(root, "shapes.h", 0, 3))
          assert.strictEqual(bodyOf("size"), linesOf(root, "shapes.h", 5, 8))
        }
        NodeFs.rmSync(root, { recursive: true, force: true })
      }), slow)
  })
})
