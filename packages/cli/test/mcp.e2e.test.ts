import * as NodeContext from "@effect/platform-node/NodeContext"
import * as PlatformCommand from "@effect/platform/Command"
import { afterAll, assert, describe, it, layer } from "@effect/vitest"
import { LspPresets } from "@lsp-seam/setup"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { bin, fakeServer, tempDir, workspace } from "./support/cli.js"
import { connect, McpClient, textOf } from "./support/mcp.js"

// An independent MCP client (the official TypeScript SDK) spawns the compiled `lsp-seam mcp` over stdio.
const timeout = 60_000

const OperationEnum = Schema.Struct({ operation: Schema.Struct({ enum: Schema.Array(Schema.String) }) })

layer(connect(["--cwd", workspace]), { timeout: "60 seconds" })("lsp-seam mcp with the TypeScript preset", (it) => {
  it.effect("lists exactly the lsp tool: every operation, required fields, read-only annotations", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const { tools } = yield* Effect.promise(() => client.listTools())
      assert.deepStrictEqual(tools.map((tool) => tool.name), ["lsp"])
      const tool = tools[0]!
      assert.deepStrictEqual(tool.inputSchema.required, ["operation"])
      assert.deepStrictEqual(
        Schema.decodeUnknownSync(OperationEnum)(tool.inputSchema.properties).operation.enum,
        [
          "goToDefinition",
          "findReferences",
          "goToImplementation",
          "hover",
          "goToTypeDefinition",
          "incomingCalls",
          "outgoingCalls",
          "documentSymbol",
          "workspaceSymbol",
          "diagnostics",
          "renamePreview",
          "impact"
        ]
      )
      assert.strictEqual(tool.annotations?.readOnlyHint, true)
      assert.strictEqual(tool.annotations?.destructiveHint, false)
      assert.strictEqual(tool.annotations?.openWorldHint, false)
    }))

  it.effect("answers documentSymbol, which takes no position, with the outline", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const result = yield* Effect.promise(() =>
        client.callTool({ name: "lsp", arguments: { operation: "documentSymbol", file_path: "shape.ts" } })
      )
      assert.notStrictEqual(result.isError, true)
      assert.isTrue(textOf(result).startsWith("shape.ts:2:18  Interface  Shape\n  shape.ts:3:3  Method  Shape.area\n"))
    }))

  it.effect("answers goToDefinition with one-based path:line:character text", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const result = yield* Effect.promise(() =>
        client.callTool({
          name: "lsp",
          arguments: { operation: "goToDefinition", file_path: "main.ts", line: 3, character: 36 }
        })
      )
      assert.notStrictEqual(result.isError, true)
      assert.strictEqual(textOf(result), "shape.ts:7:14\nshape.ts:8:3")
    }), timeout)

  it.effect("answers hover with the type and documentation", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const result = yield* Effect.promise(() =>
        client.callTool({
          name: "lsp",
          arguments: { operation: "hover", file_path: "main.ts", line: 3, character: 36 }
        })
      )
      assert.notStrictEqual(result.isError, true)
      assert.include(textOf(result), "new Circle(radius: number): Circle")
      assert.include(textOf(result), "A circle of a given radius.")
    }), timeout)

  it.effect(
    "answers goToDefinition with include_body: each location followed by its code",
    () =>
      Effect.gen(function*() {
        const client = yield* McpClient
        const result = yield* Effect.promise(() =>
          client.callTool({
            name: "lsp",
            arguments: { operation: "goToDefinition", file_path: "main.ts", line: 3, character: 36, include_body: true }
          })
        )
        assert.notStrictEqual(result.isError, true)
        const shape = NodeFs.readFileSync(NodePath.join(workspace, "shape.ts"), "utf8").split("\n")
        const code = shape.slice(6, 13).map((line, i) => `    ${String(i + 7).padStart(2)}  ${line}`)
        assert.strictEqual(textOf(result), ["shape.ts:7:14", ...code, "shape.ts:8:3"].join("\n"))
      }),
    timeout
  )

  it.effect("answers renamePreview with the edits, and writes nothing", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const before = ["main.ts", "shape.ts"].map((file) => NodeFs.readFileSync(NodePath.join(workspace, file), "utf8"))
      const result = yield* Effect.promise(() =>
        client.callTool({
          name: "lsp",
          arguments: { operation: "renamePreview", file_path: "shape.ts", line: 7, symbol: "Circle", new_name: "Round" }
        })
      )
      assert.notStrictEqual(result.isError, true)
      assert.strictEqual(
        textOf(result),
        [
          // Named by `symbol` without a column: the text says what it was resolved to first.
          "Resolved `Circle` to shape.ts:7:14.",
          "Rename preview: 4 edits in 2 files. Nothing was written: apply these edits with your own edit tool.",
          "main.ts:1:10  Circle → Round",
          "main.ts:3:35  Circle → Round",
          "main.ts:3:50  Circle → Round",
          "shape.ts:7:14  Circle → Round"
        ].join("\n")
      )
      assert.deepStrictEqual(
        ["main.ts", "shape.ts"].map((file) => NodeFs.readFileSync(NodePath.join(workspace, file), "utf8")),
        before
      )
    }), timeout)

  it.effect("reports a coded failure as an error result", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const result = yield* Effect.promise(() =>
        client.callTool({ name: "lsp", arguments: { operation: "hover", file_path: "gone.ts", line: 1, character: 1 } })
      )
      assert.strictEqual(result.isError, true)
      assert.isTrue(textOf(result).startsWith("error[LSP_SOURCE_NOT_FOUND]: "), textOf(result))
    }), timeout)
})

const Recorded = Schema.parseJson(Schema.Struct({ type: Schema.String, method: Schema.optional(Schema.String) }))

const readRecord = (file: string): ReadonlyArray<typeof Recorded.Type> =>
  NodeFs.existsSync(file)
    ? NodeFs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) =>
      Schema.decodeUnknownSync(Recorded)(line)
    )
    : []

const waitFor = (what: string, check: () => boolean) =>
  Effect.suspend(() => check() ? Effect.void : Effect.fail(what)).pipe(
    Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("20 seconds"))),
    Effect.orDieWith((what) => new Error(`timed out waiting for ${what}`))
  )

// A server that takes a minute to answer hover, configured through lsp-seam.json in the workspace.
const slowWorkspace = () => {
  const dir = tempDir("mcp-cancel")
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
  return { dir, record }
}

describe("lsp-seam mcp cancellation", () => {
  it.live("a cancelled call sends $/cancelRequest to the server, which then still answers", () => {
    const { dir, record } = slowWorkspace()
    return Effect.gen(function*() {
      const client = yield* McpClient
      const controller = new AbortController()
      const call = client.callTool(
        { name: "lsp", arguments: { operation: "hover", file_path: "a.slow", line: 1, character: 1 } },
        undefined,
        { signal: controller.signal }
      )
      const settled = call.then(() => "resolved", () => "rejected")
      yield* waitFor(
        "the hover request",
        () => readRecord(record).some((entry) => entry.type === "message" && entry.method === "textDocument/hover")
      )
      controller.abort()
      assert.strictEqual(yield* Effect.promise(() => settled), "rejected")
      yield* waitFor(
        "$/cancelRequest",
        () => readRecord(record).some((entry) => entry.type === "message" && entry.method === "$/cancelRequest")
      )
      const next = yield* Effect.promise(() =>
        client.callTool({
          name: "lsp",
          arguments: { operation: "goToDefinition", file_path: "a.slow", line: 1, character: 1 }
        })
      )
      assert.strictEqual(textOf(next), "a.slow:1:1")
    }).pipe(
      // Without the session's prewarm, whose own hover of a.slow would be the first one recorded.
      Effect.provide(connect(["--cwd", dir, "--no-prewarm"])),
      Effect.ensuring(Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true })))
    )
  }, timeout)

  it.live("ends with exit code 0 when the client closes stdin", () =>
    Effect.gen(function*() {
      const initialize = {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
      }
      const server = yield* PlatformCommand.make(process.execPath, bin, "mcp", "--cwd", workspace).pipe(
        PlatformCommand.feed(`${JSON.stringify(initialize)}\n`),
        PlatformCommand.start
      )
      const [stdout, code] = yield* Effect.all([
        server.stdout.pipe(Stream.decodeText(), Stream.runFold("", (all, chunk) => all + chunk)),
        server.exitCode
      ], { concurrency: "unbounded" })
      assert.strictEqual(code, 0)
      const lines = stdout.trimEnd().split("\n")
      assert.strictEqual(lines.length, 1)
      assert.strictEqual(JSON.parse(lines[0]!).result.serverInfo.name, "lsp-seam")
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), timeout)
})

// Issue 19 through one MCP session per document mode: a file with a known error, fixed on disk, broken again,
// asked each time.
const broken = "export const n: number = \"one\"\n"
for (const documentSync of ["retained", "transient"] as const) {
  const diagnosticsWorkspace = tempDir(`mcp-diagnostics-${documentSync}`)
  afterAll(() => NodeFs.rmSync(diagnosticsWorkspace, { recursive: true, force: true }))
  NodeFs.writeFileSync(
    NodePath.join(diagnosticsWorkspace, "tsconfig.json"),
    "{ \"compilerOptions\": { \"strict\": true } }\n"
  )
  NodeFs.writeFileSync(NodePath.join(diagnosticsWorkspace, "a.ts"), broken)
  // The TypeScript preset as a configuration file, in the document mode under test.
  NodeFs.writeFileSync(
    NodePath.join(diagnosticsWorkspace, "lsp-seam.json"),
    JSON.stringify({ servers: { typescript: { ...LspPresets.typescript.server, documentSync } } })
  )

  layer(connect(["--cwd", diagnosticsWorkspace, "--no-prewarm"]), { timeout: "60 seconds" })(
    `lsp-seam mcp: diagnostics after edits (${documentSync})`,
    (it) => {
      const ask = Effect.flatMap(
        McpClient,
        (client) =>
          Effect.promise(() =>
            client.callTool({ name: "lsp", arguments: { operation: "diagnostics", file_path: "a.ts" } })
          )
      )

      it.effect(
        "the current errors of a file: present, gone once fixed on disk, back when broken again",
        () =>
          Effect.gen(function*() {
            const error = /^a\.ts:1:14 {2}error {2}Type 'string' is not assignable to type 'number'\./
            assert.match(textOf(yield* ask), error)
            NodeFs.writeFileSync(NodePath.join(diagnosticsWorkspace, "a.ts"), "export const n: number = 1\n")
            assert.strictEqual(textOf(yield* ask), "No diagnostics.")
            NodeFs.writeFileSync(NodePath.join(diagnosticsWorkspace, "a.ts"), broken)
            assert.match(textOf(yield* ask), error)
            // Asked again unchanged: still the error (a transient reopen must not read a close's clearing set).
            assert.match(textOf(yield* ask), error)
          }),
        { timeout }
      )
    }
  )
}
