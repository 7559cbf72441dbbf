import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"

/**
 * A strictly first-in, first-out mutex. Effect's Semaphore does not promise FIFO hand-over, and queries
 * on one workspace must run in arrival order. The permit is handed directly to the oldest waiter, so no
 * late arrival can overtake; a waiter interrupted while queued simply leaves the queue.
 */
export interface FifoMutex {
  /**
   * Waits for the permit; interruptible while waiting (when the caller is). Pair with `release`. Taken
   * from an interruptible caller, an interruption arriving just as the permit is taken can still fail this
   * with the permit held: a caller that must release reliably uses `acquireWith`.
   */
  readonly acquire: Effect.Effect<void>
  /**
   * Takes the permit from inside the caller's uninterruptible region (`Effect.uninterruptibleMask`), with
   * the caller's `restore` around the wait alone: it succeeds holding the permit, or fails (interrupted
   * while queued) without it, and nothing can come in between.
   */
  readonly acquireWith: (restore: Restore) => Effect.Effect<void>
  /**
   * `acquireWith`'s first step, run synchronously by the caller (inside its own synchronous step): takes a
   * free permit at once, or joins the queue and returns the wait.
   */
  readonly unsafeEnter: (restore: Restore) => Effect.Effect<void>
  /** Hands the permit to the oldest waiter, or frees it. */
  readonly release: Effect.Effect<void>
  /** Runs `effect` holding the permit. */
  readonly withPermit: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** How many callers are queued (not counting the holder). */
  readonly waiting: Effect.Effect<number>
  /** `release`, then `after` in the same synchronous step (e.g. to forget a mutex that became free). */
  readonly releaseAnd: (after: () => void) => Effect.Effect<void>
  /** Nobody holds it and nobody waits: a synchronous look. */
  readonly isFree: () => boolean
}

/** The `restore` that `Effect.uninterruptibleMask` passes: the caller's interruptibility. */
export type Restore = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/** Makes a mutex outside of an effect: it is plain state, so making one has no effect to describe. */
export const unsafeMake = (): FifoMutex => {
  // Plain fields: every read-modify-write below happens inside one synchronous step.
  let locked = false
  const waiters: Array<Deferred.Deferred<void>> = []

  const handOver = () => {
    const next = waiters.shift()
    if (next === undefined) locked = false
    else Deferred.unsafeDone(next, Exit.void)
  }

  const release: Effect.Effect<void> = Effect.sync(handOver)

  const unsafeEnter = (restore: Restore): Effect.Effect<void> => {
    if (!locked) {
      locked = true
      return Effect.void
    }
    const ticket = Deferred.unsafeMake<void>(FiberId.none)
    waiters.push(ticket)
    return restore(Deferred.await(ticket)).pipe(
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          // Still queued: just leave. Already handed the permit: pass it on.
          const index = waiters.indexOf(ticket)
          if (index >= 0) waiters.splice(index, 1)
          else handOver()
        })
      )
    )
  }

  const acquireWith = (restore: Restore): Effect.Effect<void> => Effect.suspend(() => unsafeEnter(restore))

  const acquire: Effect.Effect<void> = Effect.uninterruptibleMask(acquireWith)

  // Not acquireUseRelease: it runs the acquisition uninterruptibly, and waiting in the queue must stay
  // interruptible.
  const withPermit = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.zipRight(acquireWith(restore), Effect.ensuring(restore(effect), release))
    )

  const releaseAnd = (after: () => void) =>
    Effect.sync(() => {
      handOver()
      after()
    })

  return {
    acquire,
    acquireWith,
    unsafeEnter,
    release,
    withPermit,
    waiting: Effect.sync(() => waiters.length),
    releaseAnd,
    isFree: () => !locked && waiters.length === 0
  }
}

export const make: Effect.Effect<FifoMutex> = Effect.sync(unsafeMake)
