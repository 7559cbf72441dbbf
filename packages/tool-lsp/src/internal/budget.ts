/**
 * The tool's time budget: an effect run with its deadline published (`LspDeadline`) and cut off when the
 * deadline comes. On the live clock the effect runs on one child fiber, which sets the deadline for itself
 * (it ends with the effect, so nothing needs restoring), and the deadline is a plain timer that interrupts
 * it. `LspDeadline.within` and `Effect.timeoutFail` (a race of the effect's fiber against a sleeping one,
 * then a join of their fiber refs) cost about three times the Effect operations and two fibers (see
 * docs/decisions.md, "Per-query cost"); any other clock (a `TestClock`) still gets them, since that clock
 * must control the sleep.
 */
import { LspDeadline } from "@lsp-seam/lsp"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"

const liveClock = Context.get(DefaultServices.liveServices, Clock.Clock)

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
  Effect.clockWith((clock) =>
    clock !== liveClock
      ? Effect.timeoutFail(LspDeadline.within(millis)(effect), { duration: millis, onTimeout })
      : Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(Effect.fork(restore(withDeadline(effect, clock.unsafeCurrentTimeMillis() + millis))), (child) =>
          restore(Effect.async<A, E | E1>((resume) => {
            let timedOut = false
            const timer = setTimeout(() => {
              timedOut = true
              child.unsafeInterruptAsFork(child.id())
            }, millis)
            const observer = (exit: Exit.Exit<A, E>) => {
              clearTimeout(timer)
              resume(timedOut ? Effect.fail(onTimeout()) : exit)
            }
            child.addObserver(observer)
            return Effect.suspend(() => {
              clearTimeout(timer)
              child.removeObserver(observer)
              return Fiber.interrupt(child)
            })
          })))
      )
  )
