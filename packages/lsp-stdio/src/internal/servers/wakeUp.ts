/**
 * "Wake whoever waits for the next change", for state changed in single synchronous steps (the pool's room,
 * a server's readiness). A caller that finds it must wait takes `next()` in the same step it looked at the
 * state, and awaits it later; `signal()` completes it and starts a new generation. The wait is a Deferred of
 * that generation rather than Effect's `Latch`: a latch released between the look and the `await` would be
 * missed, and the caller would sleep through the change it was waiting for.
 */
import * as Deferred from "effect/Deferred"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"

export interface WakeUp {
  /** Completed at the next `signal()`; made on demand, shared by everyone waiting for the same change. */
  readonly next: () => Deferred.Deferred<void>
  /** Wakes everyone holding `next()` (a no-op when nobody took one). */
  readonly signal: () => void
}

export const make = (): WakeUp => {
  let current: Deferred.Deferred<void> | undefined
  return {
    next: () => current ??= Deferred.unsafeMake<void>(FiberId.none),
    signal: () => {
      const waiting = current
      current = undefined
      if (waiting !== undefined) Deferred.unsafeDone(waiting, Exit.void)
    }
  }
}
