import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import * as FrameStall from "../src/internal/frameStall.js"

// When a connection counts as stalled mid-frame, on the TestClock: the rules `frameGuard` closes connections by.
const timeoutMs = 1_000

const setup = Effect.gen(function*() {
  const state = { midFrame: false, paused: false }
  const watch = yield* FrameStall.make({
    timeoutMs,
    midFrame: () => state.midFrame,
    paused: () => state.paused
  })
  const stalled = yield* Effect.fork(watch.stalled)
  const isStalled = Effect.map(Fiber.poll(stalled), (exit) => exit._tag === "Some")
  return { state, watch, isStalled }
})

describe("frameStall", () => {
  it.scoped("a frame begun and never completed stalls after the timeout, not before", () =>
    Effect.gen(function*() {
      const { isStalled, state, watch } = yield* setup
      state.midFrame = true
      watch.arrived()
      yield* TestClock.adjust(timeoutMs - 1)
      assert.isFalse(yield* isStalled)
      // More bytes of the same frame do not buy time.
      watch.arrived()
      yield* TestClock.adjust(1)
      assert.isTrue(yield* isStalled)
    }))

  it.scoped("idle between whole frames never stalls", () =>
    Effect.gen(function*() {
      const { isStalled, watch } = yield* setup
      watch.arrived()
      yield* TestClock.adjust(timeoutMs * 10)
      assert.isFalse(yield* isStalled)
    }))

  it.scoped("a whole request line restarts the time; a frame completed ends it", () =>
    Effect.gen(function*() {
      const { isStalled, state, watch } = yield* setup
      state.midFrame = true
      watch.arrived()
      yield* TestClock.adjust(timeoutMs * 0.8)
      watch.progressed()
      yield* TestClock.adjust(timeoutMs * 0.8)
      assert.isFalse(yield* isStalled)
      state.midFrame = false
      watch.progressed()
      yield* TestClock.adjust(timeoutMs * 10)
      assert.isFalse(yield* isStalled)
    }))

  it.scoped("time the host paused the connection is not the client's", () =>
    Effect.gen(function*() {
      const { isStalled, state, watch } = yield* setup
      state.midFrame = true
      watch.arrived()
      state.paused = true
      yield* TestClock.adjust(timeoutMs * 5)
      assert.isFalse(yield* isStalled)
      state.paused = false
      watch.resumed()
      yield* TestClock.adjust(timeoutMs - 1)
      assert.isFalse(yield* isStalled)
      yield* TestClock.adjust(1)
      assert.isTrue(yield* isStalled)
    }))
})
