/**
 * The tool's time budget: an effect run with its deadline published (`LspDeadline`) and cut off when the
 * deadline comes, every step on the Effect `Clock` (the deadline read from it, the cut-off a sleep on it), so a
 * `TestClock` drives the very path users take. The effect runs on one child fiber, which sets the deadline for
 * itself (it ends with the effect, so nothing needs restoring); a second fiber sleeps until the deadline and
 * then interrupts the first; the caller waits on the first fiber's observer. `LspDeadline.within` plus
 * `Effect.timeoutFail` would do the same with more work: `locally` is an `acquireUseRelease`, and the race
 * joins the winner's fiber refs back into the caller and waits for the loser (see docs/decisions.md,
 * "Per-query cost").
 */
import { LspDeadline } from "@lsp-seam/lsp"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"

/** `effect` with the deadline `at`, or an earlier one in place, set on its own fiber (which it must end with). */
const withDeadline = <A, E, R>(effect: Effect.Effect<A, E, R>, at: number) =>
  Effect.zipRight(
    FiberRef.update(LspDeadline.current, (existing) =>
      Option.some(Option.match(existing, { onNone: () => at, onSome: (earlier) => Math.min(earlier, at) }))),
    effect
  )

/**
 * Runs `effect` within `millis` (at most 2^31 − 1, a timer's range), with `LspDeadline.current` at most
 * `millis` from now (an earlier deadline already in place is kept). When the time is up, `effect` is
 * interrupted, and once it has ended this fails with `onTimeout()`, whatever `effect` ended with.
 * Interrupting the caller interrupts `effect` and waits for it. Successes and failures of `effect` pass
 * through as they are.
 */
export const within = <A, E, R, E1>(
  effect: Effect.Effect<A, E, R>,
  millis: number,
  onTimeout: () => E1
): Effect.Effect<A, E | E1, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(
      Clock.currentTimeMillis,
      (now) =>
        Effect.flatMap(Effect.fork(restore(withDeadline(effect, now + millis))), (query) => {
          // Set in the same step as the timer interrupts the query, and only while the query runs, so an
          // answer that came first is never taken for a timeout.
          let timedOut = false
          const cutOff = Effect.zipRight(
            Effect.sleep(millis),
            Effect.fiberIdWith((timer) =>
              Effect.sync(() => {
                if (query.unsafePoll() !== null) return
                timedOut = true
                query.unsafeInterruptAsFork(timer)
              })
            )
          )
          // Interruptible whatever the caller's region, so that interrupting it never waits out the sleep.
          return Effect.flatMap(Effect.fork(Effect.interruptible(cutOff)), (timer) =>
            restore(Effect.async<A, E | E1>((resume) => {
              const observer = (exit: Exit.Exit<A, E>) => {
                if (!timedOut) timer.unsafeInterruptAsFork(timer.id())
                resume(timedOut ? Effect.fail(onTimeout()) : exit)
              }
              query.addObserver(observer)
              return Effect.suspend(() => {
                query.removeObserver(observer)
                return Effect.zipRight(Fiber.interrupt(timer), Fiber.interrupt(query))
              })
            })))
        })
    )
  )
