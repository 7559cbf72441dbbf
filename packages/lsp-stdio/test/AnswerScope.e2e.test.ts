/**
 * The scope of a cross-file answer is defined by the question and the workspace, never by what earlier questions
 * opened (DESIGN §9), against real pyright from the repository root: a pyproject.toml whose `include` is src/
 * leaves tests/ out of pyright's program, yet findReferences and renamePreview find the uses in tests, and the
 * same question asked in a fresh host and in a host that has answered questions about other files answers alike.
 */
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { LspResult, LspService } from "@lsp-seam/lsp"
import { Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import { createRequire } from "node:module"
import * as LspStdio from "../src/LspStdio.js"
import type * as StdioConfig from "../src/StdioConfig.js"
import * as Scratch from "./support/scratchRepository.js"

const pyright = createRequire(import.meta.url).resolve("pyright/langserver.index.js")

/** A repository with a Python package in src/ (pyright's include) and its tests outside it. */
const makeRepository = () =>
  Scratch.make("scope", {
    "pyproject.toml": "[project]\nname = \"shapes\"\n\n[tool.pyright]\ninclude = [\"src\"]\n",
    "src/shapes/__init__.py": "",
    "src/shapes/core.py": "def area(width: int, height: int) -> int:\n    return width * height\n",
    "src/shapes/use.py": "from shapes.core import area\n\nsmall = area(1, 2)\nlarge = area(10, 20)\n",
    "tests/test_core.py": "from shapes.core import area\n\n\ndef test_area() -> None:\n    assert area(2, 3) == 6\n",
    "tests/test_more.py": "from shapes.core import area\n\n\ndef test_zero() -> None:\n    assert area(0, 3) == 0\n",
    // A virtual environment is nobody's source, whatever the configuration says.
    "venv/pyvenv.cfg": "home = /usr/bin\n",
    "venv/lib/site.py": "from shapes.core import area\n\nVALUE = area(5, 5)\n"
  })

const hostLayer = (excludedFiles: StdioConfig.ExcludedFiles | null) =>
  LspStdio.layer({
    servers: {
      python: {
        command: process.execPath,
        args: [pyright, "--stdio"],
        extensionToLanguage: { ".py": "python" },
        readiness: { quietMs: 1000, readyLog: "^(Found \\d+ source files?|No source files found)" },
        rootMarkers: [["pyproject.toml", "pyrightconfig.json", "setup.py", "setup.cfg"]],
        configuration: { python: { analysis: { extraPaths: ["src"] } } },
        excludedFiles
      }
    }
  }).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer))

const preset = { reader: "pyright" as const, maxFiles: 200, maxBytes: 4_000_000 }

/** findReferences of `area` at its definition (src/shapes/core.py, line 1): the files and lines of the uses. */
const referencesOfArea = (repository: string) =>
  Effect.map(
    LspService.query({
      operation: "findReferences",
      filePath: "src/shapes/core.py",
      position: { line: 0, character: 4 },
      workspaceRoot: repository
    }),
    (result) => ({
      places: result.kind === "locations"
        ? result.locations.map((l) => `${Scratch.relative(repository, l.uri)}:${l.range.start.line}`)
          .sort()
        : [],
      reasons: LspResult.incompleteReasonsOf(result).map((reason) => reason.reason),
      messages: LspResult.incompleteReasonsOf(result).map((reason) => reason.message)
    })
  )

/** A question about another file: the host keeps that file open afterwards. */
const hoverIn = (repository: string, filePath: string, line: number) =>
  LspService.query({ operation: "hover", filePath, position: { line, character: 11 }, workspaceRoot: repository })

const everyUse = [
  "src/shapes/core.py:0",
  "src/shapes/use.py:0",
  "src/shapes/use.py:2",
  "src/shapes/use.py:3",
  "tests/test_core.py:0",
  "tests/test_core.py:4",
  "tests/test_more.py:0",
  "tests/test_more.py:4"
]

describe("the scope of an answer", () => {
  it.live(
    "findReferences covers the files pyright's include leaves out, first asked and asked again",
    () =>
      Effect.gen(function*() {
        const repository = makeRepository()
        const fresh = yield* referencesOfArea(repository).pipe(Effect.provide(hostLayer(preset)))
        assert.deepStrictEqual(fresh.places, everyUse)
        assert.deepStrictEqual(fresh.reasons, [])

        const busy = yield* Effect.gen(function*() {
          yield* hoverIn(repository, "venv/lib/site.py", 2)
          yield* hoverIn(repository, "tests/test_more.py", 4)
          return yield* referencesOfArea(repository)
        }).pipe(Effect.provide(hostLayer(preset)))
        assert.deepStrictEqual(busy, fresh)
        NodeFs.rmSync(repository, { recursive: true, force: true })
      }),
    120_000
  )

  it.live(
    "beyond the bound the answer names what it left out, and an earlier question does not widen it",
    () =>
      Effect.gen(function*() {
        const repository = makeRepository()
        const bound = { ...preset, maxFiles: 1 }
        const fresh = yield* referencesOfArea(repository).pipe(Effect.provide(hostLayer(bound)))
        assert.deepStrictEqual(fresh.places, everyUse.filter((place) => !place.startsWith("tests/test_more.py")))
        assert.deepStrictEqual(fresh.reasons, ["excluded-by-config"])
        assert.include(fresh.messages[0], "tests/test_more.py")
        assert.include(fresh.messages[0], "pyproject.toml [tool.pyright]")

        const busy = yield* Effect.gen(function*() {
          yield* hoverIn(repository, "tests/test_more.py", 4)
          return yield* referencesOfArea(repository)
        }).pipe(Effect.provide(hostLayer(bound)))
        assert.deepStrictEqual(busy, fresh)
        NodeFs.rmSync(repository, { recursive: true, force: true })
      }),
    120_000
  )

  it.live(
    "a question asked from a left-out file beyond the bound keeps that file's own uses",
    () =>
      Effect.gen(function*() {
        const repository = makeRepository()
        const result = yield* LspService.query({
          operation: "findReferences",
          filePath: "tests/test_more.py",
          position: { line: 4, character: 11 },
          workspaceRoot: repository
        }).pipe(Effect.provide(hostLayer({ ...preset, maxFiles: 1 })))
        const places = result.kind === "locations"
          ? result.locations.map((l) => `${Scratch.relative(repository, l.uri)}:${l.range.start.line}`).sort()
          : []
        assert.includeMembers(places, ["tests/test_more.py:0", "tests/test_more.py:4"])
        NodeFs.rmSync(repository, { recursive: true, force: true })
      }),
    120_000
  )

  it.live("renamePreview edits the tests too", () =>
    Effect.gen(function*() {
      const repository = makeRepository()
      const result = yield* LspService.query({
        operation: "renamePreview",
        filePath: "src/shapes/core.py",
        position: { line: 0, character: 4 },
        newName: "surface",
        workspaceRoot: repository
      }).pipe(Effect.provide(hostLayer(preset)))
      assert.strictEqual(result.kind, "edits")
      const files = result.kind === "edits"
        ? [...new Set(result.edits.map((edit) => Scratch.relative(repository, edit.uri)))].sort()
        : []
      assert.deepStrictEqual(files, [
        "src/shapes/core.py",
        "src/shapes/use.py",
        "tests/test_core.py",
        "tests/test_more.py"
      ])
      const inTests = result.kind === "edits" ? result.edits.filter((edit) => edit.uri.includes("/tests/")) : []
      assert.deepStrictEqual(inTests.map((edit) => [edit.range.start.line, edit.oldText, edit.newText]), [
        [0, "area", "surface"],
        [4, "area", "surface"],
        [0, "area", "surface"],
        [4, "area", "surface"]
      ])
      NodeFs.rmSync(repository, { recursive: true, force: true })
    }), 120_000)

  it.live("without excludedFiles (today's behaviour) the first answer misses the tests", () =>
    Effect.gen(function*() {
      const repository = makeRepository()
      const fresh = yield* referencesOfArea(repository).pipe(Effect.provide(hostLayer(null)))
      assert.deepStrictEqual(fresh.places, everyUse.filter((place) => place.startsWith("src/")))
      NodeFs.rmSync(repository, { recursive: true, force: true })
    }), 120_000)
})
