/**
 * Benchmark 6, a 4 MB source document: query latency of ours against the raw client when every query
 * opens (and reads, checks, frames and sends) a document of exactly 4,000,000 bytes, the default
 * `maxDocumentBytes`; and, warm, ours with retained documents against a raw client that keeps the
 * document open.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { type Contenders, timedRaw } from "./support/contenders.js"
import { startOurs } from "./support/ours.js"
import * as Processes from "./support/processes.js"
import type { Query, RawClient } from "./support/rawClient.js"
import { ms, type Options, ratio, ratioSummary, type Section, type Table } from "./support/report.js"
import { median, pairedRatio, rounded, summarize, type Summary } from "./support/stats.js"

export const documentBytes = 4_000_000

/** Lines of `line(i)` up to `documentBytes` (ASCII), ending with `last`, padded with spaces to the exact size. */
const document = (line: (i: number) => string, last: string): { readonly text: string; readonly lastLine: number } => {
  const lines: Array<string> = []
  let size = last.length + 1
  for (let i = 0;; i++) {
    const next = line(i)
    if (size + next.length > documentBytes - 1) break
    lines.push(next)
    size += next.length
  }
  const body = lines.join("") + last
  return { text: body + " ".repeat(documentBytes - 1 - body.length) + "\n", lastLine: lines.length }
}

/** The document and queries for a server: a definition and a hover on its last line. */
const workload = (
  server: string
): { readonly file: string; readonly text: string; readonly queries: ReadonlyArray<Query> } => {
  if (server === "fake") {
    const { lastLine, text } = document((i) => `let value${i} = ${i % 1000}\n`, "value0\n")
    return {
      file: "big.fake",
      text,
      queries: [
        { operation: "goToDefinition", file: "big.fake", position: { line: lastLine, character: 2 } },
        { operation: "hover", file: "big.fake", position: { line: lastLine, character: 2 } }
      ]
    }
  }
  const { lastLine, text } = document(
    (i) => `export function f${i}(a: number): number { return a + ${i % 1000} }\n`,
    "export const total = f0(1) + f1(2)\n"
  )
  return {
    file: "big.ts",
    text,
    queries: [
      { operation: "goToDefinition", file: "big.ts", position: { line: lastLine, character: 22 } },
      { operation: "hover", file: "big.ts", position: { line: lastLine, character: 29 } }
    ]
  }
}

export interface LargeDocumentPart {
  readonly label: string
  readonly server: string
  readonly bytes: number
  readonly rounds: number
  readonly perRound: number
  readonly ours: Summary
  readonly raw: Summary
  readonly medianRatioByRound: Summary
  /** Warm: ours with `documentSync: "retained"` and the raw client keeping the document open. */
  readonly warmRounds: number
  readonly warmPerRound: number
  readonly warmup: number
  readonly retained: Summary
  readonly rawKeepOpen: Summary
  readonly retainedRatioByRound: Summary
}

/** Runs `count` keep-open queries through a raw client (the document is opened by the first only). */
const timedKeepOpen = async (client: RawClient, queries: ReadonlyArray<Query>, count: number) => {
  const samples: Array<number> = []
  for (let i = 0; i < count; i++) {
    const start = performance.now()
    await client.queryKeepOpen(queries[i % queries.length]!)
    samples.push(performance.now() - start)
  }
  return samples
}

/** Alternates the two contenders round by round; every sample, and the median of each round. */
const interleaved = async (
  rounds: number,
  run: { readonly ours: () => Promise<Array<number>>; readonly raw: () => Promise<Array<number>> }
) => {
  const samples = { ours: [] as Array<number>, raw: [] as Array<number> }
  const medians = { ours: [] as Array<number>, raw: [] as Array<number> }
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (["ours", "raw"] as const) : (["raw", "ours"] as const)
    for (const contender of order) {
      const taken = await run[contender]()
      samples[contender].push(...taken)
      medians[contender].push(median(taken))
    }
  }
  return { ours: summarize(samples.ours), raw: summarize(samples.raw), ratio: pairedRatio(medians.ours, medians.raw) }
}

const plan = (server: string, quick: boolean) =>
  server === "fake"
    ? { warmup: 2, rounds: quick ? 1 : 8, perRound: quick ? 2 : 4 }
    : { warmup: 2, rounds: quick ? 1 : 4, perRound: 2 }

/** On a workspace of its own (ours and the raw client each start a server there). */
export const measureLargeDocument = async (contenders: Contenders, options: Options): Promise<LargeDocumentPart> => {
  const { kind, ours } = contenders
  const { file, queries, text } = workload(kind.spec.name)
  if (Buffer.byteLength(text) !== documentBytes) throw new Error(`${file} is ${Buffer.byteLength(text)} bytes`)
  const workspace = kind.workspace({ [file]: text })
  const raw = await contenders.addRaw(workspace)
  const { perRound, rounds, warmup } = plan(kind.spec.name, options.quick)
  await ours.timed(workspace, queries, warmup)
  await timedRaw(raw, queries, warmup)
  await contenders.track()
  const cold = await interleaved(rounds, {
    ours: () => ours.timed(workspace, queries, perRound),
    raw: () => timedRaw(raw, queries, perRound)
  })
  // Warm: each on a server of its own. The file is dated a minute back, as a file nobody is editing is: a
  // file modified within the last two seconds is always read again in retained mode.
  const past = new Date(Date.now() - 60_000)
  Fs.utimesSync(Path.join(workspace, file), past, past)
  const retainedHost = await startOurs(kind.spec, { documentSync: "retained" })
  try {
    const keepOpen = await contenders.addRaw(workspace)
    const warmPlan = {
      warmup: options.quick ? 4 : 500,
      rounds: options.quick ? 1 : 8,
      perRound: options.quick ? 4 : 40
    }
    // A long warm-up, as in the latency benchmarks: V8 compiles the stack's code only once it is hot.
    await retainedHost.timed(workspace, queries, warmPlan.warmup)
    await timedKeepOpen(keepOpen, queries, warmPlan.warmup)
    Processes.track(await retainedHost.pids())
    const warm = await interleaved(warmPlan.rounds, {
      ours: () => retainedHost.timed(workspace, queries, warmPlan.perRound),
      raw: () => timedKeepOpen(keepOpen, queries, warmPlan.perRound)
    })
    return {
      label: kind.label,
      server: kind.spec.name,
      bytes: documentBytes,
      rounds,
      perRound,
      ours: cold.ours,
      raw: cold.raw,
      medianRatioByRound: cold.ratio,
      warmRounds: warmPlan.rounds,
      warmPerRound: warmPlan.perRound,
      warmup: warmPlan.warmup,
      retained: warm.ours,
      rawKeepOpen: warm.raw,
      retainedRatioByRound: warm.ratio
    }
  } finally {
    await retainedHost.dispose()
  }
}

const table = (part: LargeDocumentPart): Table => ({
  caption: `${part.label}: ${part.rounds} rounds × ${part.perRound} queries per contender (definition and hover ` +
    `on the last line), after 2 warm-up queries each; warm: ${part.warmRounds} rounds × ${part.warmPerRound} ` +
    `queries per contender after ${part.warmup} warm-up queries each`,
  columns: ["ms per query", "min", "median", "p99", "max", "median / raw"],
  rows: [
    [
      "ours: lsp tool → seam → host → server",
      ms(part.ours.min),
      ms(part.ours.median),
      ms(part.ours.p99),
      ms(part.ours.max),
      `${ratio(part.ours.median / part.raw.median)}; per round ${ratioSummary(part.medianRatioByRound)}`
    ],
    ["raw client → server (reference)", ms(part.raw.min), ms(part.raw.median), ms(part.raw.p99), ms(part.raw.max), ""],
    [
      "warm: ours, retained documents",
      ms(part.retained.min),
      ms(part.retained.median),
      ms(part.retained.p99),
      ms(part.retained.max),
      `${ratio(part.retained.median / part.rawKeepOpen.median)} raw keep-open; per round ${
        ratioSummary(part.retainedRatioByRound)
      }`
    ],
    [
      "warm: raw client keeping the document open (reference)",
      ms(part.rawKeepOpen.min),
      ms(part.rawKeepOpen.median),
      ms(part.rawKeepOpen.p99),
      ms(part.rawKeepOpen.max),
      ""
    ]
  ]
})

export const largeDocumentSection = (parts: ReadonlyArray<LargeDocumentPart>): Section => ({
  id: "largeDocument",
  title: "6. A 4 MB source document",
  method: `A source file of exactly ${documentBytes.toLocaleString("en")} bytes (ASCII, the default ` +
    "maxDocumentBytes), queried with transient open: each query reads the whole file and sends it in didOpen. " +
    "Ours is the full stack (the host reads with its checks: realpath, regular file, size bound, no NUL in the " +
    "first 8 KiB, strict UTF-8); the raw client reads the file with one readFile. A workspace of its own, so " +
    "that the large file does not slow the other benchmarks' projects. Warm: ours with `documentSync: " +
    "\"retained\"` (a host of its own) against a raw client that opens the document once and then only sends " +
    "requests, each on a server of its own, the file dated a minute back (nobody editing it); ours checks it " +
    "with a stat per query and reads it only when it changed.",
  tables: parts.map(table),
  targets: [],
  data: parts.map((part) => ({
    ...part,
    ours: rounded(part.ours),
    raw: rounded(part.raw),
    medianRatioByRound: rounded(part.medianRatioByRound),
    retained: rounded(part.retained),
    rawKeepOpen: rounded(part.rawKeepOpen),
    retainedRatioByRound: rounded(part.retainedRatioByRound)
  }))
})
