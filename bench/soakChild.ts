/**
 * One soak run, in a process of its own so that its RSS, file descriptors and fibers are its own (started by
 * bench/soak.ts with --expose-gc; also runnable by hand). Prints one JSON line.
 *
 * Usage: node --expose-gc --import tsx bench/soakChild.ts <queries> <warm-up queries> <seed>
 *
 * 1. A short first lifecycle (stack built, a few faulty queries, closed) so that Node's lazily opened
 *    descriptors (the SIGCHLD pipe and the like) exist before the descriptor baseline is taken.
 * 2. Baseline: descriptors, processes.
 * 3. The stack again, under a `Supervisor.track` supervisor: warm-up queries (faults included), full collections,
 *    RSS; the soak's queries in ten steps (RSS after each); collections, RSS; the stack closed; RSS, descriptors,
 *    live supervised fibers, and every server process group the run started.
 */
import "./support/register.js"
import type { QueryRecord } from "./support/soakRun.js"

const Soak = await import("./support/soakRun.js")
const Servers = await import("./support/servers.js")
const Processes = await import("./support/processes.js")
const Fs = await import("node:fs")
const Os = await import("node:os")
const Path = await import("node:path")

const [queriesArgument = "10000", warmupArgument = "400", seedArgument = "9"] = process.argv.slice(2)
const queries = Number(queriesArgument)
const warmup = Number(warmupArgument)
const seed = Number(seedArgument)

const collect = () => {
  const gc: unknown = Reflect.get(globalThis, "gc")
  if (typeof gc !== "function") throw new Error("run with --expose-gc")
  for (let i = 0; i < 3; i++) gc()
}
const rss = () => {
  collect()
  return process.memoryUsage().rss
}

const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "lsp-seam-soak-"))
const pidFile = Soak.pidFileIn(directory)
Processes.takeBaseline()
const workspaces = Soak.makeWorkspaces(Soak.settings.workspaces)

const started = performance.now()
const first = await Soak.withStack(pidFile, (run) => run(Soak.runQueries(workspaces, Soak.plan(40, 0.25, seed + 1))))
collect()
const fdsBefore = Soak.countFds()
const firstSeconds = (performance.now() - started) / 1000

const trace: Array<{ readonly queries: number; readonly rss: number; readonly fibers: number }> = []
let rssBefore = 0
let rssAfter = 0
const soakStart = performance.now()
let soakSeconds = 0
const second = await Soak.withStack(pidFile, async (run, liveFibers) => {
  await run(Soak.runQueries(workspaces, Soak.plan(warmup, Soak.settings.faultRate, seed + 2)))
  rssBefore = rss()
  const all = Soak.plan(queries, Soak.settings.faultRate, seed)
  const step = Math.max(1, Math.ceil(queries / 10))
  const records: Array<QueryRecord> = []
  const queryStart = performance.now()
  for (let done = 0; done < queries; done += step) {
    records.push(...(await run(Soak.runQueries(workspaces, all.slice(done, done + step), done))))
    trace.push({ queries: Math.min(queries, done + step), rss: rss(), fibers: liveFibers() })
  }
  soakSeconds = (performance.now() - queryStart) / 1000
  rssAfter = rss()
  return records
})
const rssClosed = rss()
const fdsAfter = Soak.countFds()
const pids = Soak.readPids(pidFile)
Processes.track(pids)
const left = await Processes.awaitNoSurvivors(2_000)
Servers.removeWorkspaces()
Fs.rmSync(directory, { recursive: true, force: true })

process.stdout.write(
  `${
    JSON.stringify({
      queries,
      warmup,
      seed,
      settings: Soak.settings,
      seconds: (performance.now() - soakStart) / 1000,
      soakSeconds,
      firstLifecycle: { seconds: firstSeconds, fibersLeft: first.fibersLeft, queries: first.value.length },
      fibersLeft: second.fibersLeft,
      fds: { before: fdsBefore, after: fdsAfter },
      rss: { before: rssBefore, after: rssAfter, closed: rssClosed },
      trace,
      serverStarts: pids.length,
      pids,
      processesLeft: left,
      records: second.value.map((r) => [Soak.faults.indexOf(r.fault), r.outcome, Math.round(r.ms * 10) / 10])
    })
  }\n`
)
