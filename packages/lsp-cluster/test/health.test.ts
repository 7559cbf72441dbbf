import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as TestClock from "effect/TestClock"
import * as ClusterHealth from "../src/internal/health.js"
import type * as LspClusterHealth from "../src/LspClusterHealth.js"

// The rule a cluster client's query follows during an outage (internal/health.ts), on the TestClock: it fails
// once it has spent the bound inside one outage, counted from the later of its own start and the outage's; an
// outage that ends within the bound costs it nothing.

const available: LspClusterHealth.Health = { _tag: "Available", runners: [] }
const noRunner = (since: number): LspClusterHealth.Health => ({
  _tag: "Unavailable",
  outage: { _tag: "NoRunner", storage: "sqlite:/srv/cluster.db" },
  since
})
const after = Duration.seconds(10)

/** The guard forked against `health`: poll it to see whether (and how) it has failed. */
const guard = (health: SubscriptionRef.SubscriptionRef<LspClusterHealth.Health>) =>
  Effect.fork(Effect.flip(ClusterHealth.failWhenUnavailable(health, after, "/srv/w/api")))

describe("a query during a cluster outage", () => {
  it.effect("fails after the bound inside an outage, naming its cause", () =>
    Effect.gen(function*() {
      const health = yield* SubscriptionRef.make<LspClusterHealth.Health>(available)
      const fiber = yield* guard(health)
      yield* TestClock.adjust("5 seconds")
      yield* SubscriptionRef.set(health, noRunner(5_000))
      yield* TestClock.adjust("9999 millis")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)), "not before 10 s in the outage")
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.code, "LSP_REMOTE_UNAVAILABLE")
      assert.include(error.message, "no runner registered in sqlite:/srv/cluster.db, for 10s")
      assert.deepInclude(error.detail, { cluster: "NoRunner", retriable: true })
    }))

  it.effect("an outage older than the query still gives the query the whole bound", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust("1 hour")
      const health = yield* SubscriptionRef.make<LspClusterHealth.Health>(noRunner(0))
      const fiber = yield* guard(health)
      yield* TestClock.adjust("9 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* Fiber.join(fiber)).code, "LSP_REMOTE_UNAVAILABLE")
    }))

  it.effect("an outage that ends within the bound costs nothing, and a new one starts the count again", () =>
    Effect.gen(function*() {
      const health = yield* SubscriptionRef.make<LspClusterHealth.Health>(noRunner(0))
      const fiber = yield* guard(health)
      yield* TestClock.adjust("8 seconds")
      yield* SubscriptionRef.set(health, available)
      yield* TestClock.adjust("1 minute")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)), "the cluster came back")
      yield* SubscriptionRef.set(health, noRunner(68_000))
      yield* TestClock.adjust("9 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* Fiber.join(fiber)).code, "LSP_REMOTE_UNAVAILABLE")
    }))
})
