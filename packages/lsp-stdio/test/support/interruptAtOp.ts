import * as Effect from "effect/Effect"
import * as Equal from "effect/Equal"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Scheduler from "effect/Scheduler"

/**
 * A scheduler that makes one fiber (the target) yield at its `k`-th Effect operation and interrupts it
 * while it is yielded, as a timeout firing at that moment would. Every other fiber, and the target before
 * and after, is scheduled as usual. Run the code under test with `Effect.withScheduler(probe.scheduler)`
 * and name its fiber with `probe.target` right after forking it.
 */
export const interruptAtOp = (k: number) => {
  let target: FiberId.FiberId | undefined = undefined
  let ops = 0
  let fired = false
  let victim: Fiber.RuntimeFiber<unknown, unknown> | undefined = undefined
  const scheduler: Scheduler.Scheduler = {
    shouldYield: (fiber) => {
      if (fired || target === undefined || !Equal.equals(fiber.id(), target)) {
        return Scheduler.defaultScheduler.shouldYield(fiber)
      }
      ops += 1
      if (ops < k) return false
      fired = true
      victim = fiber
      return 0
    },
    scheduleTask: (task, priority) => {
      const interrupted = victim
      if (interrupted === undefined) return Scheduler.defaultScheduler.scheduleTask(task, priority)
      victim = undefined
      setTimeout(() => {
        interrupted.unsafeInterruptAsFork(FiberId.none)
        Scheduler.defaultScheduler.scheduleTask(task, priority)
      }, 0)
    }
  }
  return {
    scheduler,
    target: (fiber: Fiber.RuntimeFiber<unknown, unknown>) =>
      Effect.sync(() => {
        target = fiber.id()
      }),
    /** Whether the interruption happened (the target may have finished in fewer than `k` operations). */
    fired: () => fired
  }
}
