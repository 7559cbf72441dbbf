/**
 * Benchmark 5, memory: RSS and V8 heap of the process running the stack, before and after 10,000 queries
 * on the fake server (after warm-up and a full collection both times), against the raw client doing the
 * same. Each measurement runs in a fresh child process (bench/memoryChild.ts).
 */
import { fileURLToPath } from "node:url"
import { hasPids, runJsonChild } from "./support/childRun.js"
import { type Options, type Section, type Target } from "./support/report.js"
import { round, rounded, summarize, type Summary } from "./support/stats.js"

const child = fileURLToPath(new URL("./memoryChild.ts", import.meta.url))

interface Figures {
  readonly rss: number
  readonly heapUsed: number
  readonly heapTotal: number
  readonly external: number
  readonly arrayBuffers: number
}

interface ChildResult {
  readonly mode: "ours" | "raw"
  readonly seconds: number
  readonly pids: ReadonlyArray<number>
  readonly before: Figures
  readonly after: Figures
  readonly trace: ReadonlyArray<{ readonly queries: number; readonly rss: number; readonly heapUsed: number }>
}

const isChildResult = (u: unknown): u is ChildResult => hasPids(u) && "before" in u && "after" in u

const runChild = (mode: "ours" | "raw", queries: number, warmup: number): Promise<ChildResult> =>
  runJsonChild({
    label: `${mode} memory`,
    script: child,
    args: [mode, String(queries), String(warmup)],
    nodeFlags: ["--expose-gc"],
    isResult: isChildResult
  })

const MB = 2 ** 20

export interface MemoryPart {
  readonly queries: number
  readonly warmup: number
  readonly runs: number
  /** Growth after - before, MB. */
  readonly ours: { readonly rss: Summary; readonly heapUsed: Summary; readonly external: Summary }
  readonly raw: { readonly rss: Summary; readonly heapUsed: Summary; readonly external: Summary }
  readonly oursBeforeRssMB: Summary
  readonly rawBeforeRssMB: Summary
  readonly results: ReadonlyArray<ChildResult>
}

export const measureMemory = async (options: Options): Promise<MemoryPart> => {
  const queries = options.quick ? 500 : 10_000
  const warmup = options.quick ? 50 : 1_000
  const runs = options.quick ? 1 : 3
  const results: Array<ChildResult> = []
  for (let run = 0; run < runs; run++) {
    for (const mode of run % 2 === 0 ? (["ours", "raw"] as const) : (["raw", "ours"] as const)) {
      results.push(await runChild(mode, queries, warmup))
    }
  }
  const growth = (mode: "ours" | "raw", key: keyof Figures) =>
    summarize(results.filter((r) => r.mode === mode).map((r) => (r.after[key] - r.before[key]) / MB))
  const before = (mode: "ours" | "raw") =>
    summarize(results.filter((r) => r.mode === mode).map((r) => r.before.rss / MB))
  return {
    queries,
    warmup,
    runs,
    ours: { rss: growth("ours", "rss"), heapUsed: growth("ours", "heapUsed"), external: growth("ours", "external") },
    raw: { rss: growth("raw", "rss"), heapUsed: growth("raw", "heapUsed"), external: growth("raw", "external") },
    oursBeforeRssMB: before("ours"),
    rawBeforeRssMB: before("raw"),
    results
  }
}

const mb = (value: number) => `${value >= 0 ? "+" : ""}${value.toFixed(1)}`
const growthCells = (s: Summary) => [mb(s.min), mb(s.median), mb(s.max)]

export const memorySection = (part: MemoryPart, options: Options): Section => {
  // RSS also moves as V8 takes and returns pages; the spread within a run shows how far, beside the growth.
  const spread = (mode: "ours" | "raw") =>
    summarize(
      part.results.filter((r) => r.mode === mode).map((r) => {
        const rss = [r.before.rss, ...r.trace.map((t) => t.rss), r.after.rss]
        return (Math.max(...rss) - Math.min(...rss)) / MB
      })
    )
  // Judged on the median, as every other target; RSS moves with V8's heap sizing, so the worst run is shown too.
  const pass = part.ours.rss.median <= 10
  const target: Target = {
    name: `RSS growth over ${part.queries.toLocaleString("en")} queries`,
    goal: "≤ 10 MB",
    measured: `${mb(part.ours.rss.median)} MB median, ${mb(part.ours.rss.max)} MB worst of ${part.runs} (raw client ${
      mb(part.raw.rss.median)
    } MB)`,
    pass: options.quick ? null : pass,
    note: `median of ${part.runs} runs; V8 heap used grew ${mb(part.ours.heapUsed.median)} MB (raw ${
      mb(part.raw.heapUsed.median)
    } MB); RSS spanned ${spread("ours").median.toFixed(1)} MB within a run (raw ${spread("raw").median.toFixed(1)} MB)`
  }
  const traces = part.results.map((r) =>
    `${r.mode}: RSS MB ${r.trace.map((t) => (t.rss / MB).toFixed(1)).join(" → ")}; heap MB ${
      r.trace.map((t) => (t.heapUsed / MB).toFixed(1)).join(" → ")
    } (${r.seconds.toFixed(1)} s)`
  )
  return {
    id: "memory",
    title: "5. Memory over 10,000 queries",
    method: `Each run is a fresh Node process (bench/memoryChild.ts, --expose-gc) on the fake server: ` +
      `${part.warmup} warm-up queries, three full collections, figures; ${part.queries.toLocaleString("en")} ` +
      "queries in ten steps (collections and figures after each), figures again. Growth is after minus before " +
      "for the process that runs the stack (the server's own memory is not counted); the raw client's process " +
      "is the reference. Runs alternate between ours and raw.",
    tables: [{
      caption: `${part.runs} runs each; MB (2^20 bytes)`,
      columns: ["growth, MB", "min", "median", "max", "RSS before (median)"],
      rows: [
        ["ours: RSS", ...growthCells(part.ours.rss), part.oursBeforeRssMB.median.toFixed(1)],
        ["ours: V8 heap used", ...growthCells(part.ours.heapUsed), ""],
        ["ours: external", ...growthCells(part.ours.external), ""],
        ["raw client: RSS", ...growthCells(part.raw.rss), part.rawBeforeRssMB.median.toFixed(1)],
        ["raw client: V8 heap used", ...growthCells(part.raw.heapUsed), ""],
        ["raw client: external", ...growthCells(part.raw.external), ""]
      ]
    }],
    targets: [target],
    notes: traces,
    data: {
      queries: part.queries,
      warmup: part.warmup,
      runs: part.runs,
      growthMB: {
        ours: {
          rss: rounded(part.ours.rss, 2),
          heapUsed: rounded(part.ours.heapUsed, 2),
          external: rounded(part.ours.external, 2)
        },
        raw: {
          rss: rounded(part.raw.rss, 2),
          heapUsed: rounded(part.raw.heapUsed, 2),
          external: rounded(part.raw.external, 2)
        }
      },
      results: part.results.map((r) => ({
        mode: r.mode,
        seconds: round(r.seconds, 2),
        before: r.before,
        after: r.after,
        trace: r.trace
      }))
    }
  }
}
