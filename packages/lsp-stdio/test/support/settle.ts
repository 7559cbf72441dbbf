import * as Effect from "effect/Effect"

/**
 * Lets every fiber that can make progress do so, without moving the clock. The host reads real files, so
 * the event loop must turn too (a macrotask), not only the fiber scheduler.
 */
export const settle = Effect.gen(function*() {
  for (let i = 0; i < 5; i++) {
    yield* Effect.async<void>((resume) => {
      setImmediate(() => resume(Effect.void))
    })
    yield* Effect.yieldNow()
  }
})

/**
 * Settles until `until` holds, and returns the value that made it hold; dies with `message` if it never
 * does. Bounded by wall time, not by a number of turns: the file reads go through libuv's thread pool,
 * which on a loaded machine can take longer than thousands of event-loop turns (the TestClock does not
 * move `Date.now()`).
 */
export const waitFor = <A>(effect: Effect.Effect<A>, until: (a: A) => boolean, message = "condition never held") =>
  Effect.gen(function*() {
    const deadline = Date.now() + 20_000
    while (true) {
      const value = yield* effect
      if (until(value)) return value
      if (Date.now() > deadline) return yield* Effect.dieMessage(message)
      yield* settle
    }
  })
