/**
 * The server pool: at most one live server per key (provider id + canonical workspace), started lazily on
 * first use. Concurrent first uses share one start. A failed start is never cached and a dead server is
 * evicted, so the next use starts a fresh one.
 */
import { LspError } from "@lsp-seam/lsp"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"

/** What the pool needs of a pooled value. */
export interface Pooled {
  readonly isAlive: Effect.Effect<boolean>
}

export interface Pool<A extends Pooled> {
  /** The live value for `key`, starting it (in a scope of its own) when there is none. */
  readonly get: (
    key: string,
    start: Effect.Effect<A, LspError.LspError, Scope.Scope>
  ) => Effect.Effect<A, LspError.LspError>
  /** Removes `value` if it is still the one pooled under `key`, and tears it down in the background. */
  readonly evict: (key: string, value: A) => Effect.Effect<void>
  /** The values that are started and pooled now. */
  readonly values: Effect.Effect<ReadonlyArray<A>>
}

interface Started<A> {
  readonly value: A
  readonly scope: Scope.CloseableScope
}

interface Entry<A> {
  readonly started: Deferred.Deferred<Started<A>, LspError.LspError>
  /** Callers waiting for the start; when the last one gives up, the start is abandoned. */
  readonly waiters: Ref.Ref<number>
  readonly abandon: Deferred.Deferred<void>
}

/**
 * Makes a pool owned by the current scope. Closing that scope refuses new starts with `LSP_DISPOSED` and
 * tears every pooled value down, concurrently.
 */
export const make = <A extends Pooled>(): Effect.Effect<Pool<A>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const owner = yield* Effect.scope
    const entries = yield* Ref.make(new Map<string, Entry<A>>())
    const disposed = yield* Ref.make(false)

    const remove = (key: string, entry: Entry<A>) =>
      Ref.update(entries, (map) => {
        if (map.get(key) !== entry) return map
        const next = new Map(map)
        next.delete(key)
        return next
      })

    // The start runs on a fiber of its own, so one caller giving up does not abort it for the others.
    const launch = (key: string, entry: Entry<A>, start: Effect.Effect<A, LspError.LspError, Scope.Scope>) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const scope = yield* Scope.fork(owner, ExecutionStrategy.sequential)
          const abandoned = Deferred.await(entry.abandon).pipe(
            Effect.zipRight(LspError.disposed("Every caller gave up waiting for the language server to start."))
          )
          const exit = yield* Effect.exit(restore(Effect.raceFirst(Scope.extend(start, scope), abandoned)))
          if (Exit.isSuccess(exit)) {
            yield* Deferred.succeed(entry.started, { value: exit.value, scope })
            return
          }
          yield* remove(key, entry)
          yield* Scope.close(scope, exit)
          yield* Deferred.failCause(entry.started, exit.cause)
        })
      ).pipe(Effect.forkIn(owner))

    const awaitStart = (entry: Entry<A>) =>
      Effect.acquireUseRelease(
        Ref.update(entry.waiters, (n) => n + 1),
        () => Deferred.await(entry.started),
        () =>
          Ref.updateAndGet(entry.waiters, (n) => n - 1).pipe(
            Effect.flatMap((left) => left > 0 ? Effect.void : Deferred.succeed(entry.abandon, undefined))
          )
      )

    const get = (
      key: string,
      start: Effect.Effect<A, LspError.LspError, Scope.Scope>
    ): Effect.Effect<A, LspError.LspError> =>
      Effect.gen(function*() {
        if (yield* Ref.get(disposed)) {
          return yield* LspError.disposed("The language server host has been shut down.")
        }
        const fresh: Entry<A> = {
          started: yield* Deferred.make<Started<A>, LspError.LspError>(),
          waiters: yield* Ref.make(0),
          abandon: yield* Deferred.make<void>()
        }
        const entry = yield* Ref.modify(entries, (map) => {
          const existing = map.get(key)
          return existing !== undefined ? [existing, map] : [fresh, new Map(map).set(key, fresh)]
        })
        if (entry === fresh) yield* launch(key, fresh, start)
        const { value } = yield* awaitStart(entry)
        if (yield* value.isAlive) return value
        yield* evict(key, value)
        return yield* get(key, start)
      })

    const evict = (key: string, value: A): Effect.Effect<void> =>
      Effect.gen(function*() {
        const entry = (yield* Ref.get(entries)).get(key)
        if (entry === undefined) return
        const started = yield* Deferred.poll(entry.started)
        if (started._tag === "None") return
        const settled = yield* Effect.either(started.value)
        if (settled._tag === "Left" || settled.right.value !== value) return
        yield* remove(key, entry)
        yield* Effect.forkIn(Scope.close(settled.right.scope, Exit.void), owner)
      })

    const values = Effect.gen(function*() {
      const result: Array<A> = []
      for (const entry of (yield* Ref.get(entries)).values()) {
        const started = yield* Deferred.poll(entry.started)
        if (started._tag === "None") continue
        const settled = yield* Effect.either(started.value)
        if (settled._tag === "Right") result.push(settled.right.value)
      }
      return result
    })

    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        yield* Ref.set(disposed, true)
        const all = [...(yield* Ref.getAndSet(entries, new Map<string, Entry<A>>())).values()]
        yield* Effect.forEach(all, (entry) => Deferred.succeed(entry.abandon, undefined), { discard: true })
        yield* Effect.forEach(
          all,
          (entry) =>
            Deferred.await(entry.started).pipe(
              Effect.flatMap(({ scope }) => Scope.close(scope, Exit.void)),
              Effect.ignore
            ),
          { concurrency: "unbounded", discard: true }
        )
      })
    )

    return { get, evict, values }
  })
