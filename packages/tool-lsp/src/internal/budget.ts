/**
 * The tool's time budget: an effect run with its deadline published (`LspDeadline`) and cut off when the
 * deadline comes, every step on the Effect `Clock` (the deadline read from it, the cut-off a sleep on it), so a
 * `TestClock` drives the very path users take. The effect runs on one child fiber, which sets the deadline for
 * itself (it ends with the effect, so nothing needs restoring); its cut-off is registered with the Clock's one
 * watcher (`cutOffs.ts`), which interrupts the child when the deadline comes; the caller waits on the child's
 * observer. `LspDeadline.within` plus `Effect.timeoutFail` would do the same with more work: `locally` is an
 * `acquireUseRelease`, and the race forks a second fiber, joins the winner's fiber refs back into the caller
 * and waits for the loser (see docs/decisions.md, "Per-query cost").
 */
import { LspDeadline } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as CutOffs from "./cutOffs.js"

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
    Effect.clockWith((clock) => {
      const at = clock.unsafeCurrentTimeMillis() + millis
      return Effect.flatMap(Effect.fork(restore(withDeadline(effect, at))), (query) => {
        const cutOffs = CutOffs.of(clock)
        // Set in the same step as the cut-off interrupts the query, and only while the query runs, so an
        // answer that came first is never taken for a timeout.
        let timedOut = false
        const cutOff: CutOffs.CutOff = {
          at,
          fire: () => {
            if (query.unsafePoll() !== null) return
            timedOut = true
            query.unsafeInterruptAsFork(query.id())
          }
        }
        return Effect.zipRight(
          cutOffs.add(cutOff),
          restore(Effect.async<A, E | E1>((resume) => {
            const observer = (exit: Exit.Exit<A, E>) => {
              cutOffs.remove(cutOff)
              resume(timedOut ? Effect.fail(onTimeout()) : exit)
            }
            query.addObserver(observer)
            return Effect.suspend(() => {
              query.removeObserver(observer)
              cutOffs.remove(cutOff)
              return Fiber.interrupt(query)
            })
          }))
        )
      })
    })
  )
