import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as TestClock from "effect/TestClock"
import { CliIO } from "../src/internal/command/cliIO.js"
import { clearLine, withProgress } from "../src/internal/query/progress.js"

const capture = (stderrIsTTY: boolean) =>
  Effect.map(Ref.make<ReadonlyArray<string>>([]), (written) => ({
    written,
    layer: Layer.succeed(CliIO, {
      stdout: () => Effect.void,
      stderr: (text: string) => Ref.update(written, (all) => [...all, text]),
      stderrIsTTY
    })
  }))

describe("withProgress", () => {
  it.effect("on a terminal: nothing for fast work, then a line with the elapsed time, erased at the end", () =>
    Effect.gen(function*() {
      const { layer, written } = yield* capture(true)
      const fiber = yield* Effect.fork(
        withProgress("typescript: starting", Effect.as(Effect.sleep("3 seconds"), 42)).pipe(Effect.provide(layer))
      )
      yield* TestClock.adjust("300 millis")
      assert.deepStrictEqual(yield* Ref.get(written), [])
      yield* TestClock.adjust("1200 millis")
      const shown = yield* Ref.get(written)
      assert.isAbove(shown.length, 5)
      assert.isTrue(shown.every((line) => line.startsWith(clearLine) && line.includes("typescript: starting")))
      assert.include(shown.at(-1)!, "1.5 s")
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual(yield* Fiber.join(fiber), 42)
      assert.strictEqual((yield* Ref.get(written)).at(-1), clearLine)
    }))

  it.effect("erases the line when the work fails too", () =>
    Effect.gen(function*() {
      const { layer, written } = yield* capture(true)
      const fiber = yield* Effect.fork(
        withProgress("slow", Effect.zipRight(Effect.sleep("1 second"), Effect.fail("boom"))).pipe(
          Effect.provide(layer),
          Effect.flip
        )
      )
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual(yield* Fiber.join(fiber), "boom")
      assert.strictEqual((yield* Ref.get(written)).at(-1), clearLine)
    }))

  it.effect("writes nothing when stderr is not a terminal", () =>
    Effect.gen(function*() {
      const { layer, written } = yield* capture(false)
      const fiber = yield* Effect.fork(withProgress("slow", Effect.sleep("5 seconds")).pipe(Effect.provide(layer)))
      yield* TestClock.adjust("6 seconds")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(yield* Ref.get(written), [])
    }))
})
