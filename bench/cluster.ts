/**
 * Benchmark 15, the cluster's routing cost and its memory per runner (issue 34). On this machine: R runners
 * (`lsp-seam runner`, the compiled packages/cli/dist/bin.js) over one SQLite storage file, and `lsp-seam serve
 * --cluster` in front of them on a Unix socket; as the reference, in the same run, one host (`lsp-seam serve`
 * on its own socket) with the same configuration. W workspaces (copies of the TypeScript fixture, each with a
 * fake-server file) spread over the runners.
 *
 * The same closed-loop agents (ask, wait for the answer, ask the next) drive each contender, one
 * `LspRemoteClient` connection per agent, round by round in alternating order: the fake server (which answers
 * at once, so what is measured is the stack and the routing) and typescript-language-server. A third
 * contender is the cluster's own client (`LspClusterClient`) in the bench's process, which reaches the runners
 * without the front host. Memory: each process's own resident memory and its process tree's (with its
 * language servers), idle (joined, nothing asked) and with every workspace active.
 */
import type { LspError, LspQuery } from "@lsp-seam/lsp"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as LspClusterClient from "../packages/lsp-cluster/src/LspClusterClient.js"
import * as LspClusterStorage from "../packages/lsp-cluster/src/LspClusterStorage.js"
import * as LspRemoteClient from "../packages/lsp-remote/src/LspRemoteClient.js"
import { procTrees } from "../packages/lsp-stdio/src/internal/process/processMemory.js"
import { type ClusterPart, clusterSection, type Contender, type ProcessMemory, type Run } from "./clusterReport.js"
import { configOf } from "./load.js"
import { build } from "./remote.js"
import * as Processes from "./support/processes.js"
import type { Query } from "./support/rawClient.js"
import type { Options } from "./support/report.js"
import { fakeQueries, typescriptQueries, typescriptWorkspace } from "./support/servers.js"
import { median } from "./support/stats.js"

export { clusterSection }

const root = fileURLToPath(new URL("..", import.meta.url))
const bin = Path.join(root, "packages", "cli", "dist", "bin.js")

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A query's budget: an answer later than this counts as a failure, and the round goes on. */
const budgetMs = 30_000

/** A process of the compiled command, leading its own process group. */
export interface Started {
  readonly label: string
  readonly pid: number
  readonly output: () => string
  /** SIGTERM, then SIGKILL after 15 s, then SIGKILL to whatever of its tree is still there; the pids left. */
  readonly stop: () => Promise<ReadonlyArray<number>>
}

const isAlive = (pid: number): boolean => {
  try {
    const state = Fs.readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]?.[0]
    return state !== undefined && state !== "Z"
  } catch {
    return false
  }
}

/** Every live descendant of `pid` (one pass over /proc). */
const treeBelow = (pid: number): Array<number> => {
  const parents = new Map<number, number>()
  for (const entry of Fs.readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(entry)) continue
    try {
      const fields = Fs.readFileSync(`/proc/${entry}/stat`, "latin1").split(") ")[1]!.split(" ")
      if (fields[0] !== "Z") parents.set(Number(entry), Number(fields[1]))
    } catch {
      // Gone meanwhile.
    }
  }
  const found: Array<number> = []
  const pending = [pid]
  while (pending.length > 0) {
    const parent = pending.pop()!
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child)
        pending.push(child)
      }
    }
  }
  return found
}

/** Clock ticks per second of /proc's CPU times. */
const ticksPerSecond = Number(ChildProcess.execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100

/** The CPU time (user and system, ms) the processes of the trees of `roots` have used so far. */
const treeCpuMs = (roots: ReadonlyArray<number>): number => {
  let ticks = 0
  for (const pid of new Set(roots.flatMap((pid) => [pid, ...treeBelow(pid)]))) {
    try {
      // After the command's name: state, ppid, …; utime and stime are the 12th and 13th.
      const fields = Fs.readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]!.split(" ")
      ticks += Number(fields[11]) + Number(fields[12])
    } catch {
      // Gone meanwhile.
    }
  }
  return (ticks * 1000) / ticksPerSecond
}

/** The bench process's own CPU time so far, ms. */
const ownCpuMs = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

const kill = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(pid, signal)
  } catch {
    // Gone already.
  }
}

export const startCli = async (
  label: string,
  args: ReadonlyArray<string>,
  cwd: string,
  ready: RegExp
): Promise<Started> => {
  const child = ChildProcess.spawn(process.execPath, [bin, ...args], {
    cwd,
    detached: true,
    stdio: ["ignore", "ignore", "pipe"]
  })
  const pid = child.pid!
  Processes.track([pid])
  let out = ""
  child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")))
  const ended = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const exited = () => child.exitCode !== null || child.signalCode !== null
  const seen = new Set<number>()
  const stop = async () => {
    for (const member of treeBelow(pid)) seen.add(member)
    if (!exited()) {
      kill(pid, "SIGTERM")
      await Promise.race([ended, sleep(15_000)])
      if (!exited()) kill(-pid, "SIGKILL")
      await Promise.race([ended, sleep(5_000)])
    }
    // What it started and did not end (its servers lead groups of their own): ended here, group and all.
    const deadline = Date.now() + 5_000
    while ([...seen].some(isAlive) && Date.now() < deadline) await sleep(50)
    const left = [...seen].filter(isAlive)
    for (const member of left) {
      kill(-member, "SIGKILL")
      kill(member, "SIGKILL")
    }
    return left
  }
  const deadline = Date.now() + 90_000
  while (!ready.test(out)) {
    if (exited() || Date.now() > deadline) {
      await stop()
      throw new Error(`${label} did not start: ${out}`)
    }
    await sleep(50)
  }
  return { label, pid, output: () => out, stop }
}

/** A TCP port nothing listens on right now. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = Net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** A process's own resident memory, bytes (/proc/PID/status). */
const residentBytes = (pid: number): number => {
  const status = Fs.readFileSync(`/proc/${pid}/status`, "latin1")
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024
}

/** The median of five readings 100 ms apart of each process's own memory and its tree's. */
const settledMemory = async (pids: ReadonlyArray<number>) => {
  const own = pids.map(() => [] as Array<number>)
  const tree = pids.map(() => [] as Array<number>)
  for (let i = 0; i < 5; i++) {
    const trees = Option.getOrElse(procTrees(pids), () => new Map<number, number>())
    pids.forEach((pid, j) => {
      own[j]!.push(residentBytes(pid))
      tree[j]!.push(trees.get(pid) ?? 0)
    })
    await sleep(100)
  }
  return pids.map((pid, j) => ({ pid, own: median(own[j]!), tree: median(tree[j]!), processes: treeBelow(pid).length }))
}

type Ask = (request: LspQuery.LspQueryRequest) => Effect.Effect<unknown, LspError.LspError>

interface QuerySet {
  readonly label: string
  readonly requests: ReadonlyArray<LspQuery.LspQueryRequest>
  readonly roundMs: number
  readonly warmUpMs: number
}

/**
 * Every (workspace, query) pair, ordered so that consecutive requests go to different workspaces: an agent
 * going down the list asks every workspace in turn.
 */
const requestsOf = (workspaces: ReadonlyArray<string>, queries: ReadonlyArray<Query>) =>
  queries.flatMap((query) =>
    workspaces.map((workspaceRoot): LspQuery.LspQueryRequest => ({
      operation: query.operation,
      filePath: query.file,
      position: query.position,
      workspaceRoot
    }))
  )

/**
 * One round: `agents` closed loops for `durationMs`, agent `a` starting at request `a`; with the CPU time the
 * trees of `hosts` and the bench itself used meanwhile.
 */
const round = (
  asks: ReadonlyArray<Ask>,
  agents: number,
  requests: ReadonlyArray<LspQuery.LspQueryRequest>,
  durationMs: number,
  hosts: ReadonlyArray<number>
) =>
  Effect.gen(function*() {
    const samples: Array<number> = []
    const failures: Array<string> = []
    const hostCpuBefore = treeCpuMs(hosts)
    const clientCpuBefore = ownCpuMs()
    const start = performance.now()
    const until = start + durationMs
    yield* Effect.forEach(
      asks.slice(0, agents),
      (ask, agent) =>
        Effect.gen(function*() {
          for (let i = agent; performance.now() < until; i++) {
            const request = requests[i % requests.length]!
            const sent = performance.now()
            const exit = yield* Effect.exit(ask(request).pipe(Effect.timeout(budgetMs)))
            samples.push(performance.now() - sent)
            if (Exit.isFailure(exit)) failures.push(`${request.operation}: ${String(exit.cause).slice(0, 200)}`)
          }
        }),
      { concurrency: "unbounded", discard: true }
    )
    const elapsedMs = performance.now() - start
    const clientCpuMs = ownCpuMs() - clientCpuBefore
    const hostCpuMs = treeCpuMs(hosts) - hostCpuBefore
    return { samples, failures, elapsedMs, hostCpuMs, clientCpuMs } satisfies Run
  })

/** Each request once, in order, then closed loops of every agent for `warmUpMs` (not recorded). */
const warmUp = (asks: ReadonlyArray<Ask>, set: QuerySet) =>
  Effect.gen(function*() {
    for (const request of set.requests) yield* Effect.either(asks[0]!(request).pipe(Effect.timeout(120_000)))
    yield* round(asks, asks.length, set.requests, set.warmUpMs, [])
  })

interface Cluster {
  readonly runners: ReadonlyArray<Started & { readonly address: string }>
  readonly front: Started
}

export const measureCluster = async (options: Options, log: (message: string) => void): Promise<ClusterPart> => {
  const runnerCount = options.quick ? 2 : 3
  const workspaceCount = options.quick ? 3 : 6
  const levels = options.quick ? [1, 4] : [1, 8]
  const rounds = options.quick ? 1 : 3
  log("cluster: building the command")
  build()
  const directory = Fs.realpathSync(Fs.mkdtempSync(Path.join(Os.tmpdir(), "lsp-seam-bench-cluster-")))
  const workspaces = Array.from(
    { length: workspaceCount },
    () => typescriptWorkspace({ "main.fake": "let x = 1\nx\n" })
  )
  // Every workspace lives under the bench's temporary root: the one directory every host serves.
  const served = Path.dirname(workspaces[0]!)
  const configFile = Path.join(directory, "lsp-seam.json")
  // The many-agents benchmark's configuration, without Python.
  Fs.writeFileSync(configFile, JSON.stringify(configOf(false)))
  const storageText = `sqlite:${Path.join(directory, "cluster.db")}`
  const started: Array<Started> = []
  const leftAfterStop: Array<number> = []
  try {
    // The runners first (one at a time: each creates or joins the storage), then the front host and the
    // single host; nothing is asked until all are up.
    const runners: Array<Started & { readonly address: string }> = []
    for (let i = 0; i < runnerCount; i++) {
      const address = `127.0.0.1:${await freePort()}`
      const runner = await startCli(
        `runner ${address}`,
        ["runner", "--storage", storageText, "--listen", address, "--root", served, "--config", configFile],
        directory,
        /joined the cluster/
      )
      started.push(runner)
      runners.push({ ...runner, address })
    }
    const front = await startCli(
      "serve --cluster",
      ["serve", "--socket", Path.join(directory, "front.sock"), "--cluster", storageText, "--root", served],
      directory,
      /listening on /
    )
    started.push(front)
    const single = await startCli(
      "serve",
      [
        "serve",
        "--socket",
        Path.join(directory, "single.sock"),
        "--no-prewarm",
        "--config",
        configFile,
        "--root",
        served
      ],
      directory,
      /listening on /
    )
    started.push(single)
    const cluster: Cluster = { runners, front }
    await sleep(1_000)
    log("cluster: memory with nothing asked")
    const idle = await settledMemory([...runners.map((r) => r.pid), front.pid, single.pid])

    const part = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const storage = yield* LspClusterStorage.decode(storageText)
      const direct = Context.get(
        yield* Layer.build(LspClusterClient.layer({ storage })),
        LspClusterClient.LspClusterClient
      )
      const placement = yield* settlePlacement(direct, workspaces, runnerCount)
      const maxAgents = Math.max(...levels)
      const connect = (socket: string) =>
        Effect.forEach(
          Array.from({ length: maxAgents }),
          () =>
            Effect.map(
              LspRemoteClient.make({ transport: LspRemoteClient.socket(socket) }),
              (client): Ask => client.query
            )
        )
      // Each with the processes that answer it: their CPU time is the hosts' side of its cost.
      const runnerPids = runners.map((r) => r.pid)
      const contenders: ReadonlyArray<
        { readonly name: Contender; readonly asks: ReadonlyArray<Ask>; readonly hosts: ReadonlyArray<number> }
      > = [
        { name: "single", asks: yield* connect(Path.join(directory, "single.sock")), hosts: [single.pid] },
        {
          name: "cluster",
          asks: yield* connect(Path.join(directory, "front.sock")),
          hosts: [front.pid, ...runnerPids]
        },
        { name: "direct", asks: Array.from({ length: maxAgents }, (): Ask => direct.query), hosts: runnerPids }
      ]
      const sets: ReadonlyArray<QuerySet> = [
        {
          label: "fake server",
          requests: requestsOf(workspaces, fakeQueries),
          roundMs: options.quick ? 1_000 : 5_000,
          warmUpMs: options.quick ? 500 : 3_000
        },
        {
          label: "typescript-language-server",
          requests: requestsOf(workspaces, typescriptQueries),
          roundMs: options.quick ? 1_000 : 5_000,
          warmUpMs: options.quick ? 500 : 3_000
        }
      ]
      const measured: Array<ClusterPart["sets"][number]> = []
      for (const set of sets) {
        for (const contender of contenders) {
          yield* Effect.sync(() => log(`cluster: ${set.label}, warming ${contender.name}`))
          yield* warmUp(contender.asks, set)
        }
        const levelsMeasured: Array<ClusterPart["sets"][number]["levels"][number]> = []
        for (const agents of levels) {
          yield* Effect.sync(() => log(`cluster: ${set.label}, ${agents} agents, ${rounds} rounds`))
          const runs = new Map<Contender, Array<Run>>(contenders.map((c) => [c.name, []]))
          for (let r = 0; r < rounds; r++) {
            // Each round in another order, so that a contender is not always the one after another's load.
            const order = contenders.map((_, i) => contenders[(i + r) % contenders.length]!)
            for (const contender of order) {
              runs.get(contender.name)!.push(
                yield* round(contender.asks, agents, set.requests, set.roundMs, contender.hosts)
              )
            }
          }
          levelsMeasured.push({ agents, runs: Object.fromEntries(runs) as Record<Contender, Array<Run>> })
        }
        measured.push({ label: set.label, requests: set.requests.length, levels: levelsMeasured })
      }
      return { placement, sets: measured }
    })))

    // What the processes use with every server started and nothing asked: the cluster's own upkeep
    // (heartbeats, storage reads) against one host's.
    log("cluster: CPU time with nothing asked")
    const idleWindowMs = options.quick ? 1_000 : 5_000
    const clusterRoots = [front.pid, ...runners.map((r) => r.pid)]
    const idleBefore = { cluster: treeCpuMs(clusterRoots), single: treeCpuMs([single.pid]) }
    await sleep(idleWindowMs)
    const idleCpu = {
      windowMs: idleWindowMs,
      clusterMsPerSecond: ((treeCpuMs(clusterRoots) - idleBefore.cluster) * 1000) / idleWindowMs,
      singleMsPerSecond: ((treeCpuMs([single.pid]) - idleBefore.single) * 1000) / idleWindowMs
    }
    log("cluster: memory with every workspace active")
    const active = await settledMemory([...runners.map((r) => r.pid), front.pid, single.pid])
    // Every server seen is tracked, so that the suite's final check covers those that outlive their host.
    for (const host of started) Processes.track(treeBelow(host.pid))
    const memory = (i: number, label: string, workspacesPlaced: number | null): ProcessMemory => ({
      label,
      workspaces: workspacesPlaced,
      idleOwn: idle[i]!.own,
      activeOwn: active[i]!.own,
      activeTree: active[i]!.tree,
      processes: active[i]!.processes
    })
    const runnerMemory = cluster.runners.map((runner, i) =>
      memory(i, `runner ${runner.address}`, part.placement.filter((p) => p.runner === runner.address).length)
    )
    log("cluster: stopping every process")
    for (const host of [...started].reverse()) leftAfterStop.push(...await host.stop())
    started.length = 0
    return {
      runners: runnerCount,
      workspaces: workspaceCount,
      rounds,
      levels,
      placement: part.placement,
      sets: part.sets,
      idleCpu,
      memory: {
        runners: runnerMemory,
        front: memory(runnerCount, "serve --cluster (the front host)", null),
        single: memory(runnerCount + 1, "serve (the single host)", workspaceCount)
      },
      leftAfterStop
    }
  } finally {
    for (const host of [...started].reverse()) await host.stop()
    Fs.rmSync(directory, { recursive: true, force: true })
  }
}

/**
 * Greets every workspace's entity until two rounds of greetings agree on where each lives (shards move while
 * the runners count each other in); the placement, workspace by workspace.
 */
const settlePlacement = (
  client: LspClusterClient.LspClusterClientShape,
  workspaces: ReadonlyArray<string>,
  runnerCount: number
) =>
  Effect.gen(function*() {
    const look = Effect.forEach(workspaces, (w) => Effect.map(client.hello(w), (hello) => hello.fingerprint))
    let placed = yield* look
    const deadline = Date.now() + 60_000
    for (;;) {
      yield* Effect.sleep("500 millis")
      const again = yield* look
      const stable = again.join() === placed.join()
      // With fewer distinct runners than both the runners and the workspaces, the shards may still be moving.
      const spread = new Set(again).size >= Math.min(2, runnerCount, workspaces.length)
      placed = again
      if ((stable && spread) || Date.now() > deadline) break
    }
    return workspaces.map((workspace, i) => ({ workspace: Path.basename(workspace), runner: placed[i]! }))
  })
