/**
 * A polyglot repository queried from its root, the way an agent runs lsp-seam, through every face: the
 * one-shot command, a shared `serve` host (`query --remote`) and the MCP server. It holds two TypeScript projects
 * that import each other (no solution tsconfig), a nested Python project whose pyproject.toml says where its
 * imports resolve, a nested Go module and C project (gopls and clangd, which CI installs), a package.json, a
 * YAML and an HTML file, and a source file that is not valid UTF-8. Each
 * answer must be the right one — known by construction, as a raw server rooted at each project with every
 * project loaded gives it — or say that it is incomplete and hold a subset of it.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { bin, runCli, scopedTempDir } from "./support/cli.js"
import { serve } from "./support/remote.js"

const tsconfig = JSON.stringify({
  compilerOptions: { strict: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", types: [] },
  include: ["src"]
})

const files: Record<string, string | Uint8Array> = {
  "package.json": "{\"name\": \"polyglot\", \"private\": true}\n",
  "config.yaml": "name: polyglot\nlanguages: [typescript, python]\n",
  "index.html": "<!doctype html>\n<title>polyglot</title>\n<p>shapes and helpers</p>\n",
  "ts/a/tsconfig.json": tsconfig,
  "ts/a/src/shape.ts": "export interface Shape {\n  area(): number\n}\n\n" +
    "export function describe(shape: Shape): string {\n  return `area ${shape.area()}`\n}\n",
  "ts/a/src/circle.ts": "import { describe, type Shape } from \"./shape.js\"\n" +
    "import { unit } from \"../../b/src/square.js\"\n\nexport class Circle implements Shape {\n" +
    "  constructor(readonly radius: number) {}\n\n  area(): number {\n    return Math.PI * this.radius ** 2 * unit\n" +
    "  }\n}\n\nexport function total(): string {\n  return describe(new Circle(1))\n}\n",
  "ts/b/tsconfig.json": tsconfig,
  "ts/b/src/square.ts": "import { describe, type Shape } from \"../../a/src/shape.js\"\n\nexport const unit = 1\n\n" +
    "export class Square implements Shape {\n  constructor(readonly side: number) {}\n\n  area(): number {\n" +
    "    return this.side * this.side\n  }\n}\n\nexport function report(): string {\n" +
    "  return describe(new Square(2))\n}\n",
  // Latin-1 bytes: a file the host refuses to read, which must not disturb anything else.
  "ts/b/src/legacy.ts": Uint8Array.from([...Buffer.from("export const name = \"caf"), 0xe9, ...Buffer.from("\"\n")]),
  "py/pyproject.toml": "[tool.pyright]\nextraPaths = [\"lib\"]\n",
  "py/lib/helpers.py": "def parse_config(text: str) -> dict:\n    return {\"text\": text}\n",
  "py/app/main.py": "from helpers import parse_config\n\nvalue = parse_config(\"x = 1\")\n",
  // A Go module and a C project in subdirectories: gopls and clangd must be rooted there (go.mod,
  // compile_commands.json, written with the repository's absolute path below).
  "go/go.mod": "module example.com/poly\n\ngo 1.19\n",
  "go/util/util.go": "package util\n\n// Double returns twice n.\nfunc Double(n int) int {\n\treturn 2 * n\n}\n",
  "go/main.go": "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/poly/util\"\n)\n\n" +
    "func main() {\n\tfmt.Println(util.Double(21))\n}\n",
  "c/include/shape.h": "#ifndef SHAPE_H\n#define SHAPE_H\n\nstruct shape {\n  double width;\n  double height;\n};\n\n" +
    "double area(const struct shape *s);\n\n#endif\n",
  "c/src/shape.c": "#include \"shape.h\"\n\ndouble area(const struct shape *s) { return s->width * s->height; }\n",
  "c/src/main.c": "#include \"shape.h\"\n\nint main(void) {\n  struct shape s = {2, 3};\n  return (int)area(&s);\n}\n"
}

/** clangd 14 indexes only with absolute directories in the compilation database. */
const compileCommands = (root: string) =>
  JSON.stringify(["main.c", "shape.c"].map((file) => ({
    directory: NodePath.join(root, "c"),
    file: `src/${file}`,
    arguments: ["cc", "-Iinclude", "-c", `src/${file}`]
  })))

/** One question and its right answer: the `path:line:character` places the text must list (one-based). */
interface Question {
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly tool: Record<string, unknown>
  readonly places: ReadonlyArray<string>
}

const questions: ReadonlyArray<Question> = [
  {
    name: "findReferences of describe, used by both projects",
    args: ["findReferences", "ts/a/src/shape.ts:5:17"],
    tool: { operation: "findReferences", file_path: "ts/a/src/shape.ts", line: 5, character: 17 },
    places: [
      "ts/a/src/shape.ts:5:17",
      "ts/a/src/circle.ts:1:10",
      "ts/a/src/circle.ts:13:10",
      "ts/b/src/square.ts:1:10",
      "ts/b/src/square.ts:14:10"
    ]
  },
  {
    name: "goToImplementation of Shape.area, implemented in both projects",
    args: ["goToImplementation", "ts/a/src/shape.ts:2:3"],
    tool: { operation: "goToImplementation", file_path: "ts/a/src/shape.ts", line: 2, character: 3 },
    places: ["ts/a/src/circle.ts:7:3", "ts/b/src/square.ts:8:3"]
  },
  {
    name: "incomingCalls of describe, called from both projects",
    args: ["incomingCalls", "ts/a/src/shape.ts:5:17"],
    tool: { operation: "incomingCalls", file_path: "ts/a/src/shape.ts", line: 5, character: 17 },
    // The prepared item, then each caller and its call site.
    places: [
      "ts/a/src/shape.ts:5:17",
      "ts/a/src/circle.ts:12:17",
      "ts/a/src/circle.ts:13:10",
      "ts/b/src/square.ts:13:17",
      "ts/b/src/square.ts:14:10"
    ]
  },
  {
    name: "goToDefinition in the nested Python project, through its extraPaths",
    args: ["goToDefinition", "py/app/main.py:3:9"],
    tool: { operation: "goToDefinition", file_path: "py/app/main.py", line: 3, character: 9 },
    places: ["py/lib/helpers.py:1:5"]
  },
  {
    name: "findReferences in the nested Python project",
    args: ["findReferences", "py/lib/helpers.py:1:5"],
    tool: { operation: "findReferences", file_path: "py/lib/helpers.py", line: 1, character: 5 },
    places: ["py/lib/helpers.py:1:5", "py/app/main.py:1:21", "py/app/main.py:3:9"]
  },
  {
    name: "goToDefinition in the nested Go module, into another package",
    args: ["goToDefinition", "go/main.go:10:19"],
    tool: { operation: "goToDefinition", file_path: "go/main.go", line: 10, character: 19 },
    places: ["go/util/util.go:4:6"]
  },
  {
    name: "findReferences in the nested Go module",
    args: ["findReferences", "go/util/util.go:4:6"],
    tool: { operation: "findReferences", file_path: "go/util/util.go", line: 4, character: 6 },
    places: ["go/util/util.go:4:6", "go/main.go:10:19"]
  },
  {
    name: "goToDefinition in the C project, through its include path",
    args: ["goToDefinition", "c/src/main.c:4:10"],
    tool: { operation: "goToDefinition", file_path: "c/src/main.c", line: 4, character: 10 },
    places: ["c/include/shape.h:4:8"]
  }
]

const placesListed = (text: string) => text.match(/[\w./-]+\.\w+:\d+:\d+/g) ?? []
const placesIn = (text: string) => new Set(placesListed(text))

/** The answer is the right one, or says it is incomplete and lists a subset of it. */
const checkAnswer = (face: string, question: Question, text: string) => {
  const found = placesIn(text)
  const repeated = placesListed(text).filter((place, index, all) => all.indexOf(place) !== index)
  assert.deepStrictEqual(repeated, [], `${face}, ${question.name}: places listed twice\n${text}`)
  const expected = new Set(question.places)
  const extra = [...found].filter((place) => !expected.has(place))
  assert.deepStrictEqual(extra, [], `${face}, ${question.name}: places that are not in the right answer\n${text}`)
  if (!text.startsWith("Incomplete")) {
    const missing = question.places.filter((place) => !found.has(place))
    assert.deepStrictEqual(missing, [], `${face}, ${question.name}: an unflagged answer misses places\n${text}`)
  }
}

const repository = Effect.gen(function*() {
  const root = yield* scopedTempDir("polyglot")
  for (const [file, content] of Object.entries(files)) {
    NodeFs.mkdirSync(NodePath.dirname(NodePath.join(root, file)), { recursive: true })
    NodeFs.writeFileSync(NodePath.join(root, file), content)
  }
  NodeFs.writeFileSync(NodePath.join(root, "c/compile_commands.json"), compileCommands(root))
  return root
})

const ToolResult = Schema.Struct({
  content: Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) })),
  isError: Schema.optional(Schema.Boolean)
})

const timeout = 300_000

describe("a polyglot repository, from its root", () => {
  it.scopedLive("lsp-seam query: every answer right, or flagged and a subset", () =>
    Effect.gen(function*() {
      const root = yield* repository
      for (const question of questions) {
        const run = yield* runCli(["query", ...question.args], { cwd: root })
        assert.strictEqual(run.code, 0, run.stderr)
        checkAnswer("query", question, run.stdout)
      }
      // A workspace-wide search: Python's symbol found, no flag for the YAML, HTML and JSON servers that cannot search.
      const search = yield* runCli(["query", "workspaceSymbol", "parse_config"], { cwd: root })
      assert.strictEqual(search.code, 0, search.stderr)
      assert.include(search.stdout, "py/lib/helpers.py:1:5")
      assert.notInclude(search.stdout, "provider-failed")
      // The file that is not UTF-8 fails alone, with its code.
      const legacy = yield* runCli(["query", "hover", "ts/b/src/legacy.ts:1:14"], { cwd: root })
      assert.strictEqual(legacy.code, 1)
      assert.include(legacy.stderr, "LSP_SOURCE_INVALID_UTF8")
    }), timeout)

  it.scopedLive("serve and query --remote: the same answers as the one-shot command", () =>
    Effect.gen(function*() {
      const root = yield* repository
      const runtime = yield* scopedTempDir("polyglot-run")
      NodeFs.chmodSync(runtime, 0o700)
      const served = yield* serve(["--socket", NodePath.join(runtime, "host.sock")], { cwd: root })
      const socket = served.address.replace(/^unix:/, "")
      for (const question of questions) {
        const remote = yield* runCli(["query", ...question.args, "--remote", socket], { cwd: root })
        assert.strictEqual(remote.code, 0, remote.stderr)
        checkAnswer("serve", question, remote.stdout)
      }
    }).pipe(Effect.provide(NodeContext.layer)), timeout)

  it.scopedLive("lsp-seam mcp: the same answers through the tool", () =>
    Effect.gen(function*() {
      const root = yield* repository
      const client = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const client = new Client({ name: "lsp-seam-polyglot", version: "0.0.0" })
          await client.connect(
            new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "--cwd", root], stderr: "pipe" })
          )
          return client
        }),
        (client) => Effect.promise(() => client.close())
      )
      for (const question of questions) {
        const result = Schema.decodeUnknownSync(ToolResult)(
          yield* Effect.promise(() =>
            client.callTool({ name: "lsp", arguments: question.tool }, undefined, { timeout: 120_000 })
          )
        )
        const text = result.content.map((part) => part.text ?? "").join("")
        assert.notStrictEqual(result.isError, true, text)
        checkAnswer("mcp", question, text)
      }
    }), timeout)
})
