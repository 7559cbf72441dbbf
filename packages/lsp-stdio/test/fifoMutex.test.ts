import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Ref, TestClock } from "effect"
import * as FifoMutex from "../src/internal/servers/fifoMutex.js"
import { interruptAtOp } from "./support/interruptAtOp.js"

describe("FifoMutex", () => {
  it.effect("hands the permit over strictly in arrival order", () =>
    Effect.gen(function*() {
      const mutex = yield* FifoMutex.make
      const order = yield* Ref.make<ReadonlyArray<number>>([])
      yield* mutex.acquire
      const fibers = []
      for (let i = 0; i < 50; i++) {
        fibers.push(yield* Effect.fork(mutex.withPermit(Ref.update(order, (o) => [...o, i]))))
        // Let each fiber reach the queue before the next one starts.
        yield* Effect.yieldNow()
      }
      assert.strictEqual(yield* mutex.waiting, 50)
      yield* mutex.release
      yield* Fiber.joinAll(fibers)
      assert.deepStrictEqual(yield* Ref.get(order), Array.from({ length: 50 }, (_, i) => i))
    }))

  it.effect("a late arrival cannot overtake queued waiters at hand-over time", () =>
    Effect.gen(function*() {
      const mutex = yield* FifoMutex.make
      const order = yield* Ref.make<ReadonlyArray<string>>([])
      yield* mutex.acquire
      const first = yield* Effect.fork(mutex.withPermit(Ref.update(order, (o) => [...o, "first"])))
      yield* Effect.yieldNow()
      // Release and immediately race a newcomer against the queued waiter.
      yield* mutex.release
      const late = yield* Effect.fork(mutex.withPermit(Ref.update(order, (o) => [...o, "late"])))
      yield* Fiber.joinAll([first, late])
      assert.deepStrictEqual(yield* Ref.get(order), ["first", "late"])
    }))

  it.effect("a waiter interrupted while queued leaves without disturbing the others", () =>
    Effect.gen(function*() {
      const mutex = yield* FifoMutex.make
      const order = yield* Ref.make<ReadonlyArray<string>>([])
      yield* mutex.acquire
      const a = yield* Effect.fork(mutex.withPermit(Ref.update(order, (o) => [...o, "a"])))
      yield* Effect.yieldNow()
      const b = yield* Effect.fork(mutex.withPermit(Ref.update(order, (o) => [...o, "b"])))
      yield* Effect.yieldNow()
      const c = yield* Effect.fork(mutex.withPermit(Ref.update(order, (o) => [...o, "c"])))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(b)
      assert.strictEqual(yield* mutex.waiting, 2)
      yield* mutex.release
      yield* Fiber.joinAll([a, c])
      assert.deepStrictEqual(yield* Ref.get(order), ["a", "c"])
      // The permit is free again.
      yield* mutex.withPermit(Effect.void)
    }))

  it.effect("a waiter timed out by the clock leaves the queue; the holder's release still reaches the next", () =>
    Effect.gen(function*() {
      const mutex = yield* FifoMutex.make
      yield* mutex.acquire
      const impatient = yield* Effect.fork(
        mutex.withPermit(Effect.void).pipe(Effect.timeout("1 second"), Effect.either)
      )
      yield* Effect.yieldNow()
      const patient = yield* Effect.fork(mutex.withPermit(Effect.succeed("done")))
      yield* TestClock.adjust("1 second")
      assert.isTrue((yield* Fiber.join(impatient))._tag === "Left")
      yield* mutex.release
      assert.strictEqual(yield* Fiber.join(patient), "done")
      assert.strictEqual(yield* mutex.waiting, 0)
    }))

  it.effect("the permit is released when the holder fails or is interrupted", () =>
    Effect.gen(function*() {
      const mutex = yield* FifoMutex.make
      yield* Effect.either(mutex.withPermit(Effect.fail("boom")))
      const holder = yield* Effect.fork(mutex.withPermit(Effect.never))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(holder)
      assert.strictEqual(yield* mutex.withPermit(Effect.succeed(1)), 1)
    }))

  // The host's pattern: take the permit inside the query's uninterruptible region, then run the query with a
  // cleanup that releases it. An interruption at any operation must leave the permit released or never taken.
  const query = (mutex: FifoMutex.FifoMutex) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        yield* mutex.acquireWith(restore)
        yield* Effect.ensuring(restore(Effect.never), mutex.release)
      })
    )

  for (const contended of [false, true]) {
    it.live(
      `acquireWith: a query interrupted at any operation never leaves the permit taken (${
        contended ? "queued behind a holder" : "free permit"
      })`,
      () =>
        Effect.gen(function*() {
          let fired = 0
          for (let k = 1; k <= 40; k++) {
            const mutex = yield* FifoMutex.make
            if (contended) yield* mutex.acquire
            const probe = interruptAtOp(k)
            const fiber = yield* Effect.fork(query(mutex).pipe(Effect.withScheduler(probe.scheduler)))
            yield* probe.target(fiber)
            if (contended) {
              yield* Effect.sleep(2)
              yield* mutex.release
            }
            // Give the interruption time to land, then stop whatever is left of the query.
            yield* Effect.sleep(5)
            yield* Fiber.interrupt(fiber)
            if (probe.fired()) fired += 1
            const next = yield* mutex.acquire.pipe(Effect.timeout("1 second"), Effect.option)
            assert.isTrue(next._tag === "Some", `the permit was left taken when interrupted at operation ${k}`)
          }
          assert.isAbove(fired, 5)
        })
    )
  }
})
