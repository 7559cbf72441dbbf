import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"

/**
 * A strictly first-in, first-out mutex. Effect's Semaphore does not promise FIFO hand-over, and queries
 * on one workspace must run in arrival order. The permit is handed directly to the oldest waiter, so no
 * late arrival can overtake; a waiter interrupted while queued simply leaves the queue.
 */
export interface FifoMutex {
  /** Waits for the permit; interruptible while waiting (when the caller is). Pair with `release`. */
  readonly acquire: Effect.Effect<void>
  /** Hands the permit to the oldest waiter, or frees it. */
  readonly release: Effect.Effect<void>
  /** Runs `effect` holding the permit. */
  readonly withPermit: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** How many callers are queued (not counting the holder). */
  readonly waiting: Effect.Effect<number>
}

interface State {
  readonly locked: boolean
  readonly waiters: ReadonlyArray<Deferred.Deferred<void>>
}

export const make: Effect.Effect<FifoMutex> = Effect.gen(function*() {
  const state = yield* Ref.make<State>({ locked: false, waiters: [] })

  const release: Effect.Effect<void> = Effect.flatten(
    Ref.modify(state, (s): readonly [Effect.Effect<void>, State] => {
      const [next, ...rest] = s.waiters
      return next === undefined
        ? [Effect.void, { locked: false, waiters: [] }]
        : [Deferred.succeed(next, undefined), { locked: true, waiters: rest }]
    })
  )

  const acquire: Effect.Effect<void> = Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const ticket = yield* Deferred.make<void>()
      const queued = yield* Ref.modify(state, (s): readonly [boolean, State] =>
        s.locked ? [true, { locked: true, waiters: [...s.waiters, ticket] }] : [false, { locked: true, waiters: [] }])
      if (!queued) {
        return
      }
      yield* restore(Deferred.await(ticket)).pipe(
        Effect.onInterrupt(() =>
          Effect.flatten(Ref.modify(state, (s): readonly [Effect.Effect<void>, State] => {
            // Still queued: just leave. Already handed the permit: pass it on.
            return s.waiters.includes(ticket)
              ? [Effect.void, {
                ...s,
                waiters: s.waiters.filter((w) =>
                  w !== ticket
                )
              }]
              : [release, s]
          }))
        )
      )
    })
  )

  // Not acquireUseRelease: it runs the acquisition uninterruptibly, and waiting in the queue must stay
  // interruptible.
  const withPermit = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.zipRight(restore(acquire), Effect.ensuring(restore(effect), release))
    )

  return { acquire, release, withPermit, waiting: Effect.map(Ref.get(state), (s) => s.waiters.length) }
})
