/**
 * The servers' memory budget (`maxMemory`): the resident memory of every running server's process tree is
 * measured on the host's clock (every `sampleEveryMs`, and before each new server starts), and while the
 * total is over the budget the least recently used idle servers are stopped, one at a time, until it fits.
 * A server that is answering, starting, claimed by a caller or waited for by a queued query is never
 * stopped; a query that needs a stopped server starts it again. Where memory cannot be measured (no /proc)
 * nothing is enforced, and the status says so.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type { MemoryEviction, MemoryStatus } from "../../StdioStatus.js"
import * as MemorySize from "../config/memorySize.js"
import type * as ProcessMemory from "../process/processMemory.js"
import type * as Pool from "./pool.js"
import type { ServerInstance } from "./serverInstance.js"
import { isServerKey } from "./serverKey.js"

export interface MemoryBudget {
  /** Measures now and stops idle servers, least recently used first, until the total fits the budget. */
  readonly enforce: Effect.Effect<void>
  /**
   * The resident memory of the trees of `pids`, for the status view: the last measurement when it is under
   * `STATUS_MAX_AGE_MS` old and covers them all, else a new one (a status polled often costs one look at
   * /proc a second at most).
   */
  readonly resident: (pids: ReadonlyArray<number>) => Effect.Effect<ProcessMemory.TreeBytes>
  /** The budget, the total now, the host's own memory and the evictions so far. */
  readonly status: Effect.Effect<MemoryStatus>
}

/** How many evictions the status keeps (the count covers them all). */
const keptEvictions = 20

/** How often the servers are measured when nothing else asks: cheap (see processMemory), and soon enough. */
export const DEFAULT_SAMPLE_EVERY_MS = 5_000

/** How old a measurement the status view may show. */
export const STATUS_MAX_AGE_MS = 1_000

/** A started server as a budget decision sees it. */
interface Running {
  readonly entry: Pool.EntryStatus<ServerInstance>
  readonly instance: ServerInstance
}

const running = (entries: ReadonlyArray<Pool.EntryStatus<ServerInstance>>): ReadonlyArray<Running> =>
  entries.flatMap((entry) => Option.isSome(entry.value) ? [{ entry, instance: entry.value.value }] : [])

const totalOf = (bytes: ReadonlyMap<number, number>): number => {
  let total = 0
  for (const value of bytes.values()) total += value
  return total
}

/**
 * The budget over `pool`'s servers, sampled for the rest of the current scope. `waiting` counts the queries
 * queued for a server's permit: such a server is about to answer, so it is not idle.
 */
// Long on purpose (~100 lines): the budget, the last measurement and the record of stops are one piece of state
// that the sampler, a start's decision and the status view share; each is a short function inside.
export const make = (options: {
  readonly pool: Pool.Pool<ServerInstance>
  readonly memory: ProcessMemory.ProcessMemoryShape
  readonly maxMemory: string | number
  readonly waiting: (keyId: string) => Effect.Effect<number>
}): Effect.Effect<MemoryBudget, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { memory, pool } = options
    const size = MemorySize.parse(options.maxMemory)
    const machine = yield* memory.machineBytes
    // Checked when the configuration decoded; a share needs the machine's size.
    const budgetBytes = size._tag === "Left"
      ? Option.none<number>()
      : size.right._tag === "Bytes"
      ? Option.some(size.right.bytes)
      : Option.map(machine, (bytes) => MemorySize.toBytes(size.right, bytes))
    // Whether this world can measure servers at all: asked once, of an empty set.
    const measurable = Option.isSome(yield* memory.trees([]))
    const enforced = measurable && Option.isSome(budgetBytes)
    const evictions: Array<MemoryEviction> = []
    let evictionCount = 0
    // One decision at a time: the sampler and a starting server must not both stop servers for one excess.
    const decide = yield* Effect.makeSemaphore(1)
    let latest: { readonly at: number; readonly bytes: ReadonlyMap<number, number> } | undefined

    /** A new measurement of `pids`, kept for the status view. */
    const measure = (pids: ReadonlyArray<number>) =>
      Effect.gen(function*() {
        const measured = yield* memory.trees(pids)
        if (Option.isSome(measured)) latest = { at: yield* Clock.currentTimeMillis, bytes: measured.value }
        return measured
      })

    const resident = (pids: ReadonlyArray<number>) =>
      Effect.gen(function*() {
        if (!measurable) return Option.none()
        const now = yield* Clock.currentTimeMillis
        const last = latest
        return last !== undefined && now - last.at < STATUS_MAX_AGE_MS && pids.every((pid) => last.bytes.has(pid))
          ? Option.some(new Map(pids.map((pid) => [pid, last.bytes.get(pid)!] as const)))
          : yield* measure(pids)
      })

    const evictOne = (server: Running, bytes: number, total: number, budget: number) =>
      Effect.gen(function*() {
        const { entry, instance } = server
        if ((yield* options.waiting(entry.key)) > 0) return false
        if (!(yield* pool.evictIfIdle(entry.key, instance))) return false
        const key = isServerKey(entry.label) ? entry.label : undefined
        const eviction: MemoryEviction = {
          providerId: key?.providerId ?? "",
          workspace: key?.workspace.path ?? "",
          root: key?.root.path ?? "",
          pid: instance.pid,
          rssBytes: bytes,
          totalBytes: total,
          budgetBytes: budget,
          at: yield* Clock.currentTimeMillis
        }
        evictionCount += 1
        evictions.push(eviction)
        if (evictions.length > keptEvictions) evictions.shift()
        yield* Effect.logInfo("Stopped an idle language server: the servers are over their memory budget.").pipe(
          Effect.annotateLogs({ ...eviction })
        )
        return true
      })

    const enforceWith = (budget: number) =>
      Effect.gen(function*() {
        const servers = running(yield* pool.status)
        if (servers.length === 0) return
        const measured = yield* measure(servers.map((server) => server.instance.pid))
        if (Option.isNone(measured)) return
        let total = totalOf(measured.value)
        if (total <= budget) return
        const idleFirst = servers.filter((server) => server.entry.inUse === 0)
          .sort((a, b) => a.entry.lastUsedAt - b.entry.lastUsedAt)
        for (const server of idleFirst) {
          if (total <= budget) return
          const bytes = measured.value.get(server.instance.pid) ?? 0
          if (yield* evictOne(server, bytes, total, budget)) total -= bytes
        }
      })

    const enforce = enforced && Option.isSome(budgetBytes)
      ? decide.withPermits(1)(enforceWith(budgetBytes.value))
      : Effect.void

    if (enforced) {
      yield* Effect.forkScoped(
        Effect.repeat(enforce, Schedule.spaced(DEFAULT_SAMPLE_EVERY_MS)).pipe(Effect.delay(DEFAULT_SAMPLE_EVERY_MS))
      )
    }

    const status = Effect.gen(function*() {
      const servers = running(yield* pool.status)
      const measured = yield* resident(servers.map((server) => server.instance.pid))
      return {
        maxMemory: options.maxMemory,
        budgetBytes: Option.getOrNull(budgetBytes),
        enforced,
        totalBytes: Option.getOrNull(Option.map(measured, totalOf)),
        hostBytes: process.memoryUsage.rss(),
        evictions: evictionCount,
        recentEvictions: [...evictions]
      } satisfies MemoryStatus
    })

    return { enforce, resident, status }
  })
