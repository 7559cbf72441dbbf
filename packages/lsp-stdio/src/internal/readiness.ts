/**
 * Whether a freshly started server has finished its startup work. Servers announce long work with
 * `$/progress` (begin … end) once the client advertises `window.workDoneProgress`; some announce nothing
 * and only need a moment of quiet. The rule is data (`Readiness` in the server config), not language logic.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type { Readiness } from "../StdioConfig.js"

const Progress = Schema.Struct({
  token: Schema.Union(Schema.String, Schema.Number),
  value: Schema.Struct({ kind: Schema.Literal("begin", "report", "end") })
})

export interface ReadinessTracker {
  /** Feed every server notification here. */
  readonly observe: (method: string, params: unknown) => Effect.Effect<void>
  /** Restarts the quiet period (the handshake has just ended, say). */
  readonly touch: Effect.Effect<void>
  /**
   * Waits until the server has settled, or until `untilMillis` (Effect Clock). True when it settled (now or
   * earlier: once settled, always settled); false when the wait was cut short.
   */
  readonly awaitSettled: (untilMillis: number) => Effect.Effect<boolean>
  /** Progress tokens now active, for introspection. */
  readonly activeTokens: Effect.Effect<number>
}

export const make = (rule: Readiness): Effect.Effect<ReadinessTracker> =>
  Effect.gen(function*() {
    const active = yield* Ref.make(new Set<string | number>())
    const lastActivity = yield* Ref.make(yield* Clock.currentTimeMillis)
    const settled = yield* Ref.make(false)
    // Replaced on every change, so a waiter wakes up as soon as the state moves.
    const changed = yield* Ref.make(yield* Deferred.make<void>())

    const signal = Effect.flatMap(Deferred.make<void>(), (next) =>
      Effect.flatMap(Ref.getAndSet(changed, next), (previous) => Deferred.succeed(previous, undefined)))

    const observe = (method: string, params: unknown) =>
      Effect.gen(function*() {
        yield* Ref.set(lastActivity, yield* Clock.currentTimeMillis)
        if (method === "$/progress" && rule.progress) {
          const progress = Schema.decodeUnknownOption(Progress)(params)
          if (progress._tag === "Some") {
            const { token, value } = progress.value
            yield* Ref.update(active, (tokens) => {
              const next = new Set(tokens)
              if (value.kind === "end") {
                next.delete(token)
              } else next.add(token)
              return next
            })
          }
        }
        yield* signal
      })

    const awaitSettled = (untilMillis: number): Effect.Effect<boolean> =>
      Effect.gen(function*() {
        while (true) {
          if (yield* Ref.get(settled)) {
            return true
          }
          const now = yield* Clock.currentTimeMillis
          const quietUntil = (yield* Ref.get(lastActivity)) + rule.quietMs
          const busy = (yield* Ref.get(active)).size > 0
          if (!busy && now >= quietUntil) {
            yield* Ref.set(settled, true)
            return true
          }
          if (now >= untilMillis) {
            return false
          }
          const wake = yield* Ref.get(changed)
          const nextCheck = busy ? untilMillis : Math.min(quietUntil, untilMillis)
          yield* Effect.raceFirst(Deferred.await(wake), Effect.sleep(Math.max(0, nextCheck - now)))
        }
      })

    const touch = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Ref.set(lastActivity, now))

    return { observe, touch, awaitSettled, activeTokens: Effect.map(Ref.get(active), (tokens) => tokens.size) }
  })
