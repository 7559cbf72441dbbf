import { assert, describe, it } from "@effect/vitest"
import { LspError, LspResult, LspService } from "@lsp-seam/lsp"
import * as Testing from "@lsp-seam/lsp/testing"
import { Effect, Exit, Fiber, Option, TestClock } from "effect"

const request = {
  operation: "hover" as const,
  filePath: "a.ts",
  position: { line: 3, character: 4 },
  workspaceRoot: "/ws"
}

describe("the scripted fake provider", () => {
  it.scoped("answers in script order, repeats the last answer, and records every query", () =>
    Effect.gen(function*() {
      const fake = yield* Testing.registerFakeProvider({
        id: "fake",
        extensionToLanguage: { ts: "typescript" },
        script: [Testing.succeed(LspResult.hover(null)), Testing.succeed(LspResult.hover({ contents: "x" }))]
      })
      const answers = yield* Effect.all([1, 2, 3].map(() => LspService.query(request)))
      assert.deepStrictEqual(answers, [
        LspResult.hover(null),
        LspResult.hover({ contents: "x" }),
        LspResult.hover({ contents: "x" })
      ])
      const queries = yield* fake.queries
      assert.strictEqual(queries.length, 3)
      assert.deepStrictEqual(queries[0], { ...request, languageId: "typescript" })
    }).pipe(Effect.provide(LspService.layer)))

  it.scoped("delays run on the Effect Clock, so TestClock drives them", () =>
    Effect.gen(function*() {
      yield* Testing.registerFakeProvider({
        id: "slow",
        extensionToLanguage: { ts: "typescript" },
        script: [Testing.succeed(LspResult.hover(null), { delay: "5 seconds" })]
      })
      const fiber = yield* Effect.fork(LspService.query(request))
      yield* TestClock.adjust("4999 millis")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(yield* Fiber.join(fiber), LspResult.hover(null))
    }).pipe(Effect.provide(LspService.layer)))

  it.scoped("a caller's timeout interrupts a query that never answers, and the fake counts it", () =>
    Effect.gen(function*() {
      const fake = yield* Testing.registerFakeProvider({
        id: "stuck",
        extensionToLanguage: { ts: "typescript" },
        script: [Testing.never]
      })
      const fiber = yield* Effect.fork(LspService.query(request).pipe(Effect.timeout("1 second"), Effect.exit))
      yield* TestClock.adjust("1 second")
      const exit = yield* Fiber.join(fiber)
      assert.isTrue(Exit.isFailure(exit))
      assert.strictEqual(yield* fake.interruptions, 1)
    }).pipe(Effect.provide(LspService.layer)))

  it.scoped("fails with the scripted error after its delay, and a function script sees the index", () =>
    Effect.gen(function*() {
      const failure = LspError.serverExited("gone")
      yield* Testing.registerFakeProvider({
        id: "fn",
        extensionToLanguage: { ts: "typescript" },
        script: (query, index) =>
          index === 0
            ? Testing.fail(failure, { delay: "1 second" })
            : Testing.succeed(
              LspResult.hover({ contents: `${"position" in query ? query.position.line : -1}:${index}` })
            )
      })
      const fiber = yield* Effect.fork(Effect.flip(LspService.query(request)))
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* Fiber.join(fiber), failure)
      assert.deepStrictEqual(yield* LspService.query(request), LspResult.hover({ contents: "3:1" }))
    }).pipe(Effect.provide(LspService.layer)))
})
