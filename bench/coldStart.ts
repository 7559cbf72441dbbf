/**
 * Benchmark 4, cold start: from nothing running to the first answer. Ours builds the host Layer and runs
 * the first `lsp` tool call (which spawns and initialises the server, then queries it); the reference
 * spawns the server itself, initialises it, and sends the same first query.
 */
import type { ServerKind } from "./support/contenders.js"
import { startOurs } from "./support/ours.js"
import * as Processes from "./support/processes.js"
import { RawClient } from "./support/rawClient.js"
import { ms, type Options, ratioSummary, type Section, type Table } from "./support/report.js"
import { pairedRatio, rounded, summarize, type Summary } from "./support/stats.js"

export interface ColdStartPart {
  readonly label: string
  readonly server: string
  readonly runs: number
  /** Host Layer built → first answer, ms. */
  readonly ours: Summary
  /** Of which: building the host Layer (validation, executable lookup), ms. */
  readonly oursLayer: Summary
  /** Raw spawn → initialize answered, ms. */
  readonly rawInitialize: Summary
  /** Raw spawn → initialize → first answer, ms. */
  readonly rawFirstAnswer: Summary
  readonly oursOverRawFirstAnswer: Summary
  readonly oursOverRawInitialize: Summary
  /** Closing the host: shutdown, exit, process tree gone, ms. */
  readonly oursTeardown: Summary
  readonly rawTeardown: Summary
}

const plan = (server: string, quick: boolean) => server === "fake" ? { runs: quick ? 2 : 8 } : { runs: quick ? 1 : 4 }

export const measureColdStart = async (kind: ServerKind, options: Options): Promise<ColdStartPart> => {
  const workspace = kind.workspace()
  const query = kind.queries[0]!
  const { runs } = plan(kind.spec.name, options.quick)
  const samples = {
    ours: [] as Array<number>,
    oursLayer: [] as Array<number>,
    rawInitialize: [] as Array<number>,
    rawFirstAnswer: [] as Array<number>,
    oursTeardown: [] as Array<number>,
    rawTeardown: [] as Array<number>
  }
  const ours = async (record: boolean) => {
    const start = performance.now()
    const host = await startOurs(kind.spec)
    const built = performance.now()
    try {
      await host.timed(workspace, [query], 1)
      const answered = performance.now()
      Processes.track(await host.pids())
      if (record) {
        samples.ours.push(answered - start)
        samples.oursLayer.push(built - start)
      }
    } finally {
      const closing = performance.now()
      await host.dispose()
      if (record) samples.oursTeardown.push(performance.now() - closing)
    }
  }
  const raw = async (record: boolean) => {
    const start = performance.now()
    const client = await RawClient.start(kind.spec, workspace)
    const initialized = performance.now()
    Processes.track([client.pid])
    try {
      await client.query(query)
      const answered = performance.now()
      if (record) {
        samples.rawInitialize.push(initialized - start)
        samples.rawFirstAnswer.push(answered - start)
      }
    } finally {
      const closing = performance.now()
      await client.close()
      if (record) samples.rawTeardown.push(performance.now() - closing)
    }
  }
  // One unrecorded run of each warms the file cache and the bench's own code paths.
  for (let run = -1; run < runs; run++) {
    if (run % 2 === 0) {
      await ours(run >= 0)
      await raw(run >= 0)
    } else {
      await raw(run >= 0)
      await ours(run >= 0)
    }
  }
  return {
    label: kind.label,
    server: kind.spec.name,
    runs,
    ours: summarize(samples.ours),
    oursLayer: summarize(samples.oursLayer),
    rawInitialize: summarize(samples.rawInitialize),
    rawFirstAnswer: summarize(samples.rawFirstAnswer),
    oursOverRawFirstAnswer: pairedRatio(samples.ours, samples.rawFirstAnswer),
    oursOverRawInitialize: pairedRatio(samples.ours, samples.rawInitialize),
    oursTeardown: summarize(samples.oursTeardown),
    rawTeardown: summarize(samples.rawTeardown)
  }
}

const row = (label: string, s: Summary, paired = "") => [label, ms(s.min), ms(s.median), ms(s.max), paired]

const table = (part: ColdStartPart): Table => ({
  caption: `${part.label}: ${part.runs} runs after one warm-up run, order alternating`,
  columns: ["ms", "min", "median", "max", "ours / this (paired)"],
  rows: [
    row("ours: host Layer → first tool answer", part.ours),
    row("  of which building the host Layer", part.oursLayer),
    row(
      "raw: spawn → initialize → first answer (same sequence)",
      part.rawFirstAnswer,
      ratioSummary(part.oursOverRawFirstAnswer)
    ),
    row("raw: spawn → initialize answered", part.rawInitialize, ratioSummary(part.oursOverRawInitialize)),
    row("ours: closing the host (server tree gone)", part.oursTeardown),
    row("raw: shutdown, exit, process gone", part.rawTeardown)
  ]
})

export const coldStartSection = (parts: ReadonlyArray<ColdStartPart>): Section => ({
  id: "coldStart",
  title: "4. Cold start",
  method: "Each run starts from nothing: ours builds the host Layer (config validation, executable lookup) and " +
    "runs the first `lsp` tool call, which spawns the server, initialises it, waits for its startup work to " +
    "settle where the host's readiness rules say so, and answers; the raw client spawns the same server, " +
    "initialises it and sends the same first query, without any readiness wait. Both are torn down after each " +
    "run (teardown shown separately, not in the start figures). The issue's reference, raw spawn + initialize, " +
    "is shown too; it leaves out the first query, which on typescript-language-server includes loading the " +
    "project.",
  tables: parts.map(table),
  targets: [],
  data: parts.map((part) => ({
    ...part,
    ours: rounded(part.ours),
    oursLayer: rounded(part.oursLayer),
    rawInitialize: rounded(part.rawInitialize),
    rawFirstAnswer: rounded(part.rawFirstAnswer),
    oursOverRawFirstAnswer: rounded(part.oursOverRawFirstAnswer),
    oursOverRawInitialize: rounded(part.oursOverRawInitialize),
    oursTeardown: rounded(part.oursTeardown),
    rawTeardown: rounded(part.rawTeardown)
  }))
})
