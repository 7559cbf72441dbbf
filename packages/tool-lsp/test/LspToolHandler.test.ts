import { assert, describe, it } from "@effect/vitest"
import { LspError, LspResult, LspService } from "@lsp-seam/lsp"
import * as Testing from "@lsp-seam/lsp/testing"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as LspSession from "../src/LspSession.js"
import * as LspToolConfig from "../src/LspToolConfig.js"
import * as LspToolHandler from "../src/LspToolHandler.js"
import type * as LspToolInput from "../src/LspToolInput.js"

const args = {
  operation: "findReferences",
  file_path: "src/a.ts",
  line: 3,
  character: 7
} satisfies LspToolInput.LspToolInputEncoded

const locations = LspResult.locations([
  { uri: "file:///w/src/a.ts", range: { start: { line: 2, character: 6 }, end: { line: 2, character: 9 } } },
  { uri: "file:///w/src/b.ts", range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } } }
], "file:///w")

const fake = (script: Testing.FakeScript) =>
  Testing.registerFakeProvider({ id: "ts", extensionToLanguage: { ts: "typescript" }, script })

const config = (input: LspToolConfig.LspToolConfigInput) => Either.getOrThrow(LspToolConfig.decode(input))

describe("LspToolHandler.run", () => {
  it.scoped("converts the position, queries in the session's workspace and renders", () =>
    Effect.gen(function*() {
      const provider = yield* fake([Testing.succeed(locations)])
      const output = yield* LspToolHandler.run(args)
      assert.deepStrictEqual(output, { result: locations, text: "src/a.ts:3:7\nsrc/b.ts:1:1" })
      assert.deepStrictEqual(yield* provider.queries, [{
        operation: "findReferences",
        filePath: "src/a.ts",
        position: { line: 2, character: 6 },
        workspaceRoot: "/work/repo",
        languageId: "typescript"
      }])
    }).pipe(Effect.provide(LspSession.layer("/work/repo")), Effect.provide(LspService.layer)))

  it.scoped("passes symbol to the seam, with character 0 when the model gave none, and echoes the resolution", () =>
    Effect.gen(function*() {
      const resolved = {
        symbol: "add",
        position: { line: 2, character: 6 },
        requested: { line: 2, character: 0 },
        occurrences: 1
      }
      const provider = yield* fake([Testing.succeed(LspResult.withResolved(locations, resolved))])
      const output = yield* LspToolHandler.run({
        operation: "findReferences",
        file_path: "src/a.ts",
        line: 3,
        symbol: "add"
      })
      assert.strictEqual(output.text, "Resolved `add` to src/a.ts:3:7.\nsrc/a.ts:3:7\nsrc/b.ts:1:1")
      assert.deepStrictEqual(yield* provider.queries, [{
        operation: "findReferences",
        filePath: "src/a.ts",
        position: { line: 2, character: 0 },
        workspaceRoot: "/w",
        symbol: "add",
        languageId: "typescript"
      }])
    }).pipe(Effect.provide(LspSession.layer("/w")), Effect.provide(LspService.layer)))

  it.scoped("keeps the full result while capping the text", () =>
    Effect.gen(function*() {
      yield* fake([Testing.succeed(locations)])
      const output = yield* LspToolHandler.run(args, config({ maxLocations: 1 }))
      assert.deepStrictEqual(output.result, locations)
      assert.strictEqual(
        output.text,
        "src/a.ts:3:7\n1 more location omitted (limit: 1).\nNot shown, by file: src/b.ts (1)."
      )
    }).pipe(Effect.provide(LspSession.layer("/w")), Effect.provide(LspService.layer)))

  it.scoped("fails with LSP_WORKSPACE_REQUIRED before any query when the session has no working directory", () =>
    Effect.gen(function*() {
      const provider = yield* fake([Testing.succeed(locations)])
      const error = yield* Effect.flip(LspToolHandler.run(args))
      assert.strictEqual(error.code, "LSP_WORKSPACE_REQUIRED")
      assert.isTrue(error.message.includes("no working directory"))
      assert.deepStrictEqual(yield* provider.queries, [])
    }).pipe(Effect.provide(LspSession.layerWithoutWorkspace), Effect.provide(LspService.layer)))

  it.scoped("treats a blank working directory as none", () =>
    Effect.gen(function*() {
      yield* fake([Testing.succeed(locations)])
      const error = yield* Effect.flip(LspToolHandler.run(args))
      assert.strictEqual(error.code, "LSP_WORKSPACE_REQUIRED")
    }).pipe(Effect.provide(LspSession.layer("  ")), Effect.provide(LspService.layer)))

  it.scoped("reports argument errors before a missing workspace", () =>
    Effect.gen(function*() {
      const provider = yield* fake([Testing.succeed(locations)])
      const error = yield* Effect.flip(LspToolHandler.run({ ...args, line: 0 }))
      assert.strictEqual(error.code, "LSP_INVALID_ARGUMENTS")
      assert.deepStrictEqual(error.detail, { argument: "line" })
      assert.deepStrictEqual(yield* provider.queries, [])
    }).pipe(Effect.provide(LspSession.layerWithoutWorkspace), Effect.provide(LspService.layer)))

  it.scoped("takes the tool's input type: a misspelt operation or a wrong argument fails to compile", () =>
    Effect.gen(function*() {
      const provider = yield* fake([Testing.succeed(locations)])
      // The type errors below are what `npm run check` expects (tsc fails if one is no longer an error); the
      // values are still validated when run, as runUnknown validates untrusted ones.
      // @ts-expect-error a misspelt operation
      const misspelt = yield* Effect.flip(LspToolHandler.run({ ...args, operation: "goToDefinitions" }))
      assert.deepStrictEqual([misspelt.code, misspelt.detail], ["LSP_INVALID_ARGUMENTS", { argument: "operation" }])
      // @ts-expect-error a line is a number
      const text = yield* Effect.flip(LspToolHandler.run({ ...args, line: "3" }))
      assert.deepStrictEqual([text.code, text.detail], ["LSP_INVALID_ARGUMENTS", { argument: "line" }])
      // @ts-expect-error documentSymbol takes no query, workspaceSymbol does
      LspToolHandler.run({ operation: "documentSymbol", query: "Shape" })
      const untrusted: unknown = { ...args, operation: "goToDefinitions" }
      const decoded = yield* Effect.flip(LspToolHandler.runUnknown(untrusted))
      assert.deepStrictEqual([decoded.code, decoded.detail], ["LSP_INVALID_ARGUMENTS", { argument: "operation" }])
      assert.deepStrictEqual(yield* provider.queries, [])
    }).pipe(Effect.provide(LspSession.layer("/w")), Effect.provide(LspService.layer)))

  it.scoped("passes seam and provider errors through unchanged", () =>
    Effect.gen(function*() {
      const refused = LspError.serverError("boom", { code: -32603 })
      yield* fake([Testing.fail(refused)])
      const error = yield* Effect.flip(LspToolHandler.run(args))
      assert.deepStrictEqual([error.code, error.message, error.detail], [refused.code, refused.message, refused.detail])
      const unrouted = yield* Effect.flip(LspToolHandler.run({ ...args, file_path: "a.py" }))
      assert.strictEqual(unrouted.code, "LSP_UNAVAILABLE")
    }).pipe(Effect.provide(LspSession.layer("/w")), Effect.provide(LspService.layer)))
})

describe("LspToolHandler budget", () => {
  it.scoped("fails with LSP_TIMEOUT exactly when the budget elapses and interrupts the provider", () =>
    Effect.gen(function*() {
      const provider = yield* fake([Testing.never])
      const fiber = yield* Effect.fork(LspToolHandler.run(args, config({ timeoutMs: 5_000 })))
      yield* TestClock.adjust(4_999)
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      assert.strictEqual(yield* provider.interruptions, 0)
      yield* TestClock.adjust(1)
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.strictEqual(error.code, "LSP_TIMEOUT")
      assert.deepStrictEqual(error.detail, { timeoutMs: 5_000 })
      assert.isTrue(error.message.includes("5000 ms"))
      assert.strictEqual(yield* provider.interruptions, 1)
      assert.strictEqual((yield* provider.queries).length, 1)
    }).pipe(Effect.provide(LspSession.layer("/w")), Effect.provide(LspService.layer)))

  it.scoped("uses the 60 s default budget", () =>
    Effect.gen(function*() {
      yield* fake([Testing.never])
      const fiber = yield* Effect.fork(LspToolHandler.run(args))
      yield* TestClock.adjust(59_999)
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust(1)
      assert.strictEqual((yield* Effect.flip(Fiber.join(fiber))).code, "LSP_TIMEOUT")
    }).pipe(Effect.provide(LspSession.layer("/w")), Effect.provide(LspService.layer)))

  it.scoped("lets an answer that arrives within the budget through", () =>
    Effect.gen(function*() {
      const provider = yield* fake([Testing.succeed(locations, { delay: 4_999 })])
      const fiber = yield* Effect.fork(LspToolHandler.run(args, config({ timeoutMs: 5_000 })))
      yield* TestClock.adjust(4_999)
      const output = yield* Fiber.join(fiber)
      assert.deepStrictEqual(output.result, locations)
      assert.strictEqual(yield* provider.interruptions, 0)
    }).pipe(Effect.provide(LspSession.layer("/w")), Effect.provide(LspService.layer)))

  it.scoped("interrupting the caller interrupts the provider", () =>
    Effect.gen(function*() {
      const provider = yield* fake([Testing.never])
      const fiber = yield* Effect.fork(LspToolHandler.run(args))
      yield* TestClock.adjust(10)
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(yield* provider.interruptions, 1)
    }).pipe(Effect.provide(LspSession.layer("/w")), Effect.provide(LspService.layer)))
})

// The same budget on the live clock: its sleep is a real timer.
describe("LspToolHandler budget, live clock", () => {
  it.scopedLive("fails with LSP_TIMEOUT once the provider has been interrupted", () =>
    Effect.gen(function*() {
      const provider = yield* fake([Testing.never])
      const error = yield* Effect.flip(LspToolHandler.run(args, config({ timeoutMs: 30 })))
      assert.strictEqual(error.code, "LSP_TIMEOUT")
      assert.deepStrictEqual(error.detail, { timeoutMs: 30 })
      assert.strictEqual(yield* provider.interruptions, 1)
    }).pipe(Effect.provide(LspSession.layer("/w")), Effect.provide(LspService.layer)))

  it.scopedLive("lets answers and the provider's own failures through unchanged, and interrupts nothing", () =>
    Effect.gen(function*() {
      const refused = LspError.serverError("boom", { code: -32603 })
      const provider = yield* fake([
        Testing.succeed(locations, { delay: 5 }),
        Testing.fail(refused),
        Testing.succeed(locations)
      ])
      const output = yield* LspToolHandler.run(args, config({ timeoutMs: 5_000 }))
      assert.deepStrictEqual(output.result, locations)
      const error = yield* Effect.flip(LspToolHandler.run(args, config({ timeoutMs: 5_000 })))
      assert.deepStrictEqual([error.code, error.message, error.detail], [refused.code, refused.message, refused.detail])
      assert.deepStrictEqual((yield* LspToolHandler.run(args)).result, locations)
      assert.strictEqual(yield* provider.interruptions, 0)
    }).pipe(Effect.provide(LspSession.layer("/w")), Effect.provide(LspService.layer)))

  it.scopedLive("interrupting the caller interrupts the provider before the caller is released", () =>
    Effect.gen(function*() {
      const provider = yield* fake([Testing.never])
      const fiber = yield* Effect.fork(LspToolHandler.run(args, config({ timeoutMs: 5_000 })))
      // Once the provider is running (polled, not a fixed sleep).
      while ((yield* provider.queries).length === 0) yield* Effect.sleep(1)
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(yield* provider.interruptions, 1)
    }).pipe(Effect.provide(LspSession.layer("/w")), Effect.provide(LspService.layer)))
})
