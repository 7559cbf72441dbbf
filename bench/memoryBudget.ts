/**
 * Benchmark 12, the memory budget (`maxMemory`). Two parts:
 *
 * - The host's own memory: the daemon users run (`lsp-seam serve`, the compiled packages/cli/dist/bin.js),
 *   its resident memory with no server and with 4 fake servers (4 workspaces, asked through the remote
 *   client), from /proc. Reference in the same run: a bare `node` process that loads nothing.
 * - Eviction: a host (in this process, from the sources) running the memory-hog fake server, whose every
 *   server holds a known amount of memory, under a budget that fits two servers of three. Measured: one
 *   server's tree (a calibration run), the servers' total sampled every 100 ms from /proc while three
 *   workspaces are asked in turn, which server the budget stops and how soon, and a query of the stopped
 *   workspace afterwards.
 */
import { NodeContext } from "@effect/platform-node"
import { LspService } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as LspRemoteClient from "../packages/lsp-remote/src/LspRemoteClient.js"
import { procTrees } from "../packages/lsp-stdio/src/internal/process/processMemory.js"
import * as LspStdio from "../packages/lsp-stdio/src/LspStdio.js"
import type * as StdioConfig from "../packages/lsp-stdio/src/StdioConfig.js"
import * as StdioStatus from "../packages/lsp-stdio/src/StdioStatus.js"
import * as Processes from "./support/processes.js"
import type { Options, Section, Target } from "./support/report.js"
import { fakeServer, fakeWorkspace, hostConfig } from "./support/servers.js"
import { median, round } from "./support/stats.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const bin = Path.join(root, "packages", "cli", "dist", "bin.js")
const hog = Path.join(root, "packages", "lsp-stdio", "test", "fixtures", "memory-hog.mjs")
const MiB = 2 ** 20

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The resident memory of one process alone, from /proc. */
const ownRss = (pid: number): number => {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(Fs.readFileSync(`/proc/${pid}/status`, "latin1"))
  return match === null ? 0 : Number(match[1]) * 1024
}

/** The median of five readings of `pid`'s own memory, 100 ms apart. */
const settledRss = async (pid: number): Promise<number> => {
  const readings: Array<number> = []
  for (let i = 0; i < 5; i++) {
    readings.push(ownRss(pid))
    await sleep(100)
  }
  return median(readings)
}

const waitUntil = async (what: string, condition: () => boolean | Promise<boolean>, limitMs: number) => {
  const deadline = Date.now() + limitMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`memoryBudget: ${what} within ${limitMs} ms`)
    await sleep(50)
  }
}

export interface HostRun {
  /** A bare `node` process, MiB. */
  readonly node: number
  /** The daemon with no server, MiB. */
  readonly idle: number
  /** The daemon with 4 servers, MiB (its own process only). */
  readonly withFour: number
  /** The 4 servers' trees, MiB. */
  readonly servers: number
}

/** One daemon: started, measured idle, given 4 workspaces, measured again, stopped. */
const measureHostOnce = async (): Promise<HostRun> => {
  const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "lsp-seam-bench-budget-"))
  const socket = Path.join(directory, "host.sock")
  const configFile = Path.join(directory, "lsp-seam.json")
  Fs.writeFileSync(configFile, JSON.stringify(hostConfig(fakeServer)))
  // Lives until killed below, however long the daemon takes to start.
  const bare = ChildProcess.spawn(process.execPath, ["-e", "setInterval(() => {}, 60_000)"], { stdio: "ignore" })
  const daemon = ChildProcess.spawn(
    process.execPath,
    [bin, "serve", "--socket", socket, "--no-prewarm", "--config", configFile],
    { cwd: directory, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, LSP_SEAM_IDLE_EXIT: "5m" } }
  )
  let stderr = ""
  daemon.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  const runtime = ManagedRuntime.make(Layer.empty)
  try {
    await waitUntil("the daemon's socket", () => Fs.existsSync(socket) || daemon.exitCode !== null, 60_000)
    if (daemon.exitCode !== null) throw new Error(`lsp-seam serve exited ${daemon.exitCode}: ${stderr}`)
    const node = await settledRss(bare.pid!)
    await sleep(1_000)
    const idle = await settledRss(daemon.pid!)
    const workspaces = Array.from({ length: 4 }, () => fakeWorkspace())
    const pids = await runtime.runPromise(Effect.scoped(Effect.gen(function*() {
      const client = yield* LspRemoteClient.make({ transport: LspRemoteClient.socket(socket), expect: {} })
      for (const workspace of workspaces) {
        yield* client.query({
          operation: "hover",
          filePath: "main.fake",
          position: { line: 0, character: 4 },
          workspaceRoot: workspace
        })
      }
      return (yield* client.status).flatMap((server) => server.pid === null ? [] : [server.pid])
    })))
    Processes.track(pids)
    if (pids.length !== 4) throw new Error(`memoryBudget: expected 4 servers, the daemon runs ${pids.length}`)
    await sleep(1_000)
    const withFour = await settledRss(daemon.pid!)
    const trees = procTrees(pids)
    const servers = trees._tag === "Some" ? [...trees.value.values()].reduce((a, b) => a + b, 0) : 0
    return { node: node / MiB, idle: idle / MiB, withFour: withFour / MiB, servers: servers / MiB }
  } finally {
    await runtime.dispose()
    bare.kill("SIGKILL")
    daemon.kill("SIGTERM")
    await waitUntil("the daemon to stop", () => daemon.exitCode !== null || daemon.signalCode !== null, 15_000)
      .catch(() => daemon.kill("SIGKILL"))
    Fs.rmSync(directory, { recursive: true, force: true })
  }
}

const hogConfig = (mb: number, maxMemory: string | number): StdioConfig.StdioConfig.Encoded => ({
  maxMemory,
  servers: {
    hog: {
      command: process.execPath,
      args: [hog],
      env: { FAKE_LSP: "{}", MEMORY_HOG: JSON.stringify({ mb }) },
      extensionToLanguage: { fake: "fake" },
      documentSync: "transient"
    }
  }
})

// The budget logs each stop at Info; the report says what happened, and stdout carries the report.
const hostOf = (config: StdioConfig.StdioConfig.Encoded) =>
  ManagedRuntime.make(
    LspStdio.layer(config).pipe(
      Layer.provideMerge(LspService.layer),
      Layer.provide(NodeContext.layer),
      Layer.provideMerge(Logger.minimumLogLevel(LogLevel.Warning))
    )
  )

type Host = ReturnType<typeof hostOf>

const ask = (host: Host, workspace: string) =>
  host.runPromise(LspService.query({
    operation: "hover",
    filePath: "main.fake",
    position: { line: 0, character: 4 },
    workspaceRoot: workspace
  }))

const view = (host: Host) => host.runPromise(StdioStatus.StdioStatus)

const runningPids = async (host: Host) =>
  (await host.runPromise((await view(host)).status)).flatMap((server) => server.pid === null ? [] : [server.pid])

const treesTotal = (pids: ReadonlyArray<number>) => {
  const trees = procTrees(pids)
  return trees._tag === "Some" ? [...trees.value.values()].reduce((a, b) => a + b, 0) : 0
}

/** One hog server's tree, once it has stopped growing. */
const calibrate = async (mb: number): Promise<number> => {
  const host = hostOf(hogConfig(mb, "100%"))
  try {
    await ask(host, fakeWorkspace())
    const pids = await runningPids(host)
    Processes.track(pids)
    let last = -1
    let now = treesTotal(pids)
    while (Math.abs(now - last) > MiB / 2) {
      await sleep(200)
      last = now
      now = treesTotal(pids)
    }
    return now
  } finally {
    await host.dispose()
  }
}

export interface EvictionPart {
  readonly mb: number
  /** One server's tree, bytes. */
  readonly server: number
  readonly budget: number
  /** Every 100 ms: ms since the first query, the servers' total. */
  readonly timeline: ReadonlyArray<readonly [number, number]>
  readonly maxTotal: number
  readonly answered: ReadonlyArray<string>
  readonly evicted: ReadonlyArray<string>
  /** From the third answer to the first stop, ms. */
  readonly evictionAfterMs: number
  /** The servers' total once the budget has acted, bytes. */
  readonly settledTotal: number
  readonly restartAnswered: string
}

const measureEviction = async (options: Options): Promise<EvictionPart> => {
  const mb = options.quick ? 60 : 150
  const server = await calibrate(mb)
  const budget = Math.floor(server * 2.5)
  const host = hostOf(hogConfig(mb, budget))
  const timeline: Array<readonly [number, number]> = []
  const start = performance.now()
  let sampling = true
  const sampler = (async () => {
    while (sampling) {
      const pids = await runningPids(host)
      Processes.track(pids)
      timeline.push([Math.round(performance.now() - start), treesTotal(pids)])
      await sleep(100)
    }
  })()
  try {
    const [a, b, c] = [fakeWorkspace(), fakeWorkspace(), fakeWorkspace()]
    const names = new Map([[a, "a"], [b, "b"], [c, "c"]])
    const answered: Array<string> = []
    for (const workspace of [a, b, c]) answered.push(`${names.get(workspace)}: ${(await ask(host, workspace)).kind}`)
    const thirdAt = performance.now()
    const memory = (await view(host)).memory!
    await waitUntil(
      "a server stopped over the budget",
      async () => (await host.runPromise(memory)).evictions >= 1,
      20_000
    )
    const evictionAfterMs = performance.now() - thirdAt
    await sleep(300)
    const settledTotal = treesTotal(await runningPids(host))
    const restartAnswered = `a again: ${(await ask(host, a)).kind}`
    // a's restart puts three over the budget again: the next stop is b's, now the least recently used.
    await waitUntil("a second stop", async () => (await host.runPromise(memory)).evictions >= 2, 20_000)
    const evicted = (await host.runPromise(memory)).recentEvictions.map((e) => names.get(e.workspace) ?? e.workspace)
    sampling = false
    await sampler
    return {
      mb,
      server,
      budget,
      timeline,
      maxTotal: Math.max(...timeline.map(([, total]) => total)),
      answered,
      evicted,
      evictionAfterMs,
      settledTotal,
      restartAnswered
    }
  } finally {
    sampling = false
    await sampler
    await host.dispose()
  }
}

export interface MemoryBudgetPart {
  readonly hosts: ReadonlyArray<HostRun>
  readonly eviction: EvictionPart
}

export const measureMemoryBudget = async (options: Options, log: (message: string) => void) => {
  // The daemon as users run it: built from the sources as they are now.
  ChildProcess.execFileSync(process.execPath, [
    createRequire(import.meta.url).resolve("typescript/bin/tsc"),
    "-b",
    Path.join(root, "packages", "cli", "tsconfig.src.json")
  ], { cwd: root, stdio: "inherit" })
  const hosts: Array<HostRun> = []
  for (let run = 0; run < (options.quick ? 1 : 3); run++) {
    log(`memoryBudget: the daemon's own memory, run ${run + 1}`)
    hosts.push(await measureHostOnce())
  }
  log("memoryBudget: three servers under a budget that fits two")
  return { hosts, eviction: await measureEviction(options) } satisfies MemoryBudgetPart
}

const mib = (bytes: number) => (bytes / MiB).toFixed(1)

export const memoryBudgetSection = (part: MemoryBudgetPart, options: Options): Section => {
  const { eviction: e, hosts } = part
  const med = (pick: (run: HostRun) => number) => median(hosts.map(pick))
  const judged = (pass: boolean) => options.quick ? null : pass
  const targets: Array<Target> = [
    {
      name: "the third query under a budget that fits two",
      goal: "answers",
      measured: e.answered.join(", "),
      pass: judged(e.answered.length === 3 && e.answered.every((line) => line.endsWith("hover")))
    },
    {
      name: "the servers' total while three start under the budget",
      goal: "≤ budget + one server's start",
      measured: `max ${mib(e.maxTotal)} MiB ≤ ${mib(e.budget)} + ${mib(e.server)} MiB`,
      pass: judged(e.maxTotal <= e.budget + e.server * 1.05),
      note: "5% allowance on the calibrated server for the allocator's rounding"
    },
    {
      name: "which server the budget stops",
      goal: "the least recently used idle one; then under budget",
      measured: `stopped ${e.evicted.join(", then ")}; ${mib(e.settledTotal)} MiB after the first stop`,
      pass: judged(e.evicted[0] === "a" && e.evicted[1] === "b" && e.settledTotal <= e.budget)
    },
    {
      name: "a query that needs the stopped server",
      goal: "answers (the server starts again)",
      measured: e.restartAnswered,
      pass: judged(e.restartAnswered.endsWith("hover"))
    }
  ]
  return {
    id: "memoryBudget",
    title: "12. Memory budget: the host's own memory, and eviction under maxMemory",
    method: `The daemon (\`lsp-seam serve --no-prewarm\`, compiled), ${hosts.length} run(s): its resident memory ` +
      "(/proc VmRSS, its own process, median of 5 readings) 1 s after start with no server, and 1 s after 4 " +
      "fake servers answered a hover in 4 workspaces (through the remote client); a bare `node` process is the " +
      `reference. Eviction: the memory-hog fake server (Node holding ${e.mb} MiB), one server's tree calibrated ` +
      `in a host of its own (${mib(e.server)} MiB); a host with maxMemory = 2.5 servers (${mib(e.budget)} MiB) ` +
      "asks workspaces a, b, c in turn, the servers' total sampled from /proc every 100 ms; then a again.",
    tables: [
      {
        caption: `the host's own resident memory, MiB (median of ${hosts.length})`,
        columns: ["process", "RSS, MiB", "vs bare node"],
        rows: [
          ["bare node (reference)", med((r) => r.node).toFixed(1), "1.00×"],
          [
            "daemon, no server",
            med((r) => r.idle).toFixed(1),
            `${(med((r) => r.idle) / med((r) => r.node)).toFixed(2)}×`
          ],
          [
            "daemon, 4 servers",
            med((r) => r.withFour).toFixed(1),
            `${(med((r) => r.withFour) / med((r) => r.node)).toFixed(2)}×`
          ],
          ["the 4 servers' trees", med((r) => r.servers).toFixed(1), ""]
        ]
      },
      {
        caption: "three servers under a budget that fits two, MiB",
        columns: ["one server", "budget", "max total", "budget + one server", "first stop after", "total after it"],
        rows: [[
          mib(e.server),
          mib(e.budget),
          mib(e.maxTotal),
          mib(e.budget + e.server),
          `${(e.evictionAfterMs / 1000).toFixed(1)} s`,
          mib(e.settledTotal)
        ]]
      }
    ],
    targets,
    forUsers: [
      {
        figure: "the host's own memory (the daemon with no server / with 4 servers), without its servers",
        ours: `${med((r) => r.idle).toFixed(1)} / ${med((r) => r.withFour).toFixed(1)} MiB`,
        reference: `${med((r) => r.node).toFixed(1)} MiB (a bare node process)`,
        ratio: `${(med((r) => r.idle) / med((r) => r.node)).toFixed(2)}× / ${
          (med((r) => r.withFour) / med((r) => r.node)).toFixed(2)
        }×`
      },
      {
        figure: "the servers' memory under a maxMemory that fits two of three (most seen while the third started)",
        ours: `${mib(e.maxTotal)} MiB`,
        reference: `${mib(e.budget)} MiB budget + ${mib(e.server)} MiB (one server's start)`,
        ratio: `${(e.maxTotal / (e.budget + e.server)).toFixed(2)}×`
      }
    ],
    notes: [
      "The budget samples every 5 s and before each start; the first stop comes at the next sample after the " +
      "third server started (the start itself found two servers within the budget).",
      `timeline (s: MiB): ${
        e.timeline.filter((_, i) => i % 10 === 0).map(([t, total]) => `${(t / 1000).toFixed(1)}: ${mib(total)}`)
          .join(", ")
      }`
    ],
    data: {
      hosts: hosts.map((r) => ({
        nodeMiB: round(r.node, 1),
        idleMiB: round(r.idle, 1),
        withFourMiB: round(r.withFour, 1),
        serversMiB: round(r.servers, 1)
      })),
      eviction: { ...e, evictionAfterMs: round(e.evictionAfterMs, 0) }
    }
  }
}
