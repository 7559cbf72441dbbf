import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Command from "@effect/platform/Command"
import { assert, describe, it } from "@effect/vitest"
import { LspResult } from "@lsp-seam/lsp"
import { LspPresets } from "@lsp-seam/setup"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { bin, fakeServer, runCli, scopedTempDir, workspace, workspaceUri } from "./support/cli.js"

// The compiled command against the real typescript-language-server (a dependency of the CLI) on the fixture
// workspace. A cold server needs a few seconds; the budgets are generous for a loaded machine.
const timeout = 60_000

const query = (...args: Array<string>) => runCli(["query", ...args])

const lines = (text: string) => text.trimEnd().split("\n")

const decodeResult = Schema.decodeUnknownSync(LspResult.LspQueryResult)

// One line of the fake server's record file.
const Recorded = Schema.parseJson(
  Schema.Struct({ type: Schema.String, method: Schema.optional(Schema.String), event: Schema.optional(Schema.String) })
)

describe.concurrent("lsp-seam query against typescript-language-server", () => {
  it.live("goToDefinition prints the class and its constructor, one-based", () =>
    Effect.gen(function*() {
      const run = yield* query("goToDefinition", "main.ts:3:36")
      assert.deepStrictEqual(run, { code: 0, stdout: "shape.ts:7:14\nshape.ts:8:3\n", stderr: "" })
    }), timeout)

  it.live("findReferences includes the declaration, grouped by file", () =>
    Effect.gen(function*() {
      const run = yield* query("findReferences", "shape.ts:7:14")
      assert.strictEqual(run.code, 0)
      assert.deepStrictEqual(lines(run.stdout), ["shape.ts:7:14", "main.ts:1:10", "main.ts:3:35", "main.ts:3:50"])
      assert.strictEqual(run.stderr, "")
    }), timeout)

  it.live("goToImplementation of an interface method finds the class method", () =>
    Effect.gen(function*() {
      const run = yield* query("goToImplementation", "main.ts:5:64")
      assert.deepStrictEqual(run, { code: 0, stdout: "shape.ts:10:3\n", stderr: "" })
    }), timeout)

  it.live("hover prints the type and the documentation", () =>
    Effect.gen(function*() {
      const run = yield* query("hover", "main.ts:3:36")
      assert.strictEqual(run.code, 0)
      assert.include(run.stdout, "new Circle(radius: number): Circle")
      assert.include(run.stdout, "A circle of a given radius.")
      assert.strictEqual(run.stderr, "")
    }), timeout)

  it.live("documentSymbol <file> prints the outline, nested by depth", () =>
    Effect.gen(function*() {
      const run = yield* query("documentSymbol", "shape.ts")
      assert.deepStrictEqual(run, {
        code: 0,
        stdout: [
          "shape.ts:2:18  Interface  Shape",
          "  shape.ts:3:3  Method  Shape.area",
          "shape.ts:7:14  Class  Circle",
          "  shape.ts:8:3  Constructor  Circle.constructor",
          "  shape.ts:8:24  Property  Circle.radius",
          "  shape.ts:10:3  Method  Circle.area",
          ""
        ].join("\n"),
        stderr: ""
      })
    }), timeout)

  it.live("documentSymbol --json prints the canonical symbols result", () =>
    Effect.gen(function*() {
      const run = yield* query("documentSymbol", "shape.ts", "--json")
      assert.strictEqual(run.code, 0)
      const result = decodeResult(JSON.parse(run.stdout))
      assert.strictEqual(result.kind, "symbols")
      assert.isTrue(result.kind === "symbols" && result.symbols.some((s) => s.name === "Circle" && s.kind === "Class"))
    }), timeout)

  it.live(
    "workspaceSymbol <query> searches the workspace; --file limits it to that file's server",
    () =>
      Effect.gen(function*() {
        const run = yield* query("workspaceSymbol", "Circle")
        assert.strictEqual(run.code, 0)
        assert.include(lines(run.stdout), "shape.ts:7:1  Class  Circle")
        const filed = yield* query("workspaceSymbol", "area", "--file", "shape.ts")
        assert.strictEqual(filed.code, 0)
        assert.deepStrictEqual(lines(filed.stdout), ["shape.ts:3:3  Method  area", "shape.ts:10:3  Method  area"])
      }),
    timeout
  )

  it.live(
    "incomingCalls <file>:<line>:<character> prints the callers with their call sites",
    () =>
      Effect.gen(function*() {
        const run = yield* query("incomingCalls", "shape.ts:10:3")
        assert.deepStrictEqual(run, {
          code: 0,
          stdout: "Calls to area (Method) at shape.ts:10:3:\nmain.ts  main.ts:1:1\n  main.ts:5:64\n",
          stderr: ""
        })
      }),
    timeout
  )

  it.live(
    "--symbol with documentSymbol and --file with a position operation are usage errors: 2",
    () =>
      Effect.gen(function*() {
        const symbol = yield* query("documentSymbol", "shape.ts", "--symbol", "Circle")
        failure(symbol, 2, "lsp-seam: --symbol applies to operations at a position only, not to documentSymbol.")
        const file = yield* query("hover", "shape.ts:7:14", "--file", "shape.ts")
        failure(file, 2, "lsp-seam: --file applies to workspaceSymbol only, not to hover.")
      }),
    timeout
  )

  for (const documentSync of ["retained", "transient"] as const) {
    it.scopedLive(
      `diagnostics <file> prints the file's current errors; fixed on disk, they are gone (${documentSync})`,
      () =>
        Effect.gen(function*() {
          const dir = yield* scopedTempDir("lsp-seam-cli-diagnostics-")
          NodeFs.writeFileSync(NodePath.join(dir, "tsconfig.json"), "{ \"compilerOptions\": { \"strict\": true } }\n")
          NodeFs.writeFileSync(NodePath.join(dir, "a.ts"), "export const n: number = \"one\"\n")
          // The TypeScript preset as a configuration file, in the document mode under test.
          NodeFs.writeFileSync(
            NodePath.join(dir, "lsp-seam.json"),
            JSON.stringify({ servers: { typescript: { ...LspPresets.typescript.server, documentSync } } })
          )
          const broken = yield* runCli(["query", "diagnostics", "a.ts", "--cwd", dir])
          assert.strictEqual(broken.code, 0, broken.stderr)
          assert.match(
            broken.stdout,
            /^a\.ts:1:14 {2}error {2}Type 'string' is not assignable to type 'number'\. {2}\[typescript 2322\]\n$/
          )
          NodeFs.writeFileSync(NodePath.join(dir, "a.ts"), "export const n: number = 1\n")
          const fixed = yield* runCli(["query", "diagnostics", "a.ts", "--cwd", dir])
          assert.strictEqual(fixed.code, 0, fixed.stderr)
          assert.strictEqual(fixed.stdout, "No diagnostics.\n")
          NodeFs.writeFileSync(NodePath.join(dir, "a.ts"), "export const n: number = \"one\"\n")
          const again = yield* runCli(["query", "diagnostics", "a.ts", "--cwd", dir])
          assert.strictEqual(again.stdout, broken.stdout, "broken again, the error is back")
        }),
      { timeout }
    )
  }

  it.live("--severity belongs to diagnostics only", () =>
    Effect.gen(function*() {
      const misplaced = yield* query("hover", "main.ts:3:36", "--severity", "hint")
      assert.strictEqual(misplaced.code, 2)
      // A value that is none of the four is a usage error too, like any other bad option.
      const unknown = yield* query("diagnostics", "main.ts", "--severity", "warnings")
      assert.strictEqual(unknown.code, 2)
    }), timeout)

  it.live("a blank workspaceSymbol query is the tool's invalid argument: 1", () =>
    Effect.map(
      query("workspaceSymbol", " "),
      (run) => failure(run, 1, "error[LSP_INVALID_ARGUMENTS]: Invalid \"query\"")
    ), timeout)

  it.live("nothing at the position is a success, and an off-identifier position says so", () =>
    Effect.gen(function*() {
      const run = yield* query("hover", "main.ts:2:1")
      assert.deepStrictEqual(run, {
        code: 0,
        stdout: "No hover information. Line 2, column 1 is not on an identifier; line 2 has no identifiers.\n",
        stderr: ""
      })
    }), timeout)

  it.live(
    "--symbol resolves the name on the line, with the column left out, and says so first",
    () =>
      Effect.gen(function*() {
        const run = yield* query("findReferences", "shape.ts:7", "--symbol", "Circle")
        assert.strictEqual(run.code, 0)
        assert.deepStrictEqual(lines(run.stdout), [
          "Resolved `Circle` to shape.ts:7:14.",
          "shape.ts:7:14",
          "main.ts:1:10",
          "main.ts:3:35",
          "main.ts:3:50"
        ])
        const json = yield* query("hover", "shape.ts:6", "--symbol", "Circle", "--json")
        assert.deepStrictEqual(decodeResult(JSON.parse(json.stdout)).resolved, {
          symbol: "Circle",
          position: { line: 6, character: 13 },
          requested: { line: 5, character: 0 },
          occurrences: 1
        })
      }),
    timeout
  )

  it.live(
    "--symbol that is not near the line: 1, LSP_SYMBOL_NOT_FOUND listing the line's identifiers",
    () =>
      Effect.gen(function*() {
        const run = yield* query("hover", "shape.ts:7", "--symbol", "Square")
        failure(run, 1, "error[LSP_SYMBOL_NOT_FOUND]: `Square` does not occur")
        assert.include(run.stderr, "identifiers on line 7: export (column 1), class (column 8), Circle (column 14)")
      }),
    timeout
  )

  it.live("a line past the end of the file: 1, LSP_POSITION_OUT_OF_RANGE", () =>
    Effect.gen(function*() {
      const run = yield* query("hover", "shape.ts:99:1")
      failure(run, 1, "error[LSP_POSITION_OUT_OF_RANGE]: Line 99 is past the end of the file")
    }), timeout)

  it.live("<file>:<line> without --symbol: 2", () =>
    Effect.gen(function*() {
      const run = yield* query("hover", "shape.ts:7")
      failure(run, 2, "lsp-seam: Invalid position \"shape.ts:7\"")
    }), timeout)

  it.live("--json prints exactly the seam result, zero-based", () =>
    Effect.gen(function*() {
      const run = yield* query("findReferences", "shape.ts:7:14", "--json")
      assert.strictEqual(run.code, 0)
      const result = decodeResult(JSON.parse(run.stdout))
      const shape = pathToFileURL(NodePath.join(NodeFs.realpathSync(workspace), "shape.ts")).href
      assert.deepStrictEqual(result.kind === "locations" && result.resolvedWorkspaceUri, workspaceUri())
      assert.deepStrictEqual(result.kind === "locations" && result.locations[0], {
        uri: shape,
        range: { start: { line: 6, character: 13 }, end: { line: 6, character: 19 } }
      })
      assert.strictEqual(result.kind === "locations" && result.locations.length, 4)
    }), timeout)

  it.live("--json for hover is the hover result", () =>
    Effect.gen(function*() {
      const run = yield* query("hover", "main.ts:3:36", "--json")
      assert.strictEqual(run.code, 0)
      const result = decodeResult(JSON.parse(run.stdout))
      assert.strictEqual(result.kind, "hover")
      assert.include(result.kind === "hover" ? result.hover?.contents : "", "A circle of a given radius.")
    }), timeout)

  it.scopedLive("works in a directory with no node_modules (the bundled typescript)", () =>
    Effect.gen(function*() {
      const dir = yield* scopedTempDir("no-modules")
      for (const file of ["tsconfig.json", "shape.ts", "main.ts"]) {
        NodeFs.copyFileSync(NodePath.join(workspace, file), NodePath.join(dir, file))
      }
      const run = yield* runCli(["query", "goToDefinition", "main.ts:3:36", "--cwd", dir], { cwd: "/" })
      assert.deepStrictEqual(run, { code: 0, stdout: "shape.ts:7:14\nshape.ts:8:3\n", stderr: "" })
    }), timeout)
})

describe("lsp-seam query with other presets", () => {
  it.live(
    "a cold bash-language-server (from node_modules/.bin) answers across `source` on its first query",
    () =>
      Effect.gen(function*() {
        const bashWorkspace = fileURLToPath(new URL("./fixtures/bash-workspace", import.meta.url))
        const nodeModulesBin = fileURLToPath(new URL("../../../node_modules/.bin", import.meta.url))
        const run = yield* runCli(["query", "goToDefinition", "main.sh:4:1", "--cwd", bashWorkspace], {
          env: { PATH: [nodeModulesBin, NodePath.dirname(process.execPath)].join(NodePath.delimiter) }
        })
        assert.deepStrictEqual(run, { code: 0, stdout: "lib.sh:5:1\n", stderr: "" })
      }),
    timeout
  )
})

const failure = (run: { code: number; stdout: string; stderr: string }, code: number, prefix: string) => {
  assert.strictEqual(run.code, code, run.stderr)
  assert.strictEqual(run.stdout, "")
  assert.isTrue(run.stderr.startsWith(prefix), run.stderr)
}

describe.concurrent("lsp-seam query exit codes", () => {
  it.live(
    "no provider for the extension: 1, LSP_UNAVAILABLE",
    () => Effect.map(query("hover", "notes.txt:1:1"), (run) => failure(run, 1, "error[LSP_UNAVAILABLE]: ")),
    timeout
  )

  it.live(
    "a position that is not a number: 2",
    () => Effect.map(query("hover", "main.ts:three:1"), (run) => failure(run, 2, "lsp-seam: Invalid position")),
    timeout
  )

  it.live(
    "no position at all: 2",
    () => Effect.map(query("hover", "main.ts"), (run) => failure(run, 2, "lsp-seam: Invalid position")),
    timeout
  )

  it.live(
    "line 0 is the tool's invalid argument: 1",
    () => Effect.map(query("hover", "main.ts:0:5"), (run) => failure(run, 1, "error[LSP_INVALID_ARGUMENTS]: ")),
    timeout
  )

  it.live("an unknown operation: 2", () =>
    Effect.map(query("definition", "main.ts:3:36"), (run) => {
      assert.strictEqual(run.code, 2)
      assert.strictEqual(run.stdout, "")
      assert.include(run.stderr, "goToDefinition")
      assert.notInclude(run.stderr, "\x1b[")
    }), timeout)

  it.live("a file outside the workspace: 1, LSP_SOURCE_OUTSIDE_WORKSPACE", () =>
    Effect.map(
      query("hover", "../../../src/LspCli.ts:1:1"),
      (run) => failure(run, 1, "error[LSP_SOURCE_OUTSIDE_WORKSPACE]: ")
    ), timeout)

  it.live(
    "a missing file: 1, LSP_SOURCE_NOT_FOUND",
    () => Effect.map(query("hover", "missing.ts:1:1"), (run) => failure(run, 1, "error[LSP_SOURCE_NOT_FOUND]: ")),
    timeout
  )

  it.live("a workspace that does not exist: 1, LSP_INVALID_WORKSPACE", () =>
    Effect.map(
      query("hover", "main.ts:1:1", "--cwd", "/nonexistent/lsp-seam"),
      (run) => failure(run, 1, "error[LSP_INVALID_WORKSPACE]: ")
    ), timeout)

  it.live("--config naming a missing file: 1, LSP_INVALID_CONFIG", () =>
    Effect.map(
      query("hover", "main.ts:1:1", "--config", "/nonexistent/lsp-seam.json"),
      (run) => failure(run, 1, "error[LSP_INVALID_CONFIG]: The configuration file /nonexistent/lsp-seam.json")
    ), timeout)

  it.scopedLive(
    "an invalid configuration: 1, LSP_INVALID_CONFIG naming the file and the field",
    () =>
      Effect.gen(function*() {
        const dir = yield* scopedTempDir("bad-config")
        const file = NodePath.join(dir, "config.json")
        NodeFs.writeFileSync(file, JSON.stringify({ servers: { ts: { command: "x", extensionToLanguage: {} } } }))
        const run = yield* query("hover", "main.ts:1:1", "--config", file)
        failure(run, 1, `error[LSP_INVALID_CONFIG]: ${file}: `)
        assert.include(run.stderr, "extensionToLanguage")
      }),
    timeout
  )

  it.scopedLive("lsp-seam.json in the workspace that is not JSON: 1, LSP_INVALID_CONFIG", () =>
    Effect.gen(function*() {
      const dir = yield* scopedTempDir("bad-json")
      NodeFs.writeFileSync(NodePath.join(dir, "lsp-seam.json"), "{ servers: ")
      const run = yield* query("hover", "main.ts:1:1", "--cwd", dir)
      failure(run, 1, `error[LSP_INVALID_CONFIG]: The configuration file ${NodePath.join(dir, "lsp-seam.json")} is not`)
    }), timeout)

  it.live(
    "--help: plain text (no styles when not a terminal) on stdout, 0",
    () =>
      Effect.map(runCli(["query", "--help"]), (run) => {
        assert.strictEqual(run.code, 0)
        assert.include(run.stdout, "<target>")
        assert.include(run.stdout, "--file")
        assert.notInclude(run.stdout, "\x1b[")
        assert.strictEqual(run.stderr, "")
      }),
    timeout
  )

  it.live("no command: 2", () => Effect.map(runCli([]), (run) => failure(run, 2, "lsp-seam: Missing command")), timeout)
})

describe("lsp-seam query interrupted", () => {
  it.live(
    "SIGINT cancels the request at the server, shuts the server down, and exits 130",
    () =>
      Effect.gen(function*() {
        const dir = yield* scopedTempDir("sigint")
        const record = NodePath.join(dir, "record.jsonl")
        NodeFs.writeFileSync(NodePath.join(dir, "a.slow"), "hello\n")
        NodeFs.writeFileSync(
          NodePath.join(dir, "lsp-seam.json"),
          JSON.stringify({
            servers: {
              slow: {
                command: process.execPath,
                args: [fakeServer],
                extensionToLanguage: { ".slow": "plaintext" },
                env: { FAKE_LSP: JSON.stringify({ answerDelayMs: { "textDocument/hover": 60_000 }, record }) }
              }
            }
          })
        )
        const methods = () =>
          NodeFs.existsSync(record)
            ? NodeFs.readFileSync(record, "utf8").split("\n").filter((line) => line !== "").map((line) =>
              Schema.decodeUnknownSync(Recorded)(line)
            )
            : []
        const child = yield* Command.make(process.execPath, bin, "query", "hover", "a.slow:1:1").pipe(
          Command.workingDirectory(dir),
          Command.start
        )
        yield* Effect.suspend(() =>
          methods().some((entry) => entry.method === "textDocument/hover") ? Effect.void : Effect.fail("not yet")
        ).pipe(Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("20 seconds"))), Effect.orDie)
        yield* child.kill("SIGINT")
        const code = yield* child.exitCode
        const seen = methods()
        assert.strictEqual(code, 130)
        const sent = seen.flatMap((entry) => entry.method === undefined ? [] : [entry.method])
        const at = (method: string) => sent.indexOf(method)
        // The request was cancelled at the server, then the server was shut down gracefully, and it exited.
        assert.isTrue(at("textDocument/hover") >= 0 && at("textDocument/hover") < at("$/cancelRequest"), sent.join(" "))
        assert.isTrue(at("$/cancelRequest") < at("shutdown") && at("shutdown") < at("exit"), sent.join(" "))
        assert.isTrue(seen.some((entry) => entry.event === "exit"))
      }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)),
    timeout
  )
})
