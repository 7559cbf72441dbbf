/**
 * The cut-offs of the running budgets of one `Clock`, watched by one fiber. A budget registers its cut-off
 * and withdraws it when its query ends, synchronously, instead of starting and interrupting a sleeping fiber
 * of its own: that fiber was measured at ~40 µs of a ~0.45 ms warm query (docs/decisions.md, "Closing the
 * gap: what was measured, and what changed"). The watcher sleeps on the Clock until the earliest cut-off, so
 * a `TestClock` drives it exactly as it drives a single sleep. Once nothing is registered, the watcher is
 * stopped before Node's event loop turns again (`setImmediate`): back-to-back queries keep one watcher, and
 * no sleep outlives the queries (a pending timer would keep a one-shot process alive until it fired).
 */
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"

/** A registered cut-off: `fire` runs once the Clock reaches `at` (ms), unless it was withdrawn before. */
export interface CutOff {
  readonly at: number
  readonly fire: () => void
}

/** The cut-offs of one Clock and the fiber that watches them. Every method is one synchronous step. */
export class CutOffs {
  private readonly pending = new Set<CutOff>()
  private watcher: Fiber.RuntimeFiber<void> | undefined = undefined
  /** When the watcher looks next; Infinity while none runs. */
  private wakeAt = Infinity
  /** Bumped whenever the watcher is replaced or stopped: a watcher of an older generation does nothing more. */
  private generation = 0
  private stopQueued = false

  constructor(private readonly clock: Clock.Clock) {}

  /** Registers `cutOff`, starting a watcher when none will look before `cutOff.at`. */
  add(cutOff: CutOff): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.pending.add(cutOff)
      return cutOff.at < this.wakeAt ? this.restart(cutOff.at) : Effect.void
    })
  }

  /** Withdraws `cutOff` (it will not fire); the last one out stops the watcher before the event loop turns. */
  remove(cutOff: CutOff): void {
    this.pending.delete(cutOff)
    if (this.pending.size > 0 || this.stopQueued) return
    this.stopQueued = true
    setImmediate(() => {
      this.stopQueued = false
      if (this.pending.size === 0) this.stop()
    })
  }

  private stop(): void {
    this.generation += 1
    this.wakeAt = Infinity
    const watcher = this.watcher
    this.watcher = undefined
    watcher?.unsafeInterruptAsFork(watcher.id())
  }

  private restart(at: number): Effect.Effect<void> {
    this.stop()
    this.wakeAt = at
    const generation = this.generation
    // A daemon: the watcher serves every budget on this Clock, not only the one that started it. Interruptible
    // whatever the region it is started from (budgets start it uninterruptibly), so that stopping it clears its sleep.
    return Effect.map(Effect.forkDaemon(Effect.interruptible(this.watch(generation))), (fiber) => {
      if (this.generation === generation) this.watcher = fiber
      else fiber.unsafeInterruptAsFork(fiber.id())
    })
  }

  /** Fires what is due, then sleeps until the earliest cut-off left; ends when none is left. */
  private watch(generation: number): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.generation !== generation) return Effect.void
      const now = this.clock.unsafeCurrentTimeMillis()
      let next = Infinity
      for (const cutOff of this.pending) {
        if (cutOff.at <= now) {
          this.pending.delete(cutOff)
          cutOff.fire()
        } else if (cutOff.at < next) {
          next = cutOff.at
        }
      }
      this.wakeAt = next
      if (next === Infinity) {
        this.watcher = undefined
        return Effect.void
      }
      return Effect.zipRight(this.clock.sleep(Duration.millis(next - now)), this.watch(generation))
    })
  }
}

const byClock = new WeakMap<Clock.Clock, CutOffs>()

/** The cut-offs of `clock`, made on first use. */
export const of = (clock: Clock.Clock): CutOffs => {
  let cutOffs = byClock.get(clock)
  if (cutOffs === undefined) {
    cutOffs = new CutOffs(clock)
    byClock.set(clock, cutOffs)
  }
  return cutOffs
}
