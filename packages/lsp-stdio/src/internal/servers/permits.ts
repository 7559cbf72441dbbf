/**
 * Serialisation of queries: one FIFO permit per server (provider + workspace), so queries for one server
 * run one at a time in arrival order, while another server of the same workspace (another language) is
 * never held up by it. A permit nobody holds or waits for is forgotten, so the map does not grow with every
 * workspace ever queried.
 */
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import * as FifoMutex from "./fifoMutex.js"
import type { ServerKey } from "./serverKey.js"

export interface Permits {
  /**
   * Holds `key`'s permit for the rest of `scope` (a query's): waits (interruptibly, when the caller is) in
   * arrival order, and registers the release in the same uninterruptible step that takes it. Finding the
   * permit and taking it (or queuing for it) are one synchronous step, so a permit cannot be forgotten
   * between the two.
   */
  readonly hold: (key: ServerKey, scope: Scope.Scope) => Effect.Effect<void>
  /** How many queries wait for `keyId`'s permit (not counting the one holding it): for the status view. */
  readonly waiting: (keyId: string) => Effect.Effect<number>
  /** How many permits are remembered (held, or waited for). */
  readonly size: () => number
}

export const make = (): Permits => {
  // Plain state: every look-up, insert and removal happens in one synchronous step.
  const permits = new Map<string, FifoMutex.FifoMutex>()

  const releaseOf = (id: string, mutex: FifoMutex.FifoMutex) =>
    mutex.releaseAnd(() => {
      if (mutex.isFree() && permits.get(id) === mutex) permits.delete(id)
    })

  const hold = (key: ServerKey, scope: Scope.Scope) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.suspend(() => {
        let mutex = permits.get(key.id)
        if (mutex === undefined) {
          mutex = FifoMutex.unsafeMake()
          permits.set(key.id, mutex)
        }
        const release = releaseOf(key.id, mutex)
        // On the scope itself: `Effect.addFinalizer` would also diff and restore the fiber's refs around it.
        return Effect.zipRight(mutex.unsafeEnter(restore), Scope.addFinalizer(scope, release))
      })
    )

  const waiting = (keyId: string) => Effect.suspend(() => permits.get(keyId)?.waiting ?? Effect.succeed(0))

  return { hold, waiting, size: () => permits.size }
}
