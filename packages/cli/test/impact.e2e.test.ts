import { assert, describe, it, layer } from "@effect/vitest"
import { LspResult } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { fileURLToPath } from "node:url"
import { runCli, workspaceUri } from "./support/cli.js"
import { connect, McpClient, textOf } from "./support/mcp.js"

// `impact` through the compiled command and its MCP server, against the real typescript-language-server, on a
// workspace with a caller chain (parse ← load ← main ← run) and two test files (one using parse, one calling load).
const timeout = 60_000

const impactWorkspace = fileURLToPath(new URL("./fixtures/impact-workspace", import.meta.url))

const query = (...args: Array<string>) => runCli(["query", ...args], { cwd: impactWorkspace })

/** What the answer about parse shows at the default depth (2), whichever face asks. */
const tree = [
  "load (Function) src/load.ts:3 — 1 use: line 4",
  "  main (Function) src/main.ts:3 — 1 call: line 4",
  "    run (Function) src/main.ts:7 — 1 call: line 8"
]

const tests = [
  "  parsesNumbers (Function) test/parse.test.ts:3 — 1 use: line 4",
  "  loadsDoubles (Function) test/load.test.ts:3 — 1 call to load: line 4",
  "Test files to run: test/load.test.ts, test/parse.test.ts."
]

const assertInOrder = (text: string, expected: ReadonlyArray<string>) => {
  const lines = text.trimEnd().split("\n")
  let from = 0
  for (const line of expected) {
    const at = lines.indexOf(line, from)
    assert.isAtLeast(at, from, `expected ${JSON.stringify(line)} after line ${from} in:\n${text}`)
    from = at + 1
  }
}

describe.concurrent("lsp-seam query impact against typescript-language-server", () => {
  it.live(
    "prints the uses by declaration, the callers level after level, and the tests to run",
    () =>
      Effect.gen(function*() {
        const run = yield* query("impact", "src/parse.ts:2:17")
        assert.strictEqual(run.stderr, "")
        assert.strictEqual(run.code, 0)
        assert.isTrue(run.stdout.startsWith("Impact of parse (Function) src/parse.ts:2 — "), run.stdout)
        assertInOrder(run.stdout, [...tree, ...tests])
      }),
    timeout
  )

  it.live("--depth 1 stops at the direct callers; --symbol finds the name on the line", () =>
    Effect.gen(function*() {
      const run = yield* query("impact", "src/parse.ts:2", "--symbol", "parse", "--depth", "1")
      assert.strictEqual(run.code, 0)
      assertInOrder(run.stdout, [...tree.slice(0, 2), ...tests])
      assert.notInclude(run.stdout, "run (Function)")
      assert.include(run.stdout, "(depth 1)")
    }), timeout)

  it.live("--json prints the canonical impact result, zero-based", () =>
    Effect.gen(function*() {
      const run = yield* query("impact", "src/parse.ts:2:17", "--json")
      assert.strictEqual(run.code, 0)
      const result = Schema.decodeUnknownSync(LspResult.LspQueryResult)(JSON.parse(run.stdout))
      assert.strictEqual(result.kind, "impact")
      if (result.kind !== "impact") return
      const root = workspaceUri(impactWorkspace)
      assert.strictEqual(result.depth, 2)
      assert.strictEqual(result.target?.name, "parse")
      const named = (name: string) => result.nodes.find((node) => node.name === name)
      assert.strictEqual(named("load")?.level, 0)
      assert.deepStrictEqual(named("main")?.calls, [named("load")!.id])
      assert.strictEqual(named("run")?.level, 2)
      assert.strictEqual(named("loadsDoubles")?.test, true)
      assert.deepStrictEqual(result.testFiles, [`${root}/test/load.test.ts`, `${root}/test/parse.test.ts`])
    }), timeout)

  it.live(
    "refuses a depth out of bounds as the tool does, and --depth with another operation as a usage error",
    () =>
      Effect.gen(function*() {
        const deep = yield* query("impact", "src/parse.ts:2:17", "--depth", "9")
        assert.strictEqual(deep.code, 1)
        assert.include(deep.stderr, "error[LSP_INVALID_ARGUMENTS]: Invalid \"depth\" (got 9)")
        const elsewhere = yield* query("findReferences", "src/parse.ts:2:17", "--depth", "2")
        assert.strictEqual(elsewhere.code, 2)
        assert.include(elsewhere.stderr, "--depth applies to impact only, not to findReferences.")
      }),
    timeout
  )
})

const Properties = Schema.Struct({
  operation: Schema.Struct({ enum: Schema.Array(Schema.String) }),
  depth: Schema.Struct({ type: Schema.Literal("integer"), minimum: Schema.Literal(1), maximum: Schema.Literal(5) })
})

layer(connect(["--cwd", impactWorkspace]), { timeout: "60 seconds" })("lsp-seam mcp impact", (it) => {
  it.effect("lists impact and its depth in the tool's input schema", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const { tools } = yield* Effect.promise(() => client.listTools())
      const properties = Schema.decodeUnknownSync(Properties)(tools[0]?.inputSchema.properties)
      assert.include(properties.operation.enum, "impact")
    }))

  it.effect("answers impact with the tree and the tests", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const result = yield* Effect.promise(() =>
        client.callTool({
          name: "lsp",
          arguments: { operation: "impact", file_path: "src/parse.ts", line: 2, character: 17 }
        })
      )
      assert.notStrictEqual(result.isError, true)
      assertInOrder(textOf(result), [...tree, ...tests])
    }), timeout)
})
