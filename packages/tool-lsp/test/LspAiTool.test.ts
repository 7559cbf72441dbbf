import * as McpSchema from "@effect/ai/McpSchema"
import * as McpServer from "@effect/ai/McpServer"
import * as Tool from "@effect/ai/Tool"
import { assert, describe, it } from "@effect/vitest"
import { LspError, LspQuery, LspResult, LspService } from "@lsp-seam/lsp"
import * as Testing from "@lsp-seam/lsp/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as LspAiTool from "../src/LspAiTool.js"
import * as LspMcp from "../src/LspMcp.js"
import * as LspSession from "../src/LspSession.js"
import * as LspToolInput from "../src/LspToolInput.js"
import * as LspToolOutput from "../src/LspToolOutput.js"

const args = { operation: "goToDefinition", file_path: "src/a.ts", line: 3, character: 7 }

const result = LspResult.locations([
  { uri: "file:///w/src/b.ts", range: { start: { line: 9, character: 2 }, end: { line: 9, character: 5 } } }
], "file:///w")

const fakeProvider = (script: Testing.FakeScript) =>
  Layer.scoped(
    FakeProvider,
    Testing.registerFakeProvider({ id: "ts", extensionToLanguage: { ts: "typescript" }, script })
  )

class FakeProvider extends Context.Tag("test/FakeProvider")<FakeProvider, Testing.FakeProvider>() {}

const environment = (script: Testing.FakeScript, session = LspSession.layer("/w")) =>
  Layer.mergeAll(fakeProvider(script), session).pipe(Layer.provideMerge(LspService.layer))

const span = (line: number, from: number, to: number) => ({
  start: { line, character: from },
  end: { line, character: to }
})

// What the provider answers the seam composing impact: one use of the symbol, inside `add`, which `main` calls.
const impactScript: Testing.FakeScript = [
  Testing.succeed(LspResult.locations([{ uri: "file:///w/src/a.ts", range: span(3, 2, 5) }], "file:///w")),
  Testing.succeed(LspResult.locations([], "file:///w")),
  Testing.succeed(LspResult.symbols([{
    name: "add",
    kind: "Function",
    uri: "file:///w/src/a.ts",
    range: { start: { line: 0, character: 0 }, end: { line: 5, character: 1 } },
    selectionRange: span(0, 16, 19)
  }], "file:///w")),
  Testing.succeed(LspResult.calls("incoming", [], [{
    name: "main",
    kind: "Function",
    uri: "file:///w/src/m.ts",
    range: { start: { line: 8, character: 0 }, end: { line: 10, character: 1 } },
    selectionRange: span(8, 16, 20),
    fromUri: "file:///w/src/m.ts",
    fromRanges: [span(9, 2, 5)]
  }], "file:///w"))
]

describe("LspAiTool.LspTool", () => {
  it("is named lsp, described, and annotated read-only, non-destructive, idempotent and closed-world", () => {
    const tool = LspAiTool.LspTool
    assert.strictEqual(tool.name, "lsp")
    assert.strictEqual(Tool.getDescription(tool), LspToolInput.description)
    assert.strictEqual(tool.failureMode, "return")
    assert.isTrue(Context.get(tool.annotations, Tool.Readonly))
    assert.isFalse(Context.get(tool.annotations, Tool.Destructive))
    assert.isTrue(Context.get(tool.annotations, Tool.Idempotent))
    assert.isFalse(Context.get(tool.annotations, Tool.OpenWorld))
    assert.deepStrictEqual(Context.getOption(tool.annotations, Tool.Title), Option.some("Language server navigation"))
  })

  it("exposes exactly our generated JSON Schema", () => {
    assert.deepStrictEqual(Tool.getJsonSchema(LspAiTool.LspTool), LspToolInput.jsonSchema)
  })

  it.effect("encodes a success as the rendered text only, and refuses to decode it", () =>
    Effect.gen(function*() {
      const output = LspToolOutput.make(result, "src/b.ts:10:3")
      assert.strictEqual(yield* Effect.orDie(Schema.encode(LspAiTool.LspToolOutputAsText)(output)), "src/b.ts:10:3")
      const decoded = yield* Effect.either(Schema.decode(LspAiTool.LspToolOutputAsText)("src/b.ts:10:3"))
      assert.isTrue(decoded._tag === "Left")
    }))
})

describe("LspAiTool.makeTool", () => {
  it("with exactly the reference's four, exposes 0.1.0's schema and description", () => {
    const tool = LspAiTool.makeTool(LspQuery.referenceOperations)
    assert.deepStrictEqual(Tool.getJsonSchema(tool), LspToolInput.jsonSchemaFor(LspQuery.referenceOperations))
    assert.deepStrictEqual((Tool.getJsonSchema(tool) as { required: unknown }).required, [
      "operation",
      "file_path",
      "line"
    ])
    assert.strictEqual(Tool.getDescription(tool), LspToolInput.descriptionFor(LspQuery.referenceOperations))
    assert.isTrue(Context.get(tool.annotations, Tool.Readonly))
  })

  it.scoped("a toolkit for some operations is served by layer({ operations }), which refuses the others", () =>
    Effect.gen(function*() {
      const toolkit = yield* LspAiTool.makeToolkit(["documentSymbol"])
      const handled = yield* toolkit.handle("lsp", { operation: "documentSymbol", file_path: "src/a.ts" })
      assert.isFalse(handled.isFailure)
      assert.strictEqual(handled.encodedResult, "No results.")
      const refused = yield* toolkit.handle("lsp", args)
      assert.isTrue(refused.isFailure)
      assert.isTrue(LspError.isLspError(refused.result) && refused.result.code === "LSP_INVALID_ARGUMENTS")
    }).pipe(
      Effect.provide(
        LspAiTool.layer({ operations: ["documentSymbol"] }).pipe(
          Layer.provideMerge(environment([Testing.succeed(LspResult.symbols([], "file:///w"))]))
        )
      )
    ))
})

describe("LspAiTool.LspToolkit", () => {
  it.scoped("handles a call through the real handler layer", () =>
    Effect.gen(function*() {
      const toolkit = yield* LspAiTool.LspToolkit
      const handled = yield* toolkit.handle("lsp", args)
      assert.isFalse(handled.isFailure)
      assert.deepStrictEqual(handled.result, { result, text: "src/b.ts:10:3" })
      assert.strictEqual(handled.encodedResult, "src/b.ts:10:3")
      const provider = yield* FakeProvider
      const [query] = yield* provider.queries
      assert.deepStrictEqual(query !== undefined && "position" in query ? query.position : undefined, {
        line: 2,
        character: 6
      })
    }).pipe(Effect.provide(LspAiTool.layer().pipe(Layer.provideMerge(environment([Testing.succeed(result)]))))))

  it.scoped("every argument of the tool's input reaches the seam's query, severity and symbol included", () =>
    Effect.gen(function*() {
      const toolkit = yield* LspAiTool.LspToolkit
      yield* toolkit.handle("lsp", { operation: "diagnostics", file_path: "src/a.ts", severity: "information" })
      yield* toolkit.handle("lsp", { operation: "hover", file_path: "src/a.ts", line: 3, symbol: "add" })
      yield* toolkit.handle("lsp", { operation: "workspaceSymbol", query: "parse", file_path: "src/a.ts" })
      const provider = yield* FakeProvider
      const queries = yield* provider.queries
      assert.deepStrictEqual(queries.map((q) => q.operation), ["diagnostics", "hover", "workspaceSymbol"])
      assert.strictEqual(queries[0]?.operation === "diagnostics" ? queries[0].severity : undefined, "information")
      assert.strictEqual(queries[1]?.operation === "hover" ? queries[1].symbol : undefined, "add")
      assert.strictEqual(queries[2]?.operation === "workspaceSymbol" ? queries[2].query : undefined, "parse")
    }).pipe(
      Effect.provide(
        LspAiTool.layer().pipe(
          Layer.provideMerge(environment([
            Testing.succeed(LspResult.diagnostics([], "file:///w")),
            Testing.succeed(LspResult.hover(null)),
            Testing.succeed(LspResult.symbols([], "file:///w"))
          ]))
        )
      )
    ))

  it.scoped("include_body and new_name reach the seam's query as includeBody and newName", () =>
    Effect.gen(function*() {
      const toolkit = yield* LspAiTool.LspToolkit
      yield* toolkit.handle("lsp", { ...args, include_body: true })
      const renamed = yield* toolkit.handle("lsp", { ...args, operation: "renamePreview", new_name: "g" })
      assert.strictEqual(renamed.encodedResult, "No edits: the rename changes nothing.")
      const provider = yield* FakeProvider
      const queries = yield* provider.queries
      assert.strictEqual(queries[0]?.operation === "goToDefinition" ? queries[0].includeBody : undefined, true)
      assert.strictEqual(queries[1]?.operation === "renamePreview" ? queries[1].newName : undefined, "g")
    }).pipe(
      Effect.provide(
        LspAiTool.layer().pipe(
          Layer.provideMerge(environment([
            Testing.succeed(result),
            Testing.succeed(LspResult.edits([], [], "file:///w"))
          ]))
        )
      )
    ))

  it.scoped("impact with depth reaches the seam, which stops following callers at that depth", () =>
    Effect.gen(function*() {
      const schema = Tool.getJsonSchema(LspAiTool.LspTool) as { readonly properties: Record<string, unknown> }
      assert.deepStrictEqual(schema.properties.depth, {
        type: "integer",
        minimum: 1,
        maximum: 5,
        description: "impact: how many levels of callers to follow above the uses (1 to 5, default 2)."
      })
      const toolkit = yield* LspAiTool.LspToolkit
      const answer = yield* toolkit.handle("lsp", { ...args, operation: "impact", depth: 1 })
      assert.include(answer.encodedResult, "add (Function) src/a.ts:1 — 1 use: line 4\n  main (Function) src/m.ts:9")
      const provider = yield* FakeProvider
      // With the default depth (2) the seam would ask main's callers too.
      assert.deepStrictEqual((yield* provider.queries).map((q) => q.operation), [
        "findReferences",
        "goToDefinition",
        "documentSymbol",
        "incomingCalls"
      ])
    }).pipe(
      Effect.provide(
        LspAiTool.layer().pipe(
          Layer.provideMerge(environment(impactScript))
        )
      )
    ))

  it.scoped("returns a coded error as the tool result the model reads", () =>
    Effect.gen(function*() {
      const toolkit = yield* LspAiTool.LspToolkit
      const handled = yield* toolkit.handle("lsp", { ...args, line: 0 })
      assert.isTrue(handled.isFailure)
      assert.isTrue(LspError.isLspError(handled.result))
      assert.deepStrictEqual(handled.encodedResult, {
        _tag: "LspArgumentsError",
        code: "LSP_INVALID_ARGUMENTS",
        message: "Invalid \"line\" (got 0): give the symbol's line as an integer counted from 1 (the first line is 1).",
        detail: { argument: "line" }
      })
    }).pipe(Effect.provide(LspAiTool.layer().pipe(Layer.provideMerge(environment([Testing.succeed(result)]))))))

  it.scoped("passes arguments of any shape to the handler, so even a missing one gets a coded answer", () =>
    Effect.gen(function*() {
      const toolkit = yield* LspAiTool.LspToolkit
      // What the toolkit's lenient decoding makes of `{ "operation": "hover" }` from a model.
      const handled = yield* toolkit.handle("lsp", {
        operation: "hover",
        file_path: undefined,
        line: undefined,
        character: undefined
      })
      assert.isTrue(handled.isFailure)
      assert.isTrue(LspError.isLspError(handled.result))
      assert.strictEqual(
        LspError.isLspError(handled.result) && handled.result.message,
        `Missing "file_path": give the path of the file containing the symbol, relative to the workspace root or absolute.`
      )
    }).pipe(Effect.provide(LspAiTool.layer().pipe(Layer.provideMerge(environment([Testing.succeed(result)]))))))

  it.scoped("reports a missing workspace", () =>
    Effect.gen(function*() {
      const toolkit = yield* LspAiTool.LspToolkit
      const handled = yield* toolkit.handle("lsp", args)
      assert.isTrue(handled.isFailure)
      assert.isTrue(LspError.isLspError(handled.result) && handled.result.code === "LSP_WORKSPACE_REQUIRED")
    }).pipe(
      Effect.provide(
        LspAiTool.layer().pipe(
          Layer.provideMerge(environment([Testing.succeed(result)], LspSession.layerWithoutWorkspace))
        )
      )
    ))

  it.scoped("applies the configured budget", () =>
    Effect.gen(function*() {
      const toolkit = yield* LspAiTool.LspToolkit
      const fiber = yield* Effect.fork(toolkit.handle("lsp", args))
      yield* TestClock.adjust(999)
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust(1)
      const handled = yield* Fiber.join(fiber)
      assert.isTrue(LspError.isLspError(handled.result) && handled.result.code === "LSP_TIMEOUT")
      assert.strictEqual(yield* (yield* FakeProvider).interruptions, 1)
    }).pipe(
      Effect.provide(LspAiTool.layer({ timeoutMs: 1000 }).pipe(Layer.provideMerge(environment([Testing.never]))))
    ))

  it.effect("fails to build on an invalid configuration", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Layer.build(LspAiTool.layer({ timeoutMs: 0 })).pipe(Effect.scoped))
      assert.strictEqual(error.code, "LSP_INVALID_CONFIG")
    }).pipe(Effect.provide(environment([Testing.never]))))
})

const mcpClient = Layer.succeed(McpSchema.McpServerClient, {
  clientId: 0,
  getClient: Effect.dieMessage("not used by these tests")
})

describe("MCP", () => {
  it.scoped("McpServer.toolkit(LspToolkit) builds with the handler layer and serves the tool", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.McpServer
      assert.deepStrictEqual(server.tools.map((tool) => tool.name), ["lsp"])
      const [listed] = server.tools
      assert.deepStrictEqual(listed?.inputSchema, LspToolInput.jsonSchema)
      assert.strictEqual(listed?.annotations?.readOnlyHint, true)
      assert.strictEqual(listed?.annotations?.destructiveHint, false)
      assert.strictEqual(listed?.annotations?.openWorldHint, false)
      const called = yield* server.callTool({ name: "lsp", arguments: args })
      assert.deepStrictEqual(called.content, [{ type: "text", text: JSON.stringify("src/b.ts:10:3") }])
    }).pipe(
      Effect.provide(
        Layer.mergeAll(McpServer.toolkit(LspAiTool.LspToolkit), McpServer.McpServer.layer, mcpClient).pipe(
          Layer.provide(LspAiTool.layer()),
          Layer.provide(environment([Testing.succeed(result)]))
        )
      )
    ))

  it.scoped("LspMcp.layer serves plain text and flags coded failures as errors", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.McpServer
      assert.deepStrictEqual(server.tools, [LspMcp.tool])
      assert.deepStrictEqual(LspMcp.tool.inputSchema, LspToolInput.jsonSchema)
      assert.strictEqual(LspMcp.tool.description, LspToolInput.description)
      assert.strictEqual(LspMcp.tool.annotations?.title, "Language server navigation")
      assert.strictEqual(LspMcp.tool.annotations?.readOnlyHint, true)
      assert.strictEqual(LspMcp.tool.annotations?.destructiveHint, false)
      assert.strictEqual(LspMcp.tool.annotations?.idempotentHint, true)
      assert.strictEqual(LspMcp.tool.annotations?.openWorldHint, false)

      const ok = yield* server.callTool({ name: "lsp", arguments: args })
      assert.strictEqual(ok.isError, false)
      assert.deepStrictEqual(ok.content, [{ type: "text", text: "src/b.ts:10:3" }])
      assert.isUndefined(ok.structuredContent)

      const outline = yield* server.callTool({
        name: "lsp",
        arguments: { operation: "documentSymbol", file_path: "src/a.ts" }
      })
      assert.strictEqual(outline.isError, false)
      assert.deepStrictEqual(outline.content, [{ type: "text", text: "No results." }])

      const bad = yield* server.callTool({ name: "lsp", arguments: { ...args, character: -1 } })
      assert.strictEqual(bad.isError, true)
      assert.deepStrictEqual(bad.content, [{
        type: "text",
        text: "error[LSP_INVALID_ARGUMENTS]: Invalid \"character\" (got -1): give the symbol's column as an integer " +
          "counted from 1 in UTF-16 code units (the first character is 1)."
      }])
    }).pipe(
      Effect.provide(
        Layer.mergeAll(LspMcp.layer(), McpServer.McpServer.layer, mcpClient).pipe(
          Layer.provide(environment([Testing.succeed(result), Testing.succeed(LspResult.symbols([], "file:///w"))]))
        )
      )
    ))

  it.scoped("LspMcp.layer({ operations }) lists the tool for those operations and refuses the others", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.McpServer
      const four = LspQuery.referenceOperations
      assert.deepStrictEqual(server.tools, [LspMcp.toolFor(four)])
      assert.deepStrictEqual(LspMcp.toolFor(four).inputSchema, LspToolInput.jsonSchemaFor(four))
      assert.strictEqual(LspMcp.toolFor(four).description, LspToolInput.descriptionFor(four))
      const refused = yield* server.callTool({
        name: "lsp",
        arguments: { operation: "workspaceSymbol", query: "Circle" }
      })
      assert.strictEqual(refused.isError, true)
      assert.deepStrictEqual(refused.content, [{
        type: "text",
        text:
          "error[LSP_INVALID_ARGUMENTS]: Invalid \"operation\" (got \"workspaceSymbol\" (a string)): this tool does " +
          "not offer workspaceSymbol; use one of goToDefinition, findReferences, goToImplementation, hover."
      }])
    }).pipe(
      Effect.provide(
        Layer.mergeAll(
          LspMcp.layer({ operations: [...LspQuery.referenceOperations] }),
          McpServer.McpServer.layer,
          mcpClient
        )
          .pipe(Layer.provide(environment([Testing.never])))
      )
    ))
})
