/**
 * Benchmark 7, soak: 10,000 queries through the whole stack on 4 workspaces of a server that, on 5 % of the
 * queries (seeded, so repeatable), crashes, hangs or writes a garbage frame. Every query must end with an
 * answer or a coded `LspError` within its budget; afterwards no server process group, file descriptor or
 * fiber may be left, and RSS may not have grown by 20 MB. The run happens in a fresh child process
 * (bench/soakChild.ts, which can also be run by hand).
 */
import { fileURLToPath } from "node:url"
import { hasPids, runJsonChild } from "./support/childRun.js"
import { type Options, type Section, type Target } from "./support/report.js"
import { round, summarize } from "./support/stats.js"

const child = fileURLToPath(new URL("./soakChild.ts", import.meta.url))

const faultNames = ["none", "crash", "hang", "garbage"] as const

/** Slack over the budget for a query to count as ended within it (timers, GC pauses, a loaded machine). */
const slackMs = 500
const fdAllowance = 2
const rssLimitMB = 20

interface ChildResult {
  readonly queries: number
  readonly warmup: number
  readonly seed: number
  readonly settings: {
    readonly budgetMs: number
    readonly killGraceMs: number
    readonly shutdownTimeoutMs: number
    readonly crashLoop: { readonly maxCrashes: number; readonly windowMs: number }
    readonly workspaces: number
    readonly faultRate: number
  }
  readonly seconds: number
  readonly soakSeconds: number
  readonly firstLifecycle: { readonly seconds: number; readonly fibersLeft: number; readonly queries: number }
  readonly fibersLeft: number
  readonly fds: { readonly before: number; readonly after: number }
  readonly rss: { readonly before: number; readonly after: number; readonly closed: number }
  readonly trace: ReadonlyArray<{ readonly queries: number; readonly rss: number; readonly fibers: number }>
  readonly serverStarts: number
  readonly pids: ReadonlyArray<number>
  readonly processesLeft: ReadonlyArray<number>
  /** [fault index, outcome, ms] per query. */
  readonly records: ReadonlyArray<readonly [number, string, number]>
}

const isChildResult = (u: unknown): u is ChildResult =>
  hasPids(u) && "records" in u && Array.isArray(u.records) && "rss" in u && "fds" in u

/** Runs the soak child; one still running after `limitMs` is killed (the soak itself must not hang the bench). */
const runChild = (queries: number, warmup: number, seed: number, limitMs: number): Promise<ChildResult> =>
  runJsonChild({
    label: "soak",
    script: child,
    args: [String(queries), String(warmup), String(seed)],
    nodeFlags: ["--expose-gc"],
    limitMs,
    isResult: isChildResult
  })

export interface SoakPart {
  readonly result: ChildResult
}

export const measureSoak = async (options: Options): Promise<SoakPart> => {
  const queries = options.quick ? 200 : 10_000
  const warmup = options.quick ? 20 : 400
  return { result: await runChild(queries, warmup, 9, options.quick ? 120_000 : 900_000) }
}

const MB = 2 ** 20
const mb = (bytes: number) => `${bytes >= 0 ? "+" : ""}${(bytes / MB).toFixed(1)}`
const fixed = (ms: number) => ms.toFixed(1)

export const soakSection = (part: SoakPart, options: Options): Section => {
  const r = part.result
  const budget = r.settings.budgetMs
  const records = r.records.map(([fault, outcome, ms]) => ({ fault: faultNames[fault] ?? "none", outcome, ms }))
  const outcomes = [...new Set(records.map((record) => record.outcome))].sort((a, b) =>
    a === "answer" ? -1 : b === "answer" ? 1 : a.localeCompare(b)
  )
  const uncoded = records.filter((record) => record.outcome === "defect" || record.outcome === "interrupted")
  const maxMs = Math.max(...records.map((record) => record.ms))
  const late = records.filter((record) => record.ms > budget + slackMs)
  const crashLoops = records.filter((record) => record.outcome === "LSP_CRASH_LOOP").length
  const faulty = records.filter((record) => record.fault !== "none").length
  const rate = r.queries / r.soakSeconds
  // A quick run is too short to judge a target: its verdicts are null ("not judged"), whatever it measured.
  const judged = (pass: boolean): boolean | null => options.quick ? null : pass

  const ended: Target = {
    name: `every one of ${r.queries.toLocaleString("en")} queries ends with an answer or a coded error in its budget`,
    goal: `all; each ≤ budget ${budget} ms + ${slackMs} ms slack`,
    measured: `${records.length.toLocaleString("en")} ended, ${uncoded.length} without a code, ${late.length} late; ` +
      `max ${fixed(maxMs)} ms`,
    pass: judged(records.length === r.queries && uncoded.length === 0 && late.length === 0),
    note: `${faulty} faults injected (${(100 * faulty / r.queries).toFixed(2)} %); ${crashLoops} LSP_CRASH_LOOP; ` +
      `${rate.toFixed(1)} queries/s; ${r.serverStarts} server starts`
  }
  const processes: Target = {
    name: "no server process left afterwards",
    goal: "0 processes",
    measured: `${r.processesLeft.length} of ${r.serverStarts} server process groups (and the run's descendants)`,
    pass: judged(r.processesLeft.length === 0)
  }
  const fds: Target = {
    name: "file descriptors back to the baseline",
    goal: `≤ baseline + ${fdAllowance}`,
    measured: `${r.fds.before} before, ${r.fds.after} after (${r.fds.after - r.fds.before >= 0 ? "+" : ""}${
      r.fds.after - r.fds.before
    })`,
    pass: judged(r.fds.after - r.fds.before <= fdAllowance),
    note: "/proc/self/fd of the soak process, after a first short lifecycle opened Node's lazy descriptors"
  }
  const fibers: Target = {
    name: "no fiber left",
    goal: "0 fibers",
    measured: `${r.fibersLeft} live supervised fibers after the stack closed`,
    pass: judged(r.fibersLeft === 0 && r.firstLifecycle.fibersLeft === 0),
    note: `Supervisor.track over the whole stack and every query; up to ${
      Math.max(...r.trace.map((t) => t.fibers))
    } live while it ran`
  }
  const growth = r.rss.after - r.rss.before
  const rss: Target = {
    name: `RSS growth over ${r.queries.toLocaleString("en")} faulty queries`,
    goal: `< ${rssLimitMB} MB`,
    measured: `${mb(growth)} MB (host still up; ${mb(r.rss.closed - r.rss.before)} MB once closed)`,
    pass: judged(growth < rssLimitMB * MB),
    note: `after ${r.warmup} warm-up queries and full collections; RSS moved ${
      mb(Math.max(...r.trace.map((t) => t.rss)) - Math.min(...r.trace.map((t) => t.rss)))
    } MB within the run`
  }

  const latencyRow = (fault: string) => {
    const ms = records.filter((record) => record.fault === fault).map((record) => record.ms)
    if (ms.length === 0) return [fault, "0", "", "", "", ...outcomes.map(() => "")]
    const s = summarize(ms)
    return [
      fault,
      String(ms.length),
      fixed(s.median),
      fixed(s.p99),
      fixed(s.max),
      ...outcomes.map((outcome) =>
        String(records.filter((record) => record.fault === fault && record.outcome === outcome).length)
      )
    ]
  }

  return {
    id: "soak",
    title: "7. Soak: 10,000 queries with injected faults",
    method: `A fresh Node process (bench/soakChild.ts, --expose-gc) runs the whole stack (LspToolHandler.run, budget ` +
      `${budget} ms → LspService → stdio host) on ${r.settings.workspaces} workspaces of bench/support/faultServer.mjs, ` +
      `one sequential stream of queries per workspace, the four in parallel. ${
        (100 * r.settings.faultRate).toFixed(0)
      } % of the queries (mulberry32, seed ${r.seed}) carry a fault, the kinds equally likely: the server exits ` +
      "(crash), never answers and ignores the cancellation (hang), or writes a bad frame (garbage: a bad, missing or " +
      "huge Content-Length, a non-JSON or non-UTF-8 body, an endless header) and falls silent. The queried file tells " +
      `the server which. Host timers: killGraceMs ${r.settings.killGraceMs}, shutdownTimeoutMs ` +
      `${r.settings.shutdownTimeoutMs}, crashLoop ${r.settings.crashLoop.maxCrashes} crashes per ` +
      `${r.settings.crashLoop.windowMs} ms. A first short lifecycle (stack built, 40 faulty queries, closed) ` +
      "precedes the descriptor baseline; then the stack is built again under a Supervisor.track supervisor, warmed " +
      `up with ${r.warmup} faulty queries, collected (RSS before), run, collected (RSS after), closed; then ` +
      "descriptors, supervised fibers, and every server's process group (each start records its pid) are checked.",
    tables: [{
      caption: `${r.queries.toLocaleString("en")} queries in ${r.soakSeconds.toFixed(0)} s (${
        rate.toFixed(1)
      } queries/s); latency in ms; outcome counts per injected fault`,
      columns: ["fault", "queries", "median", "p99", "max", ...outcomes],
      rows: faultNames.map(latencyRow)
    }],
    targets: [ended, processes, fds, fibers, rss],
    notes: [
      "Server starts: the host retries a query once on a fresh server after a crash or a framing failure (DESIGN.md), " +
      "and the fault server repeats the fault for the same file, so a crash or garbage query costs two starts and " +
      "still ends with its code; a hang costs one (the server that ignored the cancellation is replaced).",
      `RSS MB ${(r.rss.before / MB).toFixed(1)} before → ${r.trace.map((t) => (t.rss / MB).toFixed(1)).join(" → ")} → ${
        (r.rss.closed / MB).toFixed(1)
      } closed; live supervised fibers per step ${r.trace.map((t) => t.fibers).join(", ")}`,
      ...(uncoded.length > 0 ? [`queries without a code: ${uncoded.length} (${uncoded[0]!.outcome} first)`] : []),
      ...(late.length > 0
        ? [`late queries: ${late.map((record) => `${record.fault} ${fixed(record.ms)} ms`).join(", ")}`]
        : [])
    ],
    data: {
      queries: r.queries,
      warmup: r.warmup,
      seed: r.seed,
      settings: r.settings,
      seconds: round(r.seconds, 1),
      soakSeconds: round(r.soakSeconds, 1),
      queriesPerSecond: round(rate, 1),
      maxLatencyMs: round(maxMs, 1),
      slackMs,
      outcomes: Object.fromEntries(
        faultNames.map((fault) => [
          fault,
          Object.fromEntries(outcomes.map((outcome) => [
            outcome,
            records.filter((record) => record.fault === fault && record.outcome === outcome).length
          ]))
        ])
      ),
      uncoded: uncoded.length,
      late: late.length,
      crashLoops,
      serverStarts: r.serverStarts,
      processesLeft: r.processesLeft,
      fds: r.fds,
      fibersLeft: r.fibersLeft,
      firstLifecycle: r.firstLifecycle,
      rss: r.rss,
      trace: r.trace
    }
  }
}
