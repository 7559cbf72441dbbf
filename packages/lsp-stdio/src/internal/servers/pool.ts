/**
 * The server pool, the one owner of leases: at most one live server per key (provider id + canonical
 * workspace), started lazily on first use. A lease is a scoped resource: it is taken into the caller's
 * scope and given back when that scope closes, however it closes. Concurrent first uses share one start. A
 * failed start is never cached and a dead server is evicted, so the next use starts a fresh one. A server
 * nobody has leased for its idle timeout is shut down, and when the pool is full a new key replaces the
 * least recently used idle server (or waits until one is idle).
 *
 * Why not `RcMap`: it fails a new key when full instead of replacing the least recently used idle value or
 * waiting for one, and it has no way to evict a value that died while leased (see docs/decisions.md).
 */
import { LspError } from "@lsp-seam/lsp"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as WakeUp from "./wakeUp.js"

/** What the pool needs of a pooled value. */
export interface Pooled {
  readonly isAlive: Effect.Effect<boolean>
}

/** How one key's value is started and how long it may sit idle; `label` is kept for introspection. */
export interface Recipe<A> {
  readonly start: Effect.Effect<A, LspError.LspLocalError, Scope.Scope>
  readonly idleTimeoutMs: number
  readonly label?: unknown
}

/** A pooled value as introspection sees it. */
export interface EntryStatus<A> {
  readonly key: string
  /** The `label` of the recipe that started it. */
  readonly label: unknown
  /** `None` while starting. */
  readonly value: Option.Option<A>
  readonly startedAt: number
  readonly lastUsedAt: number
  readonly inUse: number
  readonly leases: number
}

export interface Pool<A extends Pooled> {
  /**
   * Leases the live value for `key`, starting it when there is none. The lease belongs to `scope` (a
   * query's): taking it and registering its release there are one uninterruptible step, and closing the
   * scope gives it back (exactly once).
   */
  readonly lease: (key: string, recipe: Recipe<A>, scope: Scope.Scope) => Effect.Effect<A, LspError.LspLocalError>
  /** Removes `value` if it is still the one pooled under `key`, and tears it down in the background. */
  readonly evict: (key: string, value: A) => Effect.Effect<void>
  /**
   * Like `evict`, but only while nobody holds a lease on `value` or is about to take one: a lease holder
   * finds out for itself (and may still want the entry, to describe the failure) and evicts it then. True
   * when it evicted, decided in one step with the check.
   */
  readonly evictIfIdle: (key: string, value: A) => Effect.Effect<boolean>
  /**
   * The started value pooled under `key` right now, without leasing it: only a hint (it may be replaced
   * before a lease is taken), for work that is cheaper when the value is already there.
   */
  readonly peek: (key: string) => A | undefined
  readonly status: Effect.Effect<ReadonlyArray<EntryStatus<A>>>
}

/** The `restore` of `Effect.uninterruptibleMask`: the caller's own interruptibility. */
type Restore = <X, E, R>(effect: Effect.Effect<X, E, R>) => Effect.Effect<X, E, R>

interface Started<A> {
  readonly value: A
  readonly scope: Scope.CloseableScope
}

// Plain mutable fields: JavaScript runs one fiber step at a time, and every read-modify-write below happens
// inside one synchronous step, so no Ref is needed.
interface Entry<A> {
  readonly key: string
  readonly label: unknown
  readonly started: Deferred.Deferred<Started<A>, LspError.LspLocalError>
  /** The started value once the start succeeded: the common case reads it without polling `started`. */
  ready: Started<A> | undefined
  /**
   * Callers that found this entry and have not yet taken their lease or given up (claimants): counted in
   * the step that finds the entry. When the last one gives up on a start, the start is abandoned; an entry
   * with claimants is never chosen for replacement.
   */
  waiters: number
  readonly abandon: Deferred.Deferred<void>
  /** The fiber running the start; set in the step that creates the entry. */
  launcher: Fiber.RuntimeFiber<void> | undefined
  readonly startedAt: number
  lastUsedAt: number
  inUse: number
  leases: number
}

/**
 * One synchronous look at the pool for a key: the existing entry, a new one when there is room (or an idle
 * one to replace), or a wake-up to wait for when every entry is busy.
 */
type Found<A> =
  | { readonly _tag: "Entry"; readonly entry: Entry<A>; readonly fresh: boolean; readonly replace?: Entry<A> }
  | { readonly _tag: "Full"; readonly wake: Deferred.Deferred<void> }
  | { readonly _tag: "Disposed" }

const disposedError = () => LspError.disposed("The language server host has been shut down.")
const abandonedError = () => LspError.disposed("Every caller gave up waiting for the language server to start.")

/** The pool's state and the steps on it; each method is one concern of the pool's life. */
class PoolState<A extends Pooled> {
  readonly entries = new Map<string, Entry<A>>()
  disposed = false
  // Signalled whenever a lease ends or an entry leaves, to wake callers waiting for room.
  readonly room = WakeUp.make()

  constructor(
    readonly maxEntries: number,
    /** Everything the pool starts lives here: closed after the pool's finaliser, in parallel. */
    readonly owner: Scope.Scope,
    readonly clock: Clock.Clock
  ) {}

  /** Removes the entry if it is still the one under its key; true when it did. */
  remove(entry: Entry<A>): boolean {
    if (this.entries.get(entry.key) !== entry) return false
    this.entries.delete(entry.key)
    this.room.signal()
    return true
  }

  /** Removes the entry and closes its scope on a fiber of the pool, so the caller does not wait. */
  retire(entry: Entry<A>, started: Started<A>): Effect.Effect<void> {
    // Uninterruptible: an entry removed from the map must have its scope closed.
    return Effect.uninterruptible(Effect.suspend(() =>
      this.remove(entry)
        ? Effect.asVoid(Effect.forkIn(Scope.close(started.scope, Exit.void), this.owner))
        : Effect.void
    ))
  }

  /** Shuts the value down once nobody has used it for `idleTimeoutMs`; lives in the value's own scope. */
  idleWatch(entry: Entry<A>, started: Started<A>, idleTimeoutMs: number): Effect.Effect<void> {
    return Effect.gen(this, function*() {
      while (true) {
        const idleFor = (yield* Clock.currentTimeMillis) - entry.lastUsedAt
        if (entry.inUse === 0 && entry.waiters === 0 && idleFor >= idleTimeoutMs) {
          return yield* this.retire(entry, started)
        }
        // In use: look again a whole timeout later (the lease's end restarts the count anyway).
        yield* Effect.sleep(Math.max(1, entry.inUse > 0 ? idleTimeoutMs : idleTimeoutMs - idleFor))
      }
    })
  }

  /**
   * The start, on a fiber of its own, so one caller giving up does not abort it for the others. The fiber
   * is uninterruptible except for the start itself, so that however it is interrupted (the pool closing) it
   * settles its entry; the start opts in explicitly, since forked from an uninterruptible step it would
   * otherwise inherit that, and closing the pool would wait for the start to finish.
   */
  launch(entry: Entry<A>, recipe: Recipe<A>): Effect.Effect<Fiber.RuntimeFiber<void>> {
    return Effect.gen(this, function*() {
      const scope = yield* Scope.fork(this.owner, ExecutionStrategy.sequential)
      const abandoned = Effect.zipRight(Deferred.await(entry.abandon), abandonedError())
      const exit = yield* Effect.exit(
        Effect.interruptible(Effect.raceFirst(Scope.extend(recipe.start, scope), abandoned))
      )
      if (Exit.isFailure(exit)) {
        this.remove(entry)
        yield* Scope.close(scope, exit)
        yield* Deferred.failCause(entry.started, exit.cause)
        return
      }
      const started = { value: exit.value, scope }
      // Kept only if still pooled, decided in the same step that publishes it.
      if (this.entries.get(entry.key) !== entry) {
        // Abandoned, or the pool closed, just as the start succeeded: nobody will use it.
        yield* Scope.close(scope, Exit.void)
        yield* Deferred.fail(entry.started, this.disposed ? disposedError() : abandonedError())
        return
      }
      entry.ready = started
      entry.lastUsedAt = this.clock.unsafeCurrentTimeMillis()
      yield* Effect.forkIn(Effect.interruptible(this.idleWatch(entry, started, recipe.idleTimeoutMs)), scope)
      yield* Deferred.succeed(entry.started, started)
      // A caller waiting for room may now replace it, if its own waiters have gone.
      this.room.signal()
    }).pipe(Effect.uninterruptible, Effect.forkIn(this.owner))
  }

  /** The least recently used started entry that nobody is using, if any. */
  idlest(): Entry<A> | undefined {
    let best: Entry<A> | undefined
    for (const entry of this.entries.values()) {
      if (entry.ready === undefined || entry.inUse > 0 || entry.waiters > 0) continue
      if (best === undefined || entry.lastUsedAt < best.lastUsedAt) best = entry
    }
    return best
  }

  /** `find`'s synchronous step; the caller becomes a claimant of the entry it gets, in this same step. */
  find(key: string, fresh: () => Entry<A>): Found<A> {
    if (this.disposed) return { _tag: "Disposed" }
    const existing = this.entries.get(key)
    if (existing !== undefined) {
      existing.waiters += 1
      return { _tag: "Entry", entry: existing, fresh: false }
    }
    let replace: Entry<A> | undefined
    if (this.entries.size >= this.maxEntries) {
      replace = this.idlest()
      if (replace === undefined) return { _tag: "Full", wake: this.room.next() }
      // Make room now, in this same step, so that no other caller can take the freed slot first.
      this.entries.delete(replace.key)
    }
    const entry = fresh()
    entry.waiters = 1
    this.entries.set(key, entry)
    return replace === undefined
      ? { _tag: "Entry", entry, fresh: true }
      : { _tag: "Entry", entry, fresh: true, replace }
  }

  /**
   * `find`, and for a new entry the close of the one it replaces and the launch of its start, in one
   * uninterruptible step: an entry in the map always has a start running (or done), and a replaced one
   * always has its scope closed.
   */
  claim(key: string, recipe: Recipe<A>, fresh: () => Entry<A>): Effect.Effect<Found<A>> {
    return Effect.uninterruptible(Effect.suspend(() => {
      const found = this.find(key, fresh)
      if (found._tag !== "Entry" || !found.fresh) return Effect.succeed(found)
      const { entry, replace } = found
      const closeReplaced = replace?.ready === undefined
        ? Effect.void
        : Effect.sync(this.room.signal).pipe(
          Effect.zipRight(Effect.forkIn(Scope.close(replace.ready.scope, Exit.void), this.owner))
        )
      return closeReplaced.pipe(
        Effect.zipRight(this.launch(entry, recipe)),
        Effect.map((launcher) => {
          entry.launcher = launcher
          return found
        })
      )
    }))
  }

  /** A new, unstarted entry for `key`. */
  freshEntry(key: string, recipe: Recipe<A>, now: number): Entry<A> {
    return {
      key,
      label: recipe.label,
      started: Deferred.unsafeMake<Started<A>, LspError.LspLocalError>(FiberId.none),
      ready: undefined,
      waiters: 0,
      abandon: Deferred.unsafeMake<void>(FiberId.none),
      launcher: undefined,
      startedAt: now,
      lastUsedAt: now,
      inUse: 0,
      leases: 0
    }
  }

  /**
   * The entry for `key`, the caller registered as its claimant: the existing one, or a new one once there
   * is room for it. Runs in the caller's uninterruptible region; only the wait for room is interruptible.
   */
  entryFor(key: string, recipe: Recipe<A>, restore: Restore): Effect.Effect<Entry<A>, LspError.LspLocalError> {
    return Effect.gen(this, function*() {
      while (true) {
        // The common case, a live entry, allocates nothing.
        const existing = this.entries.get(key)
        if (existing !== undefined && !this.disposed) {
          existing.waiters += 1
          return existing
        }
        const now = yield* Clock.currentTimeMillis
        const found = yield* this.claim(key, recipe, () => this.freshEntry(key, recipe, now))
        if (found._tag === "Disposed") return yield* disposedError()
        if (found._tag === "Entry") return found.entry
        // Every server is busy or starting: wait, within the caller's budget, for one to become idle.
        yield* restore(Deferred.await(found.wake))
      }
    })
  }

  /** Takes the lease on a started entry, synchronously; the release it returns runs at most once. */
  take(entry: Entry<A>): Effect.Effect<void> {
    entry.inUse += 1
    entry.leases += 1
    let released = false
    return Effect.sync(() => {
      if (released) return
      released = true
      entry.inUse -= 1
      entry.lastUsedAt = this.clock.unsafeCurrentTimeMillis()
      this.room.signal()
    })
  }

  /**
   * One lease, in the caller's uninterruptible region (`restore` gives the waits back the caller's
   * interruptibility): claim the entry, wait for its start, then give up the claim and take the lease in
   * one step, so that no one can replace the entry in between.
   */
  leaseWith(
    key: string,
    recipe: Recipe<A>,
    scope: Scope.Scope,
    restore: Restore
  ): Effect.Effect<A, LspError.LspLocalError> {
    return Effect.gen(this, function*() {
      const entry = yield* this.entryFor(key, recipe, restore)
      // A started entry needs no waiting.
      const waited: Exit.Exit<unknown, LspError.LspLocalError> = entry.ready === undefined
        ? yield* Effect.exit(restore(Deferred.await(entry.started)))
        : Exit.void
      entry.waiters -= 1
      if (Exit.isFailure(waited)) {
        // The last claimant giving up on a start abandons it; it leaves the map at once, so that a caller
        // arriving now starts afresh instead of joining a start that is being called off.
        if (entry.waiters === 0 && entry.ready === undefined && this.remove(entry)) {
          yield* Deferred.succeed(entry.abandon, undefined)
        }
        return yield* Effect.failCause(waited.cause)
      }
      if (this.disposed) return yield* disposedError()
      // Replaced or timed out idle while this caller waited: its server is going away.
      if (this.entries.get(key) !== entry || entry.ready === undefined) {
        return yield* this.leaseWith(key, recipe, scope, restore)
      }
      const { value } = entry.ready
      // Held while the value is checked, so that its idle watch cannot retire it in between.
      const release = this.take(entry)
      if (!(yield* value.isAlive)) {
        yield* release
        yield* this.evict(key, value)
        return yield* this.leaseWith(key, recipe, scope, restore)
      }
      // Still in the caller's uninterruptible region: the lease is in its scope before anything can interrupt.
      // On the scope itself: `Effect.addFinalizer` would also diff and restore the fiber's refs around it.
      yield* Scope.addFinalizer(scope, release)
      return value
    })
  }

  evict(key: string, value: A, onlyIfIdle = false): Effect.Effect<boolean> {
    return Effect.suspend(() => {
      const entry = this.entries.get(key)
      if (entry?.ready === undefined || entry.ready.value !== value) return Effect.succeed(false)
      if (onlyIfIdle && (entry.inUse > 0 || entry.waiters > 0)) return Effect.succeed(false)
      return Effect.as(this.retire(entry, entry.ready), true)
    })
  }

  status(): ReadonlyArray<EntryStatus<A>> {
    return Array.from(this.entries.values(), (entry): EntryStatus<A> => ({
      key: entry.key,
      label: entry.label,
      value: entry.ready === undefined ? Option.none() : Option.some(entry.ready.value),
      startedAt: entry.startedAt,
      lastUsedAt: entry.lastUsedAt,
      inUse: entry.inUse,
      leases: entry.leases
    }))
  }

  /** Refuses new leases, tells claimants, calls off starts and closes every pooled value, concurrently. */
  dispose(): Effect.Effect<void> {
    return Effect.gen(this, function*() {
      this.disposed = true
      const all = [...this.entries.values()]
      this.entries.clear()
      this.room.signal()
      for (const entry of all) {
        yield* Deferred.fail(entry.started, disposedError())
        yield* Deferred.succeed(entry.abandon, undefined)
      }
      yield* Effect.forEach(all, (entry) =>
        Effect.gen(function*() {
          // A start that was running closes its own scope (it finds itself no longer pooled).
          if (entry.launcher !== undefined) yield* Fiber.await(entry.launcher)
          if (entry.ready !== undefined) yield* Scope.close(entry.ready.scope, Exit.void)
        }), { concurrency: "unbounded", discard: true })
    })
  }
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
    // Everything the pool starts lives in a scope of its own, closed after the pool's finaliser (which runs
    // first, refusing new leases and settling waiters) and in parallel: servers stop concurrently.
    const owner = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.parallel)
    const state = new PoolState<A>(options.maxEntries, owner, yield* Effect.clock)
    yield* Effect.addFinalizer(() => state.dispose())
    return {
      lease: (key, recipe, scope) =>
        Effect.uninterruptibleMask((restore) => state.leaseWith(key, recipe, scope, restore)),
      evict: (key, value) => Effect.asVoid(state.evict(key, value)),
      evictIfIdle: (key, value) => state.evict(key, value, true),
      peek: (key) => state.entries.get(key)?.ready?.value,
      status: Effect.sync(() => state.status())
    }
  })
