import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import * as Pool from "../src/internal/servers/pool.js"
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
  Effect.scoped(Effect.flatMap(Effect.scope, (scope) => pool.lease(key, recipe, scope)))

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
            const leaseScope = yield* Scope.make()
            const fiber = yield* Effect.fork(
              pool.lease("a", recipe, leaseScope).pipe(Effect.withScheduler(probe.scheduler))
            )
            yield* probe.target(fiber)
            const ended = yield* Fiber.await(fiber).pipe(Effect.timeout("2 seconds"), Effect.option)
            assert.isTrue(ended._tag === "Some", `the lease hung when interrupted at operation ${k}`)
            if (probe.fired()) fired += 1
            yield* Scope.close(leaseScope, Exit.void)
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

  it.live("a lease interrupted while a start hangs abandons the start: the slot is free for another key", () =>
    Effect.gen(function*() {
      let fired = 0
      for (let k = 1; k <= 40; k++) {
        const live = { count: 0 }
        const hanging: Pool.Recipe<Value> = {
          start: Effect.acquireRelease(
            Effect.sync(() => {
              live.count += 1
            }),
            () =>
              Effect.sync(() => {
                live.count -= 1
              })
          ).pipe(Effect.zipRight(Effect.never)),
          idleTimeoutMs: 60_000
        }
        const scope = yield* Scope.make()
        const pool = yield* Scope.extend(Pool.make<Value>({ maxEntries: 1 }), scope)
        const probe = interruptAtOp(k)
        const held = yield* Scope.make()
        const fiber = yield* Effect.fork(
          pool.lease("a", hanging, held).pipe(Effect.withScheduler(probe.scheduler))
        )
        yield* probe.target(fiber)
        yield* Effect.sleep(5)
        if (probe.fired()) fired += 1
        // Not interrupted by the probe (it was already waiting for the start): give up now, as a timeout would.
        yield* Fiber.interrupt(fiber)
        const other = yield* leaseAndRelease(pool, "b", counted(live)).pipe(Effect.timeout("2 seconds"), Effect.either)
        assert.isTrue(other._tag === "Right", `the hanging start kept its slot after an interruption at ${k}`)
        yield* Scope.close(scope, Exit.void)
        assert.strictEqual(live.count, 0, `a start outlived the pool (interrupted at ${k})`)
      }
      assert.isAbove(fired, 5)
    }))

  it.live("two keys taking turns on one slot both get their leases (no endless replacing)", () =>
    Effect.gen(function*() {
      let starts = 0
      // A liveness check that yields, as a check doing I/O would: another caller runs in between.
      const yielding: Pool.Recipe<Value> = {
        start: Effect.sync(() => {
          starts += 1
          return { isAlive: Effect.as(Effect.yieldNow(), true) }
        }),
        idleTimeoutMs: 60_000
      }
      const pool = yield* Pool.make<Value>({ maxEntries: 1 })
      const turns = (key: string) =>
        Effect.forEach(Array.from({ length: 5 }), () => leaseAndRelease(pool, key, yielding), { discard: true })
      const both = yield* Effect.all([turns("a"), turns("b")], { concurrency: 2 }).pipe(
        Effect.timeout("2 seconds"),
        Effect.either
      )
      assert.isTrue(both._tag === "Right", `the leases did not finish (${starts} starts)`)
      assert.isAtMost(starts, 12)
    }).pipe(Effect.scoped))

  it.effect("closing the pool stops its servers concurrently", () =>
    Effect.gen(function*() {
      const slowStop: Pool.Recipe<Value> = {
        start: Effect.acquireRelease(
          Effect.succeed({ isAlive: Effect.succeed(true) }),
          () => Effect.sleep("200 millis")
        ),
        idleTimeoutMs: 60_000
      }
      const scope = yield* Scope.make()
      const pool = yield* Scope.extend(Pool.make<Value>({ maxEntries: 4 }), scope)
      for (const key of ["a", "b", "c"]) yield* leaseAndRelease(pool, key, slowStop)
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      yield* TestClock.adjust("200 millis")
      // One stop's time for all three: one after another would need 600 ms.
      assert.isTrue(Option.isSome(yield* Fiber.poll(closing)), "the servers were stopped one after another")
    }))

  it.effect("a caller waiting for a start when the pool closes fails with LSP_DISPOSED", () =>
    Effect.gen(function*() {
      const slowStart: Pool.Recipe<Value> = {
        start: Effect.as(Effect.sleep("10 seconds"), { isAlive: Effect.succeed(true) }),
        idleTimeoutMs: 60_000
      }
      const scope = yield* Scope.make()
      const pool = yield* Scope.extend(Pool.make<Value>({ maxEntries: 4 }), scope)
      const waiter = yield* Effect.fork(
        Effect.scoped(Effect.flatMap(Effect.scope, (lease) => pool.lease("a", slowStart, lease)))
      )
      yield* TestClock.adjust("1 second")
      yield* Scope.close(scope, Exit.void)
      const exit = yield* Fiber.await(waiter)
      assert.isTrue(Exit.isFailure(exit) && !Exit.isInterrupted(exit), "the waiter was interrupted")
      const error = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
      assert.strictEqual(Option.getOrUndefined(error)?.code, "LSP_DISPOSED")
    }))

  it.effect("evictIfIdle leaves a leased value to its holder and retires an idle one", () =>
    Effect.gen(function*() {
      const live = { count: 0 }
      const recipe = counted(live)
      const pool = yield* Pool.make<Value>({ maxEntries: 4 })
      const leaseScope = yield* Scope.make()
      const value = yield* pool.lease("a", recipe, leaseScope)
      yield* pool.evictIfIdle("a", value)
      assert.strictEqual((yield* pool.status).length, 1, "a leased value stays")
      yield* Scope.close(leaseScope, Exit.void)
      yield* pool.evictIfIdle("a", value)
      assert.strictEqual((yield* pool.status).length, 0, "an idle one leaves")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(live.count, 0, "and its scope is closed")
    }).pipe(Effect.scoped))
})
