/**
 * Benchmark 3, throughput: queries per second on one workspace, and on 4 workspaces at once (a server
 * each, one sequential stream of queries each), for ours and for raw clients.
 */
import * as Os from "node:os"
import { type Contenders, parallelRaw } from "./support/contenders.js"
import { type Options, ratio, ratioSummary, type Section, type Table, type Target } from "./support/report.js"
import { pairedRatio, rounded, summarize, type Summary } from "./support/stats.js"

export interface ThroughputPart {
  readonly label: string
  readonly server: string
  readonly workspaces: number
  readonly queriesPerWorkspace: number
  readonly runs: number
  /** Queries per second. */
  readonly ours1: Summary
  readonly oursN: Summary
  readonly raw1: Summary
  readonly rawN: Summary
  readonly oursScaling: Summary
  readonly rawScaling: Summary
  readonly oursOverRaw1: Summary
  readonly oursOverRawN: Summary
}

const plan = (server: string, quick: boolean) =>
  server === "fake"
    ? { queriesPerWorkspace: quick ? 50 : 200, runs: quick ? 1 : 4 }
    : { queriesPerWorkspace: quick ? 8 : 48, runs: quick ? 1 : 5 }

export const measureThroughput = async (contenders: Contenders, options: Options): Promise<ThroughputPart> => {
  const { kind, ours, raw, workspaces } = contenders
  const { queriesPerWorkspace, runs } = plan(kind.spec.name, options.quick)
  const perSecond = (workspaceCount: number, wallMs: number) => workspaceCount * queriesPerWorkspace / (wallMs / 1000)
  const contestants = {
    ours1: async () => perSecond(1, await ours.parallel(workspaces.slice(0, 1), kind.queries, queriesPerWorkspace)),
    oursN: async () => perSecond(workspaces.length, await ours.parallel(workspaces, kind.queries, queriesPerWorkspace)),
    raw1: async () => perSecond(1, await parallelRaw(raw.slice(0, 1), kind.queries, queriesPerWorkspace)),
    rawN: async () => perSecond(raw.length, await parallelRaw(raw, kind.queries, queriesPerWorkspace))
  }
  type Key = keyof typeof contestants
  const samples: Record<Key, Array<number>> = { ours1: [], oursN: [], raw1: [], rawN: [] }
  const orders: ReadonlyArray<ReadonlyArray<Key>> = [["ours1", "oursN", "raw1", "rawN"], [
    "rawN",
    "raw1",
    "oursN",
    "ours1"
  ]]
  // One untimed round warms every path (and the 4-workspace one in particular).
  for (let run = -1; run < runs; run++) {
    for (const key of orders[(run + 2) % orders.length]!) {
      const value = await contestants[key]()
      if (run >= 0) samples[key].push(value)
    }
  }
  return {
    label: kind.label,
    server: kind.spec.name,
    workspaces: workspaces.length,
    queriesPerWorkspace,
    runs,
    ours1: summarize(samples.ours1),
    oursN: summarize(samples.oursN),
    raw1: summarize(samples.raw1),
    rawN: summarize(samples.rawN),
    oursScaling: pairedRatio(samples.oursN, samples.ours1),
    rawScaling: pairedRatio(samples.rawN, samples.raw1),
    oursOverRaw1: pairedRatio(samples.ours1, samples.raw1),
    oursOverRawN: pairedRatio(samples.oursN, samples.rawN)
  }
}

const qps = (s: Summary) => [s.min.toFixed(0), s.median.toFixed(0), s.max.toFixed(0)]

const table = (part: ThroughputPart): Table => ({
  caption: `${part.label}: ${part.queriesPerWorkspace} queries per workspace per run, ${part.runs} runs after ` +
    "one warm-up run",
  columns: ["queries/s", "min", "median", "max", `${part.workspaces} workspaces / 1 (paired)`, "ours / raw (paired)"],
  rows: [
    ["ours, 1 workspace", ...qps(part.ours1), "", ratioSummary(part.oursOverRaw1)],
    [
      `ours, ${part.workspaces} workspaces in parallel`,
      ...qps(part.oursN),
      ratioSummary(part.oursScaling),
      ratioSummary(part.oursOverRawN)
    ],
    ["raw client, 1 workspace", ...qps(part.raw1), "", ""],
    [`raw clients, ${part.workspaces} workspaces in parallel`, ...qps(part.rawN), ratioSummary(part.rawScaling), ""]
  ]
})

export const throughputSection = (parts: ReadonlyArray<ThroughputPart>, options: Options): Section => {
  const targets: Array<Target> = parts.map((part) => {
    const pass = part.oursScaling.median >= 1.6
    const machineCap = part.rawScaling.median < 1.6
      ? `raw clients reach only ${
        ratio(part.rawScaling.median)
      } on this machine (${Os.cpus().length} cores shared by ` +
        "the bench, the servers and other load)"
      : `raw clients reach ${ratio(part.rawScaling.median)}`
    const hostCap = part.oursScaling.median < part.rawScaling.median
      ? "; ours scales less than raw: the host's own CPU per query, on one event loop, competes with the servers"
      : ""
    const limit = machineCap + hostCap
    return {
      name: `${part.workspaces} workspaces in parallel vs 1 (${part.label})`,
      goal: "≥ 1.6×",
      measured: ratioSummary(part.oursScaling),
      pass: options.quick ? null : pass,
      ...(pass ? {} : { note: limit })
    }
  })
  return {
    id: "throughput",
    title: "3. Throughput, one workspace and 4 in parallel",
    method: "Queries per second of wall time. One workspace: one stream of sequential queries. N workspaces: " +
      "one such stream per workspace, all at once (one server each; the host serialises queries per workspace " +
      "and runs workspaces in parallel). Ours is one host serving every workspace; the reference is one raw " +
      "client per workspace. Runs alternate the order of the four measurements.",
    tables: parts.map(table),
    targets,
    data: parts.map((part) => ({
      ...part,
      ours1: rounded(part.ours1, 1),
      oursN: rounded(part.oursN, 1),
      raw1: rounded(part.raw1, 1),
      rawN: rounded(part.rawN, 1),
      oursScaling: rounded(part.oursScaling),
      rawScaling: rounded(part.rawScaling),
      oursOverRaw1: rounded(part.oursOverRaw1),
      oursOverRawN: rounded(part.oursOverRawN)
    }))
  }
}
