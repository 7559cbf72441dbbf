/**
 * Benchmark 2, full-stack query latency: the `lsp` tool through the seam and the stdio host to the server,
 * against the raw client on its own server instance for the same workspace, the same sequence of queries.
 */
import { type Contenders, timedRaw } from "./support/contenders.js"
import { type AboveHost, measureAboveHost } from "./support/ours.js"
import { ms, type Options, ratio, ratioSummary, type Section, type Table, type Target } from "./support/report.js"
import { median, pairedRatio, round, rounded, summarize, type Summary } from "./support/stats.js"

export interface LatencyPart {
  readonly label: string
  readonly server: string
  readonly warmup: number
  /**
   * Medians of the first `coldQueries` warm-up queries of ours and of the raw client: the cost before V8 has
   * compiled the stack's code (figures of the first few hundred queries, not the steady state).
   */
  readonly cold: { readonly queries: number; readonly ours: number; readonly raw: number }
  readonly rounds: number
  readonly perRound: number
  readonly ours: Summary
  readonly seam: Summary
  readonly raw: Summary
  /** CPU time of the bench process (user + system) per query, ms: the client side's own work. */
  readonly cpuPerQuery: { readonly ours: number; readonly seam: number; readonly raw: number }
  /** Median of ours over median of the raw client, per round. */
  readonly medianRatioByRound: Summary
  /** Median of ours minus median of the raw client, per round, in ms. */
  readonly medianDifferenceByRound: Summary
  /** The layers above the host over a provider that answers at once (measured with the fake server's part). */
  readonly aboveHost?: AboveHost
}

// Long warm-ups: V8 keeps compiling the stack's code for the first few thousand queries (measured: on
// typescript-language-server the host's CPU per query halves between the first 500 and queries 2,500-3,000),
// while the raw client's little code is compiled within a few dozen.
const plan = (server: string, quick: boolean) =>
  server === "fake"
    ? { warmup: quick ? 50 : 3000, rounds: quick ? 2 : 10, perRound: quick ? 50 : 200 }
    : { warmup: quick ? 8 : 1500, rounds: quick ? 2 : 8, perRound: quick ? 8 : 24 }

/** How many of the first warm-up queries give the cold figures. */
const coldQueries = (warmup: number) => Math.min(100, warmup)

/** Rounds of ours, the raw client and the host alone, in rotating order, on the first workspace. */
export const measureLatency = async (contenders: Contenders, options: Options): Promise<LatencyPart> => {
  const { kind, ours } = contenders
  const workspace = contenders.workspaces[0]!
  const raw = contenders.raw[0]!
  const { perRound, rounds, warmup } = plan(kind.spec.name, options.quick)
  const coldCount = coldQueries(warmup)
  const oursWarmup = await ours.timed(workspace, kind.queries, warmup)
  await ours.timedSeam(workspace, kind.queries, warmup)
  const rawWarmup = await timedRaw(raw, kind.queries, warmup)
  const cold = {
    queries: coldCount,
    ours: median(oursWarmup.slice(0, coldCount)),
    raw: median(rawWarmup.slice(0, coldCount))
  }
  const samples = { ours: [] as Array<number>, seam: [] as Array<number>, raw: [] as Array<number> }
  const medians = { ours: [] as Array<number>, raw: [] as Array<number> }
  const cpu = { ours: 0, seam: 0, raw: 0 }
  const run = {
    ours: () => ours.timed(workspace, kind.queries, perRound),
    seam: () => ours.timedSeam(workspace, kind.queries, perRound),
    raw: () => timedRaw(raw, kind.queries, perRound)
  }
  const orders = [["ours", "raw", "seam"], ["raw", "seam", "ours"], ["seam", "ours", "raw"]] as const
  for (let round = 0; round < rounds; round++) {
    for (const contender of orders[round % orders.length]!) {
      const before = process.cpuUsage()
      const taken = await run[contender]()
      const used = process.cpuUsage(before)
      cpu[contender] += (used.user + used.system) / 1000
      samples[contender].push(...taken)
      if (contender !== "seam") medians[contender].push(median(taken))
    }
  }
  const aboveHost = kind.spec.name === "fake"
    ? await measureAboveHost({ warmup, count: options.quick ? 50 : 1000 })
    : undefined
  return {
    ...(aboveHost === undefined ? {} : { aboveHost }),
    label: kind.label,
    server: kind.spec.name,
    warmup,
    cold,
    rounds,
    perRound,
    ours: summarize(samples.ours),
    seam: summarize(samples.seam),
    raw: summarize(samples.raw),
    cpuPerQuery: {
      ours: cpu.ours / samples.ours.length,
      seam: cpu.seam / samples.seam.length,
      raw: cpu.raw / samples.raw.length
    },
    medianRatioByRound: pairedRatio(medians.ours, medians.raw),
    medianDifferenceByRound: summarize(medians.ours.map((value, i) => value - medians.raw[i]!))
  }
}

const row = (label: string, s: Summary, reference: Summary, cpu: number) => [
  label,
  ms(s.min),
  ms(s.median),
  ms(s.p99),
  ms(s.max),
  ratio(s.median / reference.median),
  ratio(s.p99 / reference.p99),
  ms(cpu)
]

const table = (part: LatencyPart): Table => ({
  caption: `${part.label}: ${part.rounds} rounds × ${part.perRound} queries per contender after ${part.warmup} ` +
    `warm-up queries each (${part.ours.n} timed queries each)`,
  columns: ["ms per query", "min", "median", "p99", "max", "median / raw", "p99 / raw", "client CPU / query"],
  rows: [
    row("ours: lsp tool → seam → host → server", part.ours, part.raw, part.cpuPerQuery.ours),
    row("host alone: LspService.query → host → server", part.seam, part.raw, part.cpuPerQuery.seam),
    row("raw client → server (reference)", part.raw, part.raw, part.cpuPerQuery.raw),
    [
      "ours − raw, per-round medians",
      ms(part.medianDifferenceByRound.min),
      ms(part.medianDifferenceByRound.median),
      "",
      ms(part.medianDifferenceByRound.max),
      ratioSummary(part.medianRatioByRound),
      "",
      ms(part.cpuPerQuery.ours - part.cpuPerQuery.raw)
    ]
  ]
})

/** Benchmark 2, from the parts measured on each server. */
export const latencySection = (parts: ReadonlyArray<LatencyPart>, options: Options): Section => {
  const targets: Array<Target> = []
  for (const part of parts) {
    if (part.server === "typescript") {
      const value = part.ours.median / part.raw.median
      targets.push({
        name: "median latency on typescript-language-server vs raw client",
        goal: "≤ 1.05×",
        measured: `${ratio(value)} (${ms(part.ours.median)} vs ${ms(part.raw.median)} ms; per round ${
          ratioSummary(part.medianRatioByRound)
        })`,
        pass: options.quick ? null : value <= 1.05,
        ...(value <= 1.05 ? {} : {
          note: `the stack adds ${ms(part.ours.median - part.raw.median)} ms per query, and uses ${
            ms(part.cpuPerQuery.ours - part.cpuPerQuery.raw)
          } ms more client CPU per query than the raw client`
        })
      })
    } else {
      const difference = part.ours.median - part.raw.median
      targets.push({
        name: "median latency on the fake server vs raw client",
        goal: "≤ +0.3 ms",
        measured: `+${ms(difference)} ms (${ms(part.ours.median)} vs ${ms(part.raw.median)} ms; ${
          ratio(part.ours.median / part.raw.median)
        })`,
        pass: options.quick ? null : difference <= 0.3,
        ...(difference <= 0.3 ? {} : {
          note: `CPU on the client side: ${ms(part.cpuPerQuery.ours)} ms per query for ours (the host alone ` +
            `${ms(part.cpuPerQuery.seam)}) against ${ms(part.cpuPerQuery.raw)} for the raw client`
        })
      })
    }
  }
  return {
    id: "latency",
    title: "2. Full-stack query latency",
    method: "One query at a time on one warm workspace. Ours runs the `lsp` tool handler " +
      "(`LspToolHandler.run`: argument validation, session workspace, 60 s budget, rendering) over `LspService` " +
      "and the stdio host with transient open. The reference is a minimal LSP client in plain Node written for " +
      "the bench (bench/support/rawClient.ts) on its own instance of the same server, sending the same " +
      "messages (same initialize, then didOpen / request / didClose per query, the file read from disk each " +
      "time) and doing nothing else. The host alone (the seam query without the tool) is shown to split the " +
      "overhead. Each contender first runs a long warm-up (thousands of queries on the fake server, 1,500 on " +
      "typescript-language-server): V8 compiles the stack's many small functions only as they get hot, so the " +
      "first queries cost more (shown in the notes); the timed rounds measure the steady state of a long-lived " +
      "host. Contenders alternate in rotating order, round by round, the same query sequence each. Client CPU " +
      "is the bench process's user + system time per query over the timed rounds, all its threads (V8's GC " +
      "helpers, libuv's pool); the servers' CPU is not in it.",
    tables: parts.map(table),
    notes: [
      ...parts.map((part) =>
        `${part.label}, the first ${part.cold.queries} warm-up queries (code not yet compiled by V8): ours ` +
        `${ms(part.cold.ours)} ms, raw ${ms(part.cold.raw)} ms median (${
          ratio(part.cold.ours / part.cold.raw)
        }); the timed rounds come after ${part.warmup} warm-up queries each.`
      ),
      ...parts.flatMap((part) =>
        part.aboveHost === undefined ? [] : [
          "Above the host, with no host and no server (an in-memory provider answers at once; medians per call " +
          `after the same warm-up): \`LspService.query\` ${ms(part.aboveHost.seam)} ms, the seam under the ` +
          `tool's deadline and time budget (\`budgetedQuery\`: the query on one child fiber, interrupted at its deadline by the one watcher of the Clock's cut-offs) ${
            ms(part.aboveHost.budgeted)
          } ms, the whole \`lsp\` tool call (validation, span, budget, rendering) ${ms(part.aboveHost.tool)} ms. ` +
          "Every query pays this, whatever serves it."
        ]
      )
    ],
    targets,
    data: parts.map((part) => ({
      ...part,
      ours: rounded(part.ours),
      seam: rounded(part.seam),
      raw: rounded(part.raw),
      medianRatioByRound: rounded(part.medianRatioByRound),
      medianDifferenceByRound: rounded(part.medianDifferenceByRound),
      cpuPerQuery: {
        ours: round(part.cpuPerQuery.ours, 4),
        seam: round(part.cpuPerQuery.seam, 4),
        raw: round(part.cpuPerQuery.raw, 4)
      }
    }))
  }
}
