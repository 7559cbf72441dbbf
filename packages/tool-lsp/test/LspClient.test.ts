import { assert, describe, it } from "@effect/vitest"
import { LspError, LspResult, LspService } from "@lsp-seam/lsp"
import * as Testing from "@lsp-seam/lsp/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LspClient from "../src/LspClient.js"

const args = { operation: "hover", file_path: "src/a.ts", line: 1, character: 2 } as const
const hover = LspResult.hover({ contents: "const a: number" })

const setup = (script: Testing.FakeScript) => {
  const fake = Effect.runSync(
    Testing.makeFakeProvider({ id: "ts", extensionToLanguage: { ts: "typescript" }, script })
  )
  let released = false
  const layer = Layer.mergeAll(
    LspService.layerProvider(fake.provider),
    Layer.scopedDiscard(Effect.addFinalizer(() => Effect.sync(() => released = true)))
  ).pipe(Layer.provideMerge(LspService.layer))
  return {
    layer,
    queries: () => Effect.runPromise(fake.queries),
    interruptions: () => Effect.runPromise(fake.interruptions),
    released: () => released
  }
}

const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise
  } catch (error) {
    return error
  }
  return assert.fail("expected the promise to reject")
}

const codeOf = (error: unknown) => LspError.isLspError(error) ? error.code : `not an LspError: ${String(error)}`

/** Polls `condition` until it holds; bounded by wall time, since a loaded machine stretches every turn. */
const until = async (condition: () => Promise<boolean>) => {
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  assert.fail("condition never held")
}

describe("LspClient", () => {
  it("previews a rename and answers with code (include_body), as the tool does", async () => {
    const range = { start: { line: 1, character: 0 }, end: { line: 2, character: 1 } }
    const edits = LspResult.edits([{ uri: "file:///repo/a.ts", range, newText: "g", oldText: "f" }], [], "file:///repo")
    const located = LspResult.locations(
      [{ uri: "file:///repo/a.ts", range, body: { range, text: "function f() {\n}" } }],
      "file:///repo"
    )
    const env = setup([Testing.succeed(edits), Testing.succeed(located)])
    const client = LspClient.make(env.layer, { workingDirectory: "/repo" })
    const at = { file_path: "a.ts", line: 2, character: 1 }
    assert.strictEqual(
      (await client.query({ operation: "renamePreview", ...at, new_name: "g" })).text,
      "Rename preview: 1 edit in 1 file. Nothing was written: apply these edits with your own edit tool.\n" +
        "a.ts:2:1  f → g"
    )
    assert.strictEqual(
      (await client.query({ operation: "goToDefinition", ...at, include_body: true })).text,
      "a.ts:2:1\n    2  function f() {\n    3  }"
    )
    const queries = await env.queries()
    assert.deepStrictEqual(queries.map((q) => q.operation), ["renamePreview", "goToDefinition"])
    await client.close()
  })

  it("passes the new operations through, including calls without line and character", async () => {
    const symbols = LspResult.symbols([{
      name: "Circle",
      kind: "Class",
      uri: "file:///repo/shape.ts",
      range: { start: { line: 6, character: 0 }, end: { line: 12, character: 1 } },
      selectionRange: { start: { line: 6, character: 13 }, end: { line: 6, character: 19 } }
    }], "file:///repo")
    const env = setup([Testing.succeed(symbols), Testing.succeed(symbols)])
    const client = LspClient.make(env.layer, { workingDirectory: "/repo" })
    assert.deepStrictEqual(await client.query({ operation: "workspaceSymbol", query: "Circ" }), {
      result: { ...symbols, symbols: [{ ...symbols.symbols[0]!, provider: "ts" }] },
      text: "shape.ts:7:14  Class  Circle"
    })
    assert.strictEqual(
      (await client.query({ operation: "documentSymbol", file_path: "shape.ts" })).text,
      "shape.ts:7:14  Class  Circle"
    )
    assert.deepStrictEqual(await env.queries(), [
      { operation: "workspaceSymbol", query: "Circ", workspaceRoot: "/repo", languageId: "" },
      { operation: "documentSymbol", filePath: "shape.ts", workspaceRoot: "/repo", languageId: "typescript" }
    ])
    await client.close()
  })

  it("answers impact, passing depth to the seam, with the tree the model reads", async () => {
    const line = (n: number, from: number, to: number) => ({
      start: { line: n, character: from },
      end: { line: n, character: to }
    })
    const load = {
      name: "load",
      kind: "Function" as const,
      uri: "file:///repo/src/load.ts",
      range: { start: { line: 2, character: 0 }, end: { line: 4, character: 1 } },
      selectionRange: line(2, 16, 20)
    }
    const caller = {
      name: "loadsDoubles",
      kind: "Function" as const,
      uri: "file:///repo/test/load.test.ts",
      range: { start: { line: 2, character: 0 }, end: { line: 4, character: 1 } },
      selectionRange: line(2, 16, 28),
      fromUri: "file:///repo/test/load.test.ts",
      fromRanges: [line(3, 6, 10)]
    }
    // The seam asks the provider: the uses, the definition (none here), the outline of the uses' file, and the
    // callers of the one declaration found — once, at depth 1.
    const env = setup([
      Testing.succeed(LspResult.locations([{ uri: load.uri, range: line(3, 9, 14) }], "file:///repo")),
      Testing.succeed(LspResult.locations([], "file:///repo")),
      Testing.succeed(LspResult.symbols([load], "file:///repo")),
      Testing.succeed(LspResult.calls("incoming", [load], [caller], "file:///repo"))
    ])
    const client = LspClient.make(env.layer, { workingDirectory: "/repo" })
    const answer = await client.query({
      operation: "impact",
      file_path: "src/parse.ts",
      line: 2,
      character: 17,
      depth: 1
    })
    assert.strictEqual(answer.result.kind, "impact")
    assert.strictEqual(
      answer.text,
      [
        "Impact of the symbol at src/parse.ts:2 — 1 use in 1 place",
        "Levels: 0: 1 place · 1: 1 caller (1 test) (depth 1)",
        "load (Function) src/load.ts:3 — 1 use: line 4",
        "Tests (1 declaration in 1 file):",
        "  loadsDoubles (Function) test/load.test.ts:3 — 1 call to load: line 4",
        "Test files to run: test/load.test.ts."
      ].join("\n")
    )
    const queries = await env.queries()
    assert.deepStrictEqual(queries.map((q) => q.operation), [
      "findReferences",
      "goToDefinition",
      "documentSymbol",
      "incomingCalls"
    ])
    await client.close()
  })

  it("asks diagnostics with a severity and renders them, never 'clean' for a pending answer", async () => {
    const found = LspResult.diagnostics([{
      uri: "file:///repo/a.ts",
      range: { start: { line: 0, character: 13 }, end: { line: 0, character: 14 } },
      severity: "error",
      source: "typescript",
      code: "2322",
      message: "Type 'string' is not assignable to type 'number'."
    }], "file:///repo")
    const pending = LspResult.markIncomplete(LspResult.diagnostics([], "file:///repo"), {
      reason: "diagnostics-pending",
      message: "The language server published no diagnostics for the file's current text within 750 ms."
    })
    const env = setup([Testing.succeed(found), Testing.succeed(pending)])
    const client = LspClient.make(env.layer, { workingDirectory: "/repo" })
    assert.strictEqual(
      (await client.query({ operation: "diagnostics", file_path: "a.ts", severity: "hint" })).text,
      "a.ts:1:14  error  Type 'string' is not assignable to type 'number'.  [typescript 2322]"
    )
    assert.notInclude((await client.query({ operation: "diagnostics", file_path: "a.ts" })).text, "No diagnostics.")
    assert.deepStrictEqual((await env.queries())[0], {
      operation: "diagnostics",
      filePath: "a.ts",
      workspaceRoot: "/repo",
      severity: "hint",
      languageId: "typescript"
    })
    await client.close()
  })

  it("refuses an operation its tool configuration does not offer", async () => {
    const env = setup([Testing.succeed(hover)])
    const client = LspClient.make(env.layer, { workingDirectory: "/repo", tool: { operations: ["hover"] } })
    const error = await rejection(client.query({ operation: "documentSymbol", file_path: "a.ts" }))
    assert.strictEqual(codeOf(error), "LSP_INVALID_ARGUMENTS")
    assert.include(
      LspError.isLspError(error) ? error.message : "",
      "this tool does not offer documentSymbol; use one of hover."
    )
    assert.deepStrictEqual(await env.queries(), [])
    await client.close()
  })

  it("answers a query with the canonical result and the rendered text", async () => {
    const env = setup([Testing.succeed(hover)])
    const client = LspClient.make(env.layer, { workingDirectory: "/repo" })
    const output = await client.query(args)
    assert.deepStrictEqual(output, { result: hover, text: "const a: number" })
    assert.strictEqual((await env.queries())[0]?.workspaceRoot, "/repo")
    await client.close()
  })

  it("lets a query override the working directory, and needs one", async () => {
    const env = setup([Testing.succeed(hover)])
    const client = LspClient.make(env.layer)
    assert.strictEqual(codeOf(await rejection(client.query(args))), "LSP_WORKSPACE_REQUIRED")
    await client.query(args, { workingDirectory: "/other" })
    assert.deepStrictEqual((await env.queries()).map((query) => query.workspaceRoot), ["/other"])
    await client.close()
  })

  it("rejects with the LspError itself for invalid arguments", async () => {
    const env = setup([Testing.succeed(hover)])
    const client = LspClient.make(env.layer, { workingDirectory: "/repo" })
    const error = await rejection(client.queryUnknown({ ...args, operation: "rename" }))
    assert.isTrue(LspError.isLspError(error))
    assert.strictEqual(codeOf(error), "LSP_INVALID_ARGUMENTS")
    assert.instanceOf(error, Error)
    await client.close()
  })

  it("query takes the tool's input type; queryUnknown takes anything and validates it", async () => {
    const env = setup([Testing.succeed(hover)])
    const client = LspClient.make(env.layer, { workingDirectory: "/repo" })
    // @ts-expect-error a misspelt operation does not compile (still refused when run)
    assert.strictEqual(codeOf(await rejection(client.query({ ...args, operation: "hovr" }))), "LSP_INVALID_ARGUMENTS")
    const untrusted: unknown = JSON.parse(JSON.stringify(args))
    assert.strictEqual((await client.queryUnknown(untrusted)).text, "const a: number")
    assert.strictEqual(codeOf(await rejection(client.queryUnknown(42))), "LSP_INVALID_ARGUMENTS")
    await client.close()
  })

  it("settles queries that finish without waiting once the runtime is built", async () => {
    const env = setup([Testing.succeed(hover)])
    const client = LspClient.make(env.layer, { workingDirectory: "/repo" })
    await client.query(args)
    const controller = new AbortController()
    const error = await rejection(client.query({ ...args, line: -1 }, { signal: controller.signal }))
    assert.strictEqual(codeOf(error), "LSP_INVALID_ARGUMENTS")
    assert.strictEqual((await client.query(args)).text, "const a: number")
    await client.close()
  })

  it("applies the tool configuration, including the budget", async () => {
    const env = setup([Testing.never])
    const client = LspClient.make(env.layer, { workingDirectory: "/repo", tool: { timeoutMs: 20 } })
    assert.strictEqual(codeOf(await rejection(client.query(args))), "LSP_TIMEOUT")
    assert.strictEqual(await env.interruptions(), 1)
    await client.close()
  })

  it("throws LSP_INVALID_CONFIG at once for an invalid tool configuration", () => {
    const env = setup([Testing.never])
    try {
      LspClient.make(env.layer, { tool: { maxLocations: 0 } })
    } catch (error) {
      assert.strictEqual(codeOf(error), "LSP_INVALID_CONFIG")
      return
    }
    assert.fail("expected make to throw")
  })

  it("rejects queries with the Layer's error when it fails to build", async () => {
    const failing = Layer.fail(LspError.invalidConfig("bad servers"))
    const client = LspClient.make(failing, { workingDirectory: "/repo" })
    const error = await rejection(client.query(args))
    assert.strictEqual(codeOf(error), "LSP_INVALID_CONFIG")
    await client.close()
  })

  it("an aborted signal interrupts the query down to the provider and rejects with LSP_ABORTED", async () => {
    const env = setup([Testing.never])
    const client = LspClient.make(env.layer, { workingDirectory: "/repo" })
    const controller = new AbortController()
    const pending = client.query(args, { signal: controller.signal })
    await until(async () => (await env.queries()).length === 1)
    controller.abort()
    const error = await rejection(pending)
    assert.isTrue(LspError.isLspError(error))
    assert.strictEqual(codeOf(error), "LSP_ABORTED")
    assert.strictEqual(LspError.isLspError(error) && error._tag, "LspOperationError")
    assert.strictEqual(await env.interruptions(), 1)
    await client.close()
  })

  it("an AbortSignal.timeout that fires rejects with LSP_TIMEOUT", async () => {
    const env = setup([Testing.never])
    const client = LspClient.make(env.layer, { workingDirectory: "/repo" })
    const error = await rejection(client.query(args, { signal: AbortSignal.timeout(30) }))
    assert.strictEqual(codeOf(error), "LSP_TIMEOUT")
    assert.strictEqual(LspError.isLspError(error) && error._tag, "LspTimeoutError")
    await client.close()
  })

  it("rejects with a caller-chosen abort reason", async () => {
    const env = setup([Testing.never])
    const client = LspClient.make(env.layer, { workingDirectory: "/repo" })
    const controller = new AbortController()
    const pending = client.query(args, { signal: controller.signal })
    await until(async () => (await env.queries()).length === 1)
    const reason = new Error("user pressed escape")
    controller.abort(reason)
    assert.strictEqual(await rejection(pending), reason)
    await client.close()
  })

  it("does not start a query whose signal is already aborted", async () => {
    const env = setup([Testing.succeed(hover)])
    const client = LspClient.make(env.layer, { workingDirectory: "/repo" })
    const error = await rejection(client.query(args, { signal: AbortSignal.abort() }))
    assert.strictEqual(codeOf(error), "LSP_ABORTED")
    assert.deepStrictEqual(await env.queries(), [])
    await client.close()
  })

  it("an abort after the answer changes nothing", async () => {
    const env = setup([Testing.succeed(hover)])
    const client = LspClient.make(env.layer, { workingDirectory: "/repo" })
    const controller = new AbortController()
    const output = await client.query(args, { signal: controller.signal })
    controller.abort()
    assert.strictEqual(output.text, "const a: number")
    await client.close()
  })

  it("close interrupts queries in flight, releases the Layer, and later queries reject with LSP_DISPOSED", async () => {
    const env = setup([Testing.never])
    const client = LspClient.make(env.layer, { workingDirectory: "/repo" })
    const pending = client.query(args)
    await until(async () => (await env.queries()).length === 1)
    await client.close()
    assert.strictEqual(codeOf(await rejection(pending)), "LSP_DISPOSED")
    assert.strictEqual(await env.interruptions(), 1)
    assert.isTrue(env.released())
    assert.strictEqual(codeOf(await rejection(client.query(args))), "LSP_DISPOSED")
    await client.close()
  })

  it("close without any query is fine", async () => {
    const env = setup([Testing.succeed(hover)])
    const client = LspClient.make(env.layer)
    await client.close()
    assert.strictEqual(codeOf(await rejection(client.query(args))), "LSP_DISPOSED")
  })
})
