/**
 * `serve --idle-exit DURATION`: the host counts the queries in flight and, once none has run for DURATION,
 * signals that it may stop (the caller then closes its scope, which stops the language servers).
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberHandle from "effect/FiberHandle"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"

const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }

/**
 * `30s`, `10m`, `1h`, `500ms` (also `1.5h`), or anything Effect's `Duration.decode` reads, such as
 * `"10 minutes"`. Must be more than zero.
 */
export const parseDuration = (text: string): Either.Either<Duration.Duration, string> => {
  const trimmed = text.trim()
  const short = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)$/.exec(trimmed)
  const decoded = short !== null
    ? Option.some(Duration.millis(Number(short[1]) * units[short[2]!]!))
    : /^[0-9.]+\s+[a-z]+$/.test(trimmed)
    ? Duration.decodeUnknown(trimmed)
    : Option.none()
  return Option.match(Option.filter(decoded, (d) => Duration.greaterThan(d, Duration.zero) && Duration.isFinite(d)), {
    onNone: () =>
      Either.left(`Invalid duration "${text}": use a number with ms, s, m or h (30s, 10m, 1h) or e.g. "10 minutes".`),
    onSome: Either.right
  })
}

export interface IdleTracker {
  /** Runs `effect` counted as activity. */
  readonly track: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Completes once nothing has run for the idle time. */
  readonly idle: Effect.Effect<void>
}

export const make = (idleTime: Duration.Duration): Effect.Effect<IdleTracker, never, Scope.Scope> =>
  Effect.gen(function*() {
    const done = yield* Deferred.make<void>()
    const timer = yield* FiberHandle.make()
    const lock = yield* Effect.makeSemaphore(1)
    let active = 0
    const arm = FiberHandle.run(timer, Effect.zipRight(Effect.sleep(idleTime), Deferred.succeed(done, undefined)))
    const enter = lock.withPermits(1)(Effect.suspend(() => {
      active += 1
      return active === 1 ? FiberHandle.clear(timer) : Effect.void
    }))
    const leave = lock.withPermits(1)(Effect.suspend(() => {
      active -= 1
      return active === 0 ? Effect.asVoid(arm) : Effect.void
    }))
    yield* arm
    return {
      track: (effect) => Effect.acquireUseRelease(enter, () => effect, () => leave),
      idle: Deferred.await(done)
    }
  })
