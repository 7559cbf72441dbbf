/**
 * The suite behind bench/run.ts: runs the selected benchmarks, checks that no process is left behind, and
 * writes the report.
 */
import * as Assert from "node:assert"
import * as Fs from "node:fs"
import { clientCapabilities as hostCapabilities } from "../packages/lsp-stdio/src/internal/servers/serverInstance.js"
import { bodiesSection, measureBodies } from "./bodies.js"
import { clusterSection, measureCluster } from "./cluster.js"
import { type ColdStartPart, coldStartSection, measureColdStart } from "./coldStart.js"
import { deadlineSection, measureDeadline } from "./deadline.js"
import { failoverSection, measureFailover } from "./failover.js"
import { floodSection, measureFlood } from "./flood.js"
import { framing } from "./framing.js"
import { fuzzSection, measureFuzz } from "./fuzz.js"
import { measureImpact } from "./impact.js"
import { impactSection } from "./impactReport.js"
import { type LargeDocumentPart, largeDocumentSection, measureLargeDocument } from "./largeDocument.js"
import { type LatencyPart, latencySection, measureLatency } from "./latency.js"
import { loadSection, measureLoad } from "./load.js"
import { measureMemory, memorySection } from "./memory.js"
import { measureMemoryBudget, memoryBudgetSection } from "./memoryBudget.js"
import { measureRemote, remoteSection } from "./remote.js"
import { measureRetained, retainedSection } from "./retained.js"
import { measureSoak, soakSection } from "./soak.js"
import { fakeKind, openContenders, typescriptKind } from "./support/contenders.js"
import * as Processes from "./support/processes.js"
import { clientCapabilities } from "./support/rawClient.js"
import * as Report from "./support/report.js"
import type { Section } from "./support/report.js"
import { removeWorkspaces } from "./support/servers.js"
import { loadAverage, machine } from "./support/stats.js"
import { measureThroughput, type ThroughputPart, throughputSection } from "./throughput.js"
import { measureUpgradeFuzz, upgradeFuzzSection } from "./upgradeFuzz.js"

const ids = [
  "framing",
  "latency",
  "throughput",
  "coldStart",
  "memory",
  "largeDocument",
  "soak",
  "fuzz",
  "retained",
  "remote",
  "upgradeFuzz",
  "memoryBudget",
  "bodies",
  "load",
  "cluster",
  "failover",
  "deadline",
  "flood",
  "impact"
] as const
/**
 * The reliability benchmarks: a run of only these writes results-reliability.md/json instead, replacing the
 * sections it ran and keeping the others from the previous file.
 */
const reliabilityIds: ReadonlyArray<string> = ["soak", "fuzz", "upgradeFuzz"]

const quick = process.argv.includes("--quick") || process.env.BENCH_QUICK === "1"
const onlyArgument = process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length)
const only = onlyArgument === undefined ? ids : onlyArgument.split(",")
for (const id of only) if (!ids.some((known) => known === id)) throw new Error(`unknown benchmark "${id}"`)
const selected = (id: typeof ids[number]) => only.includes(id)
const full = !quick && onlyArgument === undefined
const reliabilityOnly = !quick && onlyArgument !== undefined && only.every((id) => reliabilityIds.includes(id))
// `--write`: a partial run replaces its own sections of results.md/json and keeps the others (each kept one names
// the run that measured it), for a benchmark re-measured on its own.
const partialWrite = !quick && onlyArgument !== undefined && !reliabilityOnly && process.argv.includes("--write")
const options = { quick }

const log = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`)

/** Times one step and logs it. */
const step = async <A>(name: string, body: () => Promise<A>): Promise<A> => {
  log(`${name}…`)
  const start = performance.now()
  const value = await body()
  log(`${name}: ${((performance.now() - start) / 1000).toFixed(1)} s`)
  return value
}

// A raw client that drifted from the host's handshake would make every comparison meaningless.
Assert.deepStrictEqual(clientCapabilities, hostCapabilities)

Processes.takeBaseline()

// Servers lead their own process groups, so an interrupted bench must end them itself.
process.once("SIGINT", () => {
  for (const pid of Processes.serverPids) {
    try {
      process.kill(-pid, "SIGKILL")
    } catch {
      // Gone already.
    }
  }
  removeWorkspaces()
  process.exit(130)
})

const host = machine()
const started = performance.now()
const sections = new Map<string, Section>()
const seconds = new Map<string, number>()
let failure: unknown = undefined

const timed = async <A>(id: string, name: string, body: () => Promise<A>): Promise<A> => {
  const start = performance.now()
  try {
    return await step(name, body)
  } finally {
    seconds.set(id, (seconds.get(id) ?? 0) + (performance.now() - start) / 1000)
  }
}

try {
  if (selected("framing")) sections.set("framing", await timed("framing", "framing", () => framing(options)))

  const latencyParts: Array<LatencyPart> = []
  const throughputParts: Array<ThroughputPart> = []
  const largeParts: Array<LargeDocumentPart> = []
  if (selected("latency") || selected("throughput") || selected("largeDocument")) {
    for (const kind of [fakeKind, typescriptKind]) {
      const contenders = await step(
        `${kind.label}: starting 4 workspaces for ours and raw`,
        () => openContenders(kind, 4)
      )
      try {
        if (selected("latency")) {
          latencyParts.push(await timed("latency", `latency, ${kind.label}`, () => measureLatency(contenders, options)))
        }
        if (selected("throughput")) {
          throughputParts.push(
            await timed("throughput", `throughput, ${kind.label}`, () => measureThroughput(contenders, options))
          )
        }
        if (selected("largeDocument")) {
          largeParts.push(
            await timed(
              "largeDocument",
              `4 MB document, ${kind.label}`,
              () => measureLargeDocument(contenders, options)
            )
          )
        }
      } finally {
        await step(`${kind.label}: closing`, () => contenders.close())
      }
    }
  }
  if (latencyParts.length > 0) sections.set("latency", latencySection(latencyParts, options))
  if (throughputParts.length > 0) sections.set("throughput", throughputSection(throughputParts, options))
  if (largeParts.length > 0) sections.set("largeDocument", largeDocumentSection(largeParts))

  if (selected("coldStart")) {
    const parts: Array<ColdStartPart> = []
    for (const kind of [fakeKind, typescriptKind]) {
      parts.push(await timed("coldStart", `cold start, ${kind.label}`, () => measureColdStart(kind, options)))
    }
    sections.set("coldStart", coldStartSection(parts))
  }
  if (selected("memory")) {
    const part = await timed("memory", "memory", () => measureMemory(options))
    sections.set("memory", memorySection(part, options))
  }
  if (selected("retained")) {
    const part = await timed("retained", "retained documents", () => measureRetained(options, log))
    sections.set("retained", retainedSection(part, options))
  }
  if (selected("remote")) {
    const part = await timed("remote", "one warm host for many clients", () => measureRemote(options, log))
    sections.set("remote", remoteSection(part, options))
  }
  if (selected("memoryBudget")) {
    const part = await timed("memoryBudget", "memory budget", () => measureMemoryBudget(options, log))
    sections.set("memoryBudget", memoryBudgetSection(part, options))
  }
  if (selected("bodies")) {
    const part = await timed("bodies", "bodies: include_body against definition + read", () => measureBodies(options))
    sections.set("bodies", bodiesSection(part, options))
  }
  if (selected("load")) {
    const part = await timed("load", "many agents, one host", () => measureLoad(options, log))
    sections.set("load", loadSection(part, options))
  }
  if (selected("cluster")) {
    const part = await timed("cluster", "the cluster against one host", () => measureCluster(options, log))
    sections.set("cluster", clusterSection(part, options))
  }
  if (selected("failover")) {
    const part = await timed("failover", "failover after a runner's SIGKILL", () => measureFailover(options, log))
    sections.set("failover", failoverSection(part, options))
  }
  if (selected("deadline")) {
    const part = await timed("deadline", "a cross-project question by a deadline", () => measureDeadline(options, log))
    sections.set("deadline", deadlineSection(part, options))
  }
  if (selected("flood")) {
    const part = await timed("flood", "a flood from token holders", () => measureFlood(options))
    sections.set("flood", floodSection(part, options))
  }
  if (selected("impact")) {
    const part = await timed("impact", "impact against the chain by hand", () => measureImpact(options, log))
    sections.set("impact", impactSection(part, options))
  }
  if (selected("soak")) {
    const part = await timed("soak", "soak", () => measureSoak(options))
    sections.set("soak", soakSection(part, options))
  }
  if (selected("fuzz")) {
    const part = await timed("fuzz", "fuzz", () => measureFuzz(options))
    sections.set("fuzz", fuzzSection(part, options))
  }
  if (selected("upgradeFuzz")) {
    const part = await timed("upgradeFuzz", "upgrade and authentication fuzz", () => measureUpgradeFuzz(options))
    sections.set("upgradeFuzz", upgradeFuzzSection(part, options))
  }
} catch (error) {
  failure = error
  log(`failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`)
}

removeWorkspaces()
const left = await Processes.awaitNoSurvivors()
for (const pid of left) {
  try {
    process.kill(pid, "SIGKILL")
  } catch {
    // Gone meanwhile.
  }
}

const report = {
  generatedAt: new Date().toISOString(),
  command: quick
    ? "npm run bench -- --quick"
    : onlyArgument === undefined
    ? "npm run bench"
    : `npm run bench -- --only=${onlyArgument}`,
  quick,
  machine: { ...host, loadAverage: { before: host.loadAverage.before, after: loadAverage() } },
  seconds: (performance.now() - started) / 1000,
  sections: ids.flatMap((id) => {
    const section = sections.get(id)
    return section === undefined ? [] : [{ ...section, seconds: seconds.get(id) ?? 0 }]
  }),
  processesLeftBehind: left
}
if ((full || reliabilityOnly || partialWrite) && failure === undefined) {
  const name = reliabilityOnly ? "results-reliability" : "results"
  const json = new URL(`./${name}.json`, import.meta.url)
  // A partial run keeps the sections it did not run from the previous file, each with the run that made it.
  const written = (reliabilityOnly || partialWrite) && Fs.existsSync(json)
    ? Report.merge(Report.decode(JSON.parse(Fs.readFileSync(json, "utf8"))), report, [...ids])
    : report
  const markdown = Report.markdown(written)
  const temporary = new URL(`./${name}.json.tmp`, import.meta.url)
  Fs.writeFileSync(temporary, `${JSON.stringify(written, null, 2)}\n`)
  Fs.renameSync(temporary, json)
  Fs.writeFileSync(new URL(`./${name}.md`, import.meta.url), markdown)
  log(`written to bench/${name}.md and bench/${name}.json`)
} else {
  process.stdout.write(`${Report.markdown(report)}\n`)
  log(
    failure === undefined
      ? "not a full run: report printed, results not written (--write merges a partial run into them)"
      : "failed: results not written"
  )
}
log(`total ${report.seconds.toFixed(0)} s`)
if (failure !== undefined || left.length > 0) process.exitCode = 1
