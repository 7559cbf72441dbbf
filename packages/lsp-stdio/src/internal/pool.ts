/**
 * The server pool: at most one live server per key (provider id + canonical workspace), started lazily on
 * first use. Concurrent first uses share one start. A failed start is never cached and a dead server is
 * evicted, so the next use starts a fresh one. Users hold a lease while they work; a server nobody has
 * leased for its idle timeout is shut down, and when the pool is full a new key replaces the least
 * recently used idle server (or waits until one is idle).
 */
import { LspError } from "@lsp-seam/lsp"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"

/** What the pool needs of a pooled value. */
export interface Pooled {
  readonly isAlive: Effect.Effect<boolean>
}

/** How one key's value is started and how long it may sit idle. */
export interface Recipe<A> {
  readonly start: Effect.Effect<A, LspError.LspError, Scope.Scope>
  readonly idleTimeoutMs: number
}

/** A pooled value as introspection sees it. */
export interface EntryStatus<A> {
  readonly key: string
  /** `None` while starting. */
  readonly value: Option.Option<A>
  readonly startedAt: number
  readonly lastUsedAt: number
  readonly inUse: number
  readonly leases: number
}

export interface Pool<A extends Pooled> {
  /** Leases the live value for `key`, starting it when there is none; the lease ends with the scope. */
  readonly lease: (key: string, recipe: Recipe<A>) => Effect.Effect<A, LspError.LspError, Scope.Scope>
  /** Removes `value` if it is still the one pooled under `key`, and tears it down in the background. */
  readonly evict: (key: string, value: A) => Effect.Effect<void>
  readonly status: Effect.Effect<ReadonlyArray<EntryStatus<A>>>
}

interface Started<A> {
  readonly value: A
  readonly scope: Scope.CloseableScope
}

interface Entry<A> {
  readonly key: string
  readonly started: Deferred.Deferred<Started<A>, LspError.LspError>
  /** Callers waiting for the start; when the last one gives up, the start is abandoned. */
  readonly waiters: Ref.Ref<number>
  readonly abandon: Deferred.Deferred<void>
  readonly startedAt: number
  readonly lastUsedAt: Ref.Ref<number>
  readonly inUse: Ref.Ref<number>
  readonly leases: Ref.Ref<number>
}

/**
 * Makes a pool of at most `maxEntries` values, owned by the current scope. Closing that scope refuses new
 * leases with `LSP_DISPOSED` and tears every pooled value down, concurrently.
 */
export const make = <A extends Pooled>(options: { readonly maxEntries: number }): Effect.Effect<
  Pool<A>,
  never,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const owner = yield* Effect.scope
    const entries = yield* Ref.make(new Map<string, Entry<A>>())
    const disposed = yield* Ref.make(false)
    // Completed (and replaced) whenever a lease ends or an entry leaves: wakes callers waiting for room.
    const changed = yield* Ref.make(yield* Deferred.make<void>())

    const signal = Effect.flatMap(Deferred.make<void>(), (next) =>
      Effect.flatMap(Ref.getAndSet(changed, next), (previous) => Deferred.succeed(previous, undefined)))

    const remove = (entry: Entry<A>) =>
      Ref.modify(entries, (map) => {
        if (map.get(entry.key) !== entry) {
          return [false, map] as const
        }
        const next = new Map(map)
        next.delete(entry.key)
        return [true, next] as const
      }).pipe(Effect.tap((removed) =>
        removed ? signal : Effect.void
      ))

    const startedValue = (entry: Entry<A>): Effect.Effect<Option.Option<Started<A>>> =>
      Effect.flatMap(Deferred.poll(entry.started), (polled) =>
        Option.match(polled, { onNone: () => Effect.succeedNone, onSome: (done) => Effect.option(done) }))

    /** Removes the entry and closes its scope on a fiber of the pool, so the caller does not wait. */
    const retire = (entry: Entry<A>, started: Started<A>) =>
      Effect.flatMap(remove(entry), (removed) =>
        removed ? Effect.asVoid(Effect.forkIn(Scope.close(started.scope, Exit.void), owner)) : Effect.void)

    // Shuts the value down once nobody has used it for `idleTimeoutMs`; lives in the value's own scope.
    const idleWatch = (entry: Entry<A>, started: Started<A>, idleTimeoutMs: number) =>
      Effect.gen(function*() {
        while (true) {
          const now = yield* Clock.currentTimeMillis
          const idleFor = now - (yield* Ref.get(entry.lastUsedAt))
          if ((yield* Ref.get(entry.inUse)) === 0 && idleFor >= idleTimeoutMs) {
            return yield* retire(entry, started)
          }
          yield* Effect.sleep(Math.max(1, idleTimeoutMs - idleFor))
        }
      })

    // The start runs on a fiber of its own, so one caller giving up does not abort it for the others.
    const launch = (entry: Entry<A>, recipe: Recipe<A>) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const scope = yield* Scope.fork(owner, ExecutionStrategy.sequential)
          const abandoned = Deferred.await(entry.abandon).pipe(
            Effect.zipRight(LspError.disposed("Every caller gave up waiting for the language server to start."))
          )
          const exit = yield* Effect.exit(restore(Effect.raceFirst(Scope.extend(recipe.start, scope), abandoned)))
          if (Exit.isSuccess(exit)) {
            const started = { value: exit.value, scope }
            yield* Ref.set(entry.lastUsedAt, yield* Clock.currentTimeMillis)
            // Forked from the uninterruptible part of the launch: it must opt back in, or closing the scope
            // would wait for it forever.
            yield* Effect.forkIn(Effect.interruptible(idleWatch(entry, started, recipe.idleTimeoutMs)), scope)
            yield* Deferred.succeed(entry.started, started)
            return
          }
          yield* remove(entry)
          yield* Scope.close(scope, exit)
          yield* Deferred.failCause(entry.started, exit.cause)
        })
      ).pipe(Effect.forkIn(owner))

    const awaitStart = (entry: Entry<A>) =>
      Effect.acquireUseRelease(
        Ref.update(entry.waiters, (n) =>
          n + 1),
        () =>
          Deferred.await(entry.started),
        () =>
          Ref.updateAndGet(entry.waiters, (n) =>
            n - 1).pipe(
              Effect.flatMap((left) => left > 0 ? Effect.void : Deferred.succeed(entry.abandon, undefined))
            )
      )

    /** The least recently used started entry that nobody is using, if any. */
    const idlest = Effect.gen(function*() {
      let best: { readonly entry: Entry<A>; readonly started: Started<A>; readonly lastUsedAt: number } | undefined
      for (const entry of (yield* Ref.get(entries)).values()) {
        const started = yield* startedValue(entry)
        if (Option.isNone(started) || (yield* Ref.get(entry.inUse)) > 0) continue
        const lastUsedAt = yield* Ref.get(entry.lastUsedAt)
        if (best === undefined || lastUsedAt < best.lastUsedAt) best = { entry, started: started.value, lastUsedAt }
      }
      return Option.fromNullable(best)
    })

    /** The entry for `key`: the existing one, or a new one once there is room for it. */
    const entryFor = (key: string, recipe: Recipe<A>): Effect.Effect<Entry<A>, LspError.LspError> =>
      Effect.gen(function*() {
        while (true) {
          if (yield* Ref.get(disposed)) {
            return yield* LspError.disposed("The language server host has been shut down.")
          }
          // The common case, a live entry, allocates nothing.
          const existing = (yield* Ref.get(entries)).get(key)
          if (existing !== undefined) return existing
          const now = yield* Clock.currentTimeMillis
          const fresh: Entry<A> = {
            key,
            started: yield* Deferred.make<Started<A>, LspError.LspError>(),
            waiters: yield* Ref.make(0),
            abandon: yield* Deferred.make<void>(),
            startedAt: now,
            lastUsedAt: yield* Ref.make(now),
            inUse: yield* Ref.make(0),
            leases: yield* Ref.make(0)
          }
          const wake = yield* Ref.get(changed)
          const outcome = yield* Ref.modify(entries, (map): readonly [Entry<A> | "full", Map<string, Entry<A>>] => {
            const existing = map.get(key)
            if (existing !== undefined) return [existing, map] as const
            if (map.size >= options.maxEntries) return ["full", map] as const
            return [fresh, new Map(map).set(key, fresh)] as const
          })
          if (outcome === fresh) {
            yield* launch(fresh, recipe)
            return fresh
          }
          if (outcome !== "full") return outcome
          const victim = yield* idlest
          if (Option.isSome(victim)) {
            yield* retire(victim.value.entry, victim.value.started)
          } else {
            // Every server is busy or starting: wait, within the caller's budget, for one to become idle.
            yield* Deferred.await(wake)
          }
        }
      })

    const lease = (key: string, recipe: Recipe<A>): Effect.Effect<A, LspError.LspError, Scope.Scope> =>
      Effect.gen(function*() {
        const entry = yield* entryFor(key, recipe)
        // A started entry needs no waiting (nor the bookkeeping that lets waiters abandon a start).
        const ready = yield* Deferred.poll(entry.started)
        const { value } = ready._tag === "Some" ? yield* ready.value : yield* awaitStart(entry)
        if (!(yield* value.isAlive)) {
          yield* evict(key, value)
          return yield* lease(key, recipe)
        }
        yield* Effect.acquireRelease(
          Effect.zipRight(Ref.update(entry.inUse, (n) => n + 1), Ref.update(entry.leases, (n) => n + 1)),
          () =>
            Effect.gen(function*() {
              yield* Ref.update(entry.inUse, (n) => n - 1)
              yield* Ref.set(entry.lastUsedAt, yield* Clock.currentTimeMillis)
              yield* signal
            })
        )
        return value
      })

    const evict = (key: string, value: A): Effect.Effect<void> =>
      Effect.gen(function*() {
        const entry = (yield* Ref.get(entries)).get(key)
        if (entry === undefined) return
        const started = yield* startedValue(entry)
        if (Option.isNone(started) || started.value.value !== value) return
        yield* retire(entry, started.value)
      })

    const status = Effect.gen(function*() {
      const result: Array<EntryStatus<A>> = []
      for (const entry of (yield* Ref.get(entries)).values()) {
        const started = yield* startedValue(entry)
        result.push({
          key: entry.key,
          value: Option.map(started, (s) => s.value),
          startedAt: entry.startedAt,
          lastUsedAt: yield* Ref.get(entry.lastUsedAt),
          inUse: yield* Ref.get(entry.inUse),
          leases: yield* Ref.get(entry.leases)
        })
      }
      return result
    })

    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        yield* Ref.set(disposed, true)
        const all = [...(yield* Ref.getAndSet(entries, new Map<string, Entry<A>>())).values()]
        yield* signal
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

    return { lease, evict, status }
  })
