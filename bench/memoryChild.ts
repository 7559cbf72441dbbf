/**
 * One memory measurement, in a process of its own so that nothing else the bench did is counted: start a
 * contender on the fake server, warm it up, collect garbage, take the figures, run the queries, collect
 * garbage, take them again. Prints one JSON line. Started by bench/memory.ts with --expose-gc.
 *
 * Usage: node --expose-gc --import tsx bench/memoryChild.ts <ours|raw> <queries> <warm-up queries>
 */
import "./support/register.js"

const { timedRaw } = await import("./support/contenders.js")
const { startOurs } = await import("./support/ours.js")
const { RawClient } = await import("./support/rawClient.js")
const Servers = await import("./support/servers.js")

const [mode = "ours", queriesArgument = "10000", warmupArgument = "200"] = process.argv.slice(2)
const queries = Number(queriesArgument)
const warmup = Number(warmupArgument)

const collect = () => {
  const gc: unknown = Reflect.get(globalThis, "gc")
  if (typeof gc !== "function") throw new Error("run with --expose-gc")
  for (let i = 0; i < 3; i++) gc()
}

const figures = () => {
  collect()
  const { arrayBuffers, external, heapTotal, heapUsed, rss } = process.memoryUsage()
  return { rss, heapUsed, heapTotal, external, arrayBuffers }
}

const workspace = Servers.fakeWorkspace()
const step = Math.max(1, Math.floor(queries / 10))
const trace: Array<{ readonly queries: number; readonly rss: number; readonly heapUsed: number }> = []
const sample = (done: number) => {
  const { heapUsed, rss } = figures()
  trace.push({ queries: done, rss, heapUsed })
}

let pids: Array<number> = []
let before: ReturnType<typeof figures>
let after: ReturnType<typeof figures>
const start = performance.now()
if (mode === "ours") {
  const host = await startOurs(Servers.fakeServer)
  try {
    await host.timed(workspace, Servers.fakeQueries, warmup)
    pids = await host.pids()
    before = figures()
    for (let done = 0; done < queries; done += step) {
      await host.timed(workspace, Servers.fakeQueries, Math.min(step, queries - done), done)
      sample(Math.min(done + step, queries))
    }
    after = figures()
  } finally {
    await host.dispose()
  }
} else {
  const client = await RawClient.start(Servers.fakeServer, workspace)
  pids = [client.pid]
  try {
    await timedRaw(client, Servers.fakeQueries, warmup)
    before = figures()
    for (let done = 0; done < queries; done += step) {
      await timedRaw(client, Servers.fakeQueries, Math.min(step, queries - done), done)
      sample(Math.min(done + step, queries))
    }
    after = figures()
  } finally {
    await client.close()
  }
}
Servers.removeWorkspaces()
process.stdout.write(
  `${
    JSON.stringify({ mode, queries, warmup, seconds: (performance.now() - start) / 1000, pids, before, after, trace })
  }\n`
)
