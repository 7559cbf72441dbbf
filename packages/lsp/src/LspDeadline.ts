/**
 * The caller's deadline, carried with the fiber. The seam adds no timeout of its own; a caller that
 * enforces a budget (the `lsp` tool does) publishes when it will give up, so that a provider can use the
 * time it has, for example to let a freshly started server finish its startup work, and answer in time
 * rather than be interrupted.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"

/**
 * The deadline of the current query, in epoch milliseconds of the Effect Clock; `None` when the caller
 * set none.
 *
 * @since 0.1.0
 * @category fiber refs
 */
export const current: FiberRef.FiberRef<Option.Option<number>> = FiberRef.unsafeMake(Option.none<number>())

/**
 * Runs `effect` with a deadline `budgetMs` from now on the Effect Clock (an earlier deadline already in
 * place is kept).
 *
 * @since 0.1.0
 * @category combinators
 */
export const within = (budgetMs: number) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.zip(Clock.currentTimeMillis, FiberRef.get(current)), ([now, existing]) => {
    const deadline = Option.match(existing, {
      onNone: () => now + budgetMs,
      onSome: (earlier) => Math.min(earlier, now + budgetMs)
    })
    return Effect.locally(effect, current, Option.some(deadline))
  })

/**
 * Milliseconds left until the current deadline (never negative); `None` without a deadline.
 *
 * @since 0.1.0
 * @category getters
 */
export const remaining: Effect.Effect<Option.Option<number>> = Effect.flatMap(
  FiberRef.get(current),
  (deadline) => Effect.map(Clock.currentTimeMillis, (now) => Option.map(deadline, (d) => Math.max(0, d - now)))
)
