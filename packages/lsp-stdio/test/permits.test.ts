import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Scope } from "effect"
import * as Permits from "../src/internal/servers/permits.js"
import * as ServerKey from "../src/internal/servers/serverKey.js"

const workspace = { path: "/w", uri: "file:///w" }
const ts = ServerKey.make("typescript", workspace)
const py = ServerKey.make("python", workspace)

/** Holds the permit in a scope of its own; the effect returned closes that scope (the release). */
const take = (permits: Permits.Permits, key: ServerKey.ServerKey) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    yield* permits.hold(key, scope)
    return Scope.close(scope, Exit.void)
  })

describe("Permits", () => {
  it.effect("one permit per server: two servers of one workspace do not wait for each other", () =>
    Effect.gen(function*() {
      const permits = Permits.make()
      const releaseTs = yield* take(permits, ts)
      // Would hang if the workspace, not the server, were the unit.
      const releasePy = yield* take(permits, py)
      assert.strictEqual(permits.size(), 2)
      yield* releasePy
      yield* releaseTs
    }))

  it.effect("queries for one server wait in order, and a free permit is forgotten", () =>
    Effect.gen(function*() {
      const permits = Permits.make()
      const order: Array<string> = []
      const first = yield* take(permits, ts)
      const second = yield* Effect.fork(
        Effect.flatMap(
          take(permits, ts),
          (release) => Effect.zipRight(Effect.sync(() => order.push("second")), release)
        )
      )
      const third = yield* Effect.fork(
        Effect.flatMap(take(permits, ts), (release) => Effect.zipRight(Effect.sync(() => order.push("third")), release))
      )
      yield* Effect.yieldNow()
      assert.deepStrictEqual(order, [])
      yield* first
      yield* Fiber.join(second)
      yield* Fiber.join(third)
      assert.deepStrictEqual(order, ["second", "third"])
      assert.strictEqual(permits.size(), 0, "nobody holds or waits: forgotten")
    }))

  it.effect("a permit that is still waited for is kept when its holder releases", () =>
    Effect.gen(function*() {
      const permits = Permits.make()
      const first = yield* take(permits, ts)
      const waiter = yield* Effect.fork(take(permits, ts))
      yield* Effect.yieldNow()
      yield* first
      const release = yield* Fiber.join(waiter)
      assert.strictEqual(permits.size(), 1)
      yield* release
      assert.strictEqual(permits.size(), 0)
    }))
})
