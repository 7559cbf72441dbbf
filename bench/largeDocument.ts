/**
 * Benchmark 6, a 4 MB source document: query latency of ours against the raw client when every query
 * opens (and reads, checks, frames and sends) a document of exactly 4,000,000 bytes, the default
 * `maxDocumentBytes`.
 */
import { type Contenders, timedRaw } from "./support/contenders.js"
import type { Query } from "./support/rawClient.js"
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
  const samples = { ours: [] as Array<number>, raw: [] as Array<number> }
  const medians = { ours: [] as Array<number>, raw: [] as Array<number> }
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (["ours", "raw"] as const) : (["raw", "ours"] as const)
    for (const contender of order) {
      const taken = contender === "ours"
        ? await ours.timed(workspace, queries, perRound)
        : await timedRaw(raw, queries, perRound)
      samples[contender].push(...taken)
      medians[contender].push(median(taken))
    }
  }
  return {
    label: kind.label,
    server: kind.spec.name,
    bytes: documentBytes,
    rounds,
    perRound,
    ours: summarize(samples.ours),
    raw: summarize(samples.raw),
    medianRatioByRound: pairedRatio(medians.ours, medians.raw)
  }
}

const table = (part: LargeDocumentPart): Table => ({
  caption: `${part.label}: ${part.rounds} rounds × ${part.perRound} queries per contender (definition and hover ` +
    "on the last line), after 2 warm-up queries each",
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
    ["raw client → server (reference)", ms(part.raw.min), ms(part.raw.median), ms(part.raw.p99), ms(part.raw.max), ""]
  ]
})

export const largeDocumentSection = (parts: ReadonlyArray<LargeDocumentPart>): Section => ({
  id: "largeDocument",
  title: "6. A 4 MB source document",
  method: `A source file of exactly ${documentBytes.toLocaleString("en")} bytes (ASCII, the default ` +
    "maxDocumentBytes), queried with transient open: each query reads the whole file and sends it in didOpen. " +
    "Ours is the full stack (the host reads with its checks: realpath, regular file, size bound, no NUL in the " +
    "first 8 KiB, strict UTF-8); the raw client reads the file with one readFile. A workspace of its own, so " +
    "that the large file does not slow the other benchmarks' projects.",
  tables: parts.map(table),
  targets: [],
  data: parts.map((part) => ({
    ...part,
    ours: rounded(part.ours),
    raw: rounded(part.raw),
    medianRatioByRound: rounded(part.medianRatioByRound)
  }))
})
