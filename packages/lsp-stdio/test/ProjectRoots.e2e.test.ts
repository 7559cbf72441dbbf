/**
 * A Python project nested in a repository, queried from the repository's root as an agent does: pyright
 * must run at the project (its pyproject.toml says where imports resolve), not at the repository.
 */
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { LspService } from "@lsp-seam/lsp"
import { Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import { createRequire } from "node:module"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { pathToFileURL } from "node:url"
import * as LspStdio from "../src/LspStdio.js"
import * as StdioStatus from "../src/StdioStatus.js"

const pyright = createRequire(import.meta.url).resolve("pyright/langserver.index.js")

/** The repository: the helper lives in py/lib, found only through the project's extraPaths. */
const makeRepository = () => {
  const root = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "lsp-seam-nested-")))
  const write = (file: string, text: string) => {
    NodeFs.mkdirSync(NodePath.dirname(NodePath.join(root, file)), { recursive: true })
    NodeFs.writeFileSync(NodePath.join(root, file), text)
  }
  write("package.json", "{\"name\": \"polyglot\", \"private\": true}\n")
  write("py/pyproject.toml", "[tool.pyright]\nextraPaths = [\"lib\"]\n")
  write("py/lib/helpers.py", "def parse_config(text: str) -> dict:\n    return {\"text\": text}\n")
  write("py/app/main.py", "from helpers import parse_config\n\nvalue = parse_config(\"x = 1\")\n")
  return root
}

const hostLayer = (rootMarkers: ReadonlyArray<string | ReadonlyArray<string>>) =>
  LspStdio.layer({
    servers: {
      python: {
        command: process.execPath,
        args: [pyright, "--stdio"],
        extensionToLanguage: { ".py": "python" },
        // As the preset: pyright says in its log when it has found the project's files.
        readiness: { quietMs: 1000, readyLog: "^(Found \\d+ source files?|No source files found)" },
        rootMarkers
      }
    }
  }).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer))

/** goToDefinition of `parse_config` at its use in main.py (line 3, zero-based 2:8), from the repository root. */
const definitionFromRoot = (repository: string) =>
  Effect.map(
    LspService.query({
      operation: "goToDefinition",
      filePath: "py/app/main.py",
      position: { line: 2, character: 8 },
      workspaceRoot: repository
    }),
    (result) => result.kind === "locations" ? result.locations.map((l) => [l.uri, l.range.start.line]) : []
  )

describe("project roots", () => {
  it.live(
    "pyright runs at the nested project's root, so its configuration resolves the import",
    () =>
      Effect.gen(function*() {
        const repository = makeRepository()
        const helper = pathToFileURL(NodePath.join(repository, "py/lib/helpers.py")).href

        const rooted = yield* definitionFromRoot(repository).pipe(
          Effect.zip(Effect.flatMap(StdioStatus.StdioStatus, (host) => host.status)),
          Effect.provide(hostLayer([["pyproject.toml", "pyrightconfig.json", "setup.py", "setup.cfg"]]))
        )
        assert.deepStrictEqual(rooted[0], [[helper, 0]])
        assert.deepStrictEqual(rooted[1].map((s) => [s.workspace, s.root]), [[
          repository,
          NodePath.join(repository, "py")
        ]])

        // The same question without root markers: pyright at the repository root never reads py/pyproject.toml.
        const unrooted = yield* definitionFromRoot(repository).pipe(Effect.provide(hostLayer([])))
        assert.deepStrictEqual(unrooted, [])
        NodeFs.rmSync(repository, { recursive: true, force: true })
      }),
    120_000
  )
})
