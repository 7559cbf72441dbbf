import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Pool from "../src/internal/pool.js"
import { interruptAtOp } from "./support/interruptAtOp.js"

interface Value {
  readonly isAlive: Effect.Effect<boolean>
}

/** A recipe whose values count themselves while their scope is open. */
const counted = (live: { count: number }, startDelayMs = 0): Pool.Recipe<Value> => ({
  start: Effect.acquireRelease(
    Effect.sleep(startDelayMs).pipe(
      Effect.as({ isAlive: Effect.succeed(true) }),
      Effect.tap(() => {
        live.count += 1
      })
    ),
    () =>
      Effect.sync(() => {
        live.count -= 1
      })
  ),
  idleTimeoutMs: 60_000
})

const leaseAndRelease = (pool: Pool.Pool<Value>, key: string, recipe: Pool.Recipe<Value>) =>
  Effect.gen(function*() {
    let release: Pool.Release | undefined
    const value = yield* pool.lease(key, recipe, (r) => {
      release = r
    })
    release?.()
    return value
  })

describe("Pool", () => {
  for (const replacing of [false, true]) {
    it.live(
      `a lease interrupted at any operation leaves the pool usable and closable (${
        replacing ? "replacing an idle server" : "a fresh key"
      })`,
      () =>
        Effect.gen(function*() {
          let fired = 0
          for (let k = 1; k <= 60; k++) {
            const live = { count: 0 }
            const recipe = counted(live)
            const scope = yield* Scope.make()
            const pool = yield* Scope.extend(Pool.make<Value>({ maxEntries: 1 }), scope)
            if (replacing) yield* leaseAndRelease(pool, "old", recipe)
            const probe = interruptAtOp(k)
            let release: Pool.Release | undefined
            const fiber = yield* Effect.fork(
              pool.lease("a", recipe, (r) => {
                release = r
              }).pipe(Effect.withScheduler(probe.scheduler))
            )
            yield* probe.target(fiber)
            const ended = yield* Fiber.await(fiber).pipe(Effect.timeout("2 seconds"), Effect.option)
            assert.isTrue(ended._tag === "Some", `the lease hung when interrupted at operation ${k}`)
            if (probe.fired()) fired += 1
            release?.()
            // A later caller gets a server for the key (the entry left behind, if any, is not stuck).
            const later = yield* leaseAndRelease(pool, "a", recipe).pipe(Effect.timeout("2 seconds"), Effect.either)
            assert.isTrue(later._tag === "Right", `no server for a later caller after an interruption at ${k}`)
            // At most one server runs (maxEntries 1: a replaced one was closed), and closing the pool closes it.
            assert.isAtMost(live.count, 1, `a replaced server was left running (interrupted at ${k})`)
            const closed = yield* Scope.close(scope, Exit.void).pipe(Effect.timeout("2 seconds"), Effect.option)
            assert.isTrue(closed._tag === "Some", `the pool did not close after an interruption at ${k}`)
            assert.strictEqual(live.count, 0, `a server outlived the pool (interrupted at ${k})`)
          }
          assert.isAbove(fired, 5)
        })
    )
  }

  it.live("closing the pool while a start is being launched settles it and every waiter", () =>
    Effect.gen(function*() {
      for (let yields = 0; yields < 6; yields++) {
        const live = { count: 0 }
        const scope = yield* Scope.make()
        const pool = yield* Scope.extend(Pool.make<Value>({ maxEntries: 4 }), scope)
        const waiter = yield* Effect.fork(leaseAndRelease(pool, "a", counted(live, 20)))
        for (let i = 0; i < yields; i++) yield* Effect.yieldNow()
        const closed = yield* Scope.close(scope, Exit.void).pipe(Effect.timeout("2 seconds"), Effect.option)
        assert.isTrue(closed._tag === "Some", `the pool did not close (after ${yields} yields)`)
        const ended = yield* Fiber.await(waiter).pipe(Effect.timeout("2 seconds"), Effect.option)
        assert.isTrue(ended._tag === "Some", `a waiter hung (after ${yields} yields)`)
        assert.strictEqual(live.count, 0)
      }
    }))
})
