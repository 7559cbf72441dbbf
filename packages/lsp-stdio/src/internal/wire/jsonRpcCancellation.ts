/**
 * The graces of a connection's interrupted requests: one watcher per request on a `FiberSet` (interrupted
 * with the connection's scope), and the sticky verdict of whether any grace has expired.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import type * as Scope from "effect/Scope"

export interface Cancellations {
  /**
   * Gives `settled` the grace, timed on the Clock from now. If the grace passes first, `expire` runs on a
   * fiber of its own in the scope, so that `awaitCancelled` does not wait for it.
   */
  readonly watch: (settled: Effect.Effect<unknown>, expire: Effect.Effect<void>) => Effect.Effect<void>
  /** Waits until no grace is running; `false` once any grace has expired, for good. */
  readonly awaitCancelled: Effect.Effect<boolean>
}

export const make = (grace: Duration.DurationInput): Effect.Effect<Cancellations, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const watchers = yield* FiberSet.make<void>()
    const graceMillis = Duration.toMillis(Duration.decode(grace))
    let anyExpired = false

    const watcher = (settled: Effect.Effect<unknown>, expire: Effect.Effect<void>, deadline: number) =>
      Effect.gen(function*() {
        // The deadline was taken at the interruption: the watcher may start a little later.
        const remaining = deadline - (yield* Clock.currentTimeMillis)
        const inTime = yield* settled.pipe(
          Effect.as(true),
          Effect.timeoutTo({
            duration: Duration.millis(Math.max(0, remaining)),
            onSuccess: (inTime) => inTime,
            onTimeout: () => false
          })
        )
        if (inTime) return
        anyExpired = true
        yield* Effect.forkIn(expire, scope)
      })

    return {
      watch: (settled, expire) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          // Started from an interruption handler, the watcher would inherit its uninterruptibility, and
          // then its own timeout could never fire.
          Effect.asVoid(FiberSet.run(watchers, Effect.interruptible(watcher(settled, expire, now + graceMillis))))),
      awaitCancelled: Effect.map(FiberSet.awaitEmpty(watchers), () => !anyExpired)
    }
  })
