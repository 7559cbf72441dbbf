/**
 * The host's servers: which running server answers for a (provider, workspace), how one is started (within
 * the crash-loop budget and the memory budget, counted, evicted at once when it dies idle), leased, evicted,
 * and described in the status view and in the errors it causes.
 */
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type { LspError } from "@lsp-seam/lsp"
import * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { MemoryStatus, ServerStatus } from "../../StdioStatus.js"
import type { Files } from "../files/fileAccess.js"
import type { ProcessWorld } from "../process/processWorld.js"
import * as CrashLoop from "./crashLoop.js"
import { isServerFailure } from "./failures.js"
import * as MemoryBudget from "./memoryBudget.js"
import * as Pool from "./pool.js"
import * as ServerInstance from "./serverInstance.js"
import { isServerKey, type ServerKey } from "./serverKey.js"
import * as StatusQuote from "./statusQuote.js"

export interface Servers {
  /**
   * Leases `key`'s server into `scope`, starting it when there is none (see `Pool.lease`). A failure of the
   * server or its start carries its status.
   */
  readonly lease: (
    spec: ServerInstance.ServerSpec,
    key: ServerKey,
    scope: Scope.Scope
  ) => Effect.Effect<ServerInstance.ServerInstance, LspError.LspLocalError>
  /** The running server of `key`, without leasing it: a hint (see `Pool.peek`). */
  readonly peek: (key: ServerKey) => ServerInstance.ServerInstance | undefined
  /** Stops `instance` if it still serves `key` (in the background). */
  readonly evict: (key: ServerKey, instance: ServerInstance.ServerInstance) => Effect.Effect<void>
  /** `error`, caused by `key`'s server, with that server's status quoted; read before it is evicted. */
  readonly quoteStatus: (key: ServerKey, error: LspError.LspLocalError) => Effect.Effect<LspError.LspLocalError>
  /** Every pooled server, as the status view shows it. */
  readonly status: Effect.Effect<ReadonlyArray<ServerStatus>>
  /** The servers' memory against their budget. */
  readonly memory: Effect.Effect<MemoryStatus>
}

/** What a server's start runs in: the host's world, and nothing of the Layer's own scope. */
export type StartContext = Context.Context<
  FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor | Files
>

export const make = (
  world: ProcessWorld,
  platform: StartContext,
  options: {
    readonly maxServers: number
    /** The servers' memory budget, as configured (`maxMemory`). */
    readonly maxMemory: string | number
    /** How many queries wait for a server (its permit), for the status view. */
    readonly waiting: (keyId: string) => Effect.Effect<number>
  }
): Effect.Effect<Servers, never, Scope.Scope> =>
  Effect.gen(function*() {
    const pool = yield* Pool.make<ServerInstance.ServerInstance>({ maxEntries: options.maxServers })
    const crashes = yield* CrashLoop.make
    const budget = yield* MemoryBudget.make({
      pool,
      memory: world.memory,
      maxMemory: options.maxMemory,
      waiting: options.waiting
    })
    // Plain state: read and bumped in single synchronous steps.
    const starts = new Map<string, number>()
    const startsOf = (key: ServerKey) => starts.get(key.id) ?? 0

    const start = (spec: ServerInstance.ServerSpec, key: ServerKey) =>
      Effect.gen(function*() {
        yield* crashes.check(key.id, spec.providerId, spec.config.crashLoop)
        // Room first: a start is when the servers' total grows, so idle servers over the budget go before it.
        yield* budget.enforce
        starts.set(key.id, startsOf(key) + 1)
        const instance = yield* ServerInstance.start(spec, key.root, world, {
          onCrash: (error) => crashes.record(key.id, error)
        })
        // A server that exits on its own while idle is evicted at once rather than at the next query for its
        // workspace or its idle timeout: its teardown ends what is left of its process group, and the status
        // view stops showing a dead server as idle. A query holding it evicts it itself, after quoting its
        // status in the error. (Its scope's closing interrupts this watch first.)
        yield* Effect.forkScoped(
          Effect.zipRight(instance.exited, Effect.suspend(() => pool.evictIfIdle(key.id, instance)))
        )
        return instance
      })

    const describeEntry = (
      entry: Pool.EntryStatus<ServerInstance.ServerInstance>,
      now: number,
      resident: ReadonlyMap<number, number> | undefined
    ) =>
      Effect.gen(function*() {
        const key = isServerKey(entry.label) ? entry.label : undefined
        const instance = Option.getOrUndefined(entry.value)
        const lastCrash = yield* crashes.last(entry.key)
        return {
          providerId: key?.providerId ?? "",
          workspace: key?.workspace.path ?? "",
          root: key?.root.path ?? "",
          pid: instance?.pid ?? null,
          state: instance === undefined ? "starting" : entry.inUse > 0 ? "busy" : "idle",
          uptimeMs: now - entry.startedAt,
          queriesServed: entry.leases,
          queued: yield* options.waiting(entry.key),
          restarts: Math.max(0, (starts.get(entry.key) ?? 0) - 1),
          lastError: lastCrash?.error.message ?? null,
          rssBytes: instance === undefined ? null : resident?.get(instance.pid) ?? null
        } satisfies ServerStatus
      })

    const quoteStatus = (key: ServerKey, error: LspError.LspLocalError) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const entry = (yield* pool.status).find((candidate) => candidate.key === key.id)
        const status = entry === undefined ? undefined : yield* describeEntry(entry, now, yield* residentOf([entry]))
        return StatusQuote.quote(error, { providerId: key.providerId, status, starts: startsOf(key) })
      })

    const lease = (spec: ServerInstance.ServerSpec, key: ServerKey, scope: Scope.Scope) =>
      pool.lease(key.id, {
        start: Effect.provide(start(spec, key), platform),
        idleTimeoutMs: spec.config.idleTimeoutMs,
        label: key
      }, scope).pipe(
        Effect.catchIf(isServerFailure, (error) => Effect.flip(quoteStatus(key, error)))
      )

    // Every tree from one look at the process table.
    const residentOf = (entries: ReadonlyArray<Pool.EntryStatus<ServerInstance.ServerInstance>>) =>
      Effect.map(
        budget.resident(entries.flatMap((entry) => Option.isSome(entry.value) ? [entry.value.value.pid] : [])),
        Option.getOrUndefined
      )

    const status = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const entries = yield* pool.status
      const resident = yield* residentOf(entries)
      return yield* Effect.forEach(entries, (entry) => describeEntry(entry, now, resident))
    })

    return {
      lease,
      peek: (key) => pool.peek(key.id),
      evict: (key, instance) => pool.evict(key.id, instance),
      quoteStatus,
      status,
      memory: budget.status
    }
  })
