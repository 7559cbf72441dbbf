/**
 * Benchmark 9, retained documents: the warm latency of ours with `documentSync: "retained"` against the
 * server's own keep-open latency (a raw client that opens each file once and then only sends requests),
 * with both transient contenders alongside so that the cost of an open per query is visible. On
 * typescript-language-server and on clangd (a generated 300-line C++ file and the fixture's small one).
 */
import type { LspResult } from "@lsp-seam/lsp"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { type OursHost, startOurs } from "./support/ours.js"
import * as Processes from "./support/processes.js"
import { type Query, RawClient, type ServerSpec } from "./support/rawClient.js"
import { ms, type Options, ratio, ratioSummary, type Section, type Table, type Target } from "./support/report.js"
import * as Servers from "./support/servers.js"
import { median, pairedRatio, round, rounded, summarize, type Summary } from "./support/stats.js"

const contenderNames = ["retained", "rawKeepOpen", "transient", "rawTransient"] as const
type ContenderName = typeof contenderNames[number]

const describe: Record<ContenderName, string> = {
  retained: "ours, retained: lsp tool → seam → host (documentSync \"retained\") → server",
  rawKeepOpen: "raw client, keep-open: didOpen once, then requests (reference)",
  transient: "ours, transient: lsp tool → seam → host (didOpen / request / didClose) → server",
  rawTransient: "raw client, transient: didOpen / request / didClose"
}

/** One contender on its own server instance and its own copy of the workspace. */
interface Contender {
  readonly name: ContenderName
  readonly workspace: string
  /** Runs `count` queries one after another, cycling through `queries` from `offset`; ms per query. */
  readonly run: (queries: ReadonlyArray<Query>, count: number, offset: number) => Promise<Array<number>>
  /** The answer to one query, in a form comparable across contenders and workspaces. */
  readonly answer: (query: Query) => Promise<string>
}

interface Plan {
  /** Warm-up queries per keep-open contender, after the answers have settled. */
  readonly warmup: number
  readonly rounds: number
  readonly perRound: number
  /** The transient contenders run in the first `transientRounds` rounds only: an open can cost a second. */
  readonly transientRounds: number
  readonly transientPerRound: number
}

interface PartSpec {
  readonly label: string
  readonly target: string
  readonly queries: ReadonlyArray<Query>
  readonly plan: (quick: boolean) => Plan
}

interface ServerGroup {
  readonly label: string
  readonly spec: ServerSpec
  /** Further fields of the host's server configuration (the preset's readiness). */
  readonly hostOptions: Readonly<Record<string, unknown>>
  readonly workspace: () => string
  readonly parts: ReadonlyArray<PartSpec>
  /** Why the group cannot run here, or `null`. */
  readonly unavailable: () => string | null
}

export interface RetainedPart {
  readonly label: string
  readonly target: string
  readonly plan: Plan
  /** Passes over every query of the group until all four contenders gave equal answers twice in a row. */
  readonly settlePasses: number
  /** Medians of the first warm-up queries of the keep-open contenders, before V8 compiled the stack's code. */
  readonly cold: { readonly queries: number; readonly retained: number; readonly rawKeepOpen: number }
  readonly summaries: Record<ContenderName, Summary>
  /** Client CPU (bench process, user + system) per query, ms. */
  readonly cpuPerQuery: Record<ContenderName, number>
  /** Median of ours retained over median of the raw keep-open client, per round. */
  readonly retainedRatioByRound: Summary
  /** Median of ours transient over median of the raw transient client, per transient round. */
  readonly transientRatioByRound: Summary
}

export interface RetainedResult {
  readonly parts: ReadonlyArray<RetainedPart>
  /** Targets that could not be measured here, and why. */
  readonly notMeasured: ReadonlyArray<{ readonly target: string; readonly reason: string }>
}

const typescriptGroup: ServerGroup = {
  label: "typescript-language-server",
  spec: Servers.typescriptServer,
  hostOptions: {},
  workspace: () => Servers.typescriptWorkspace(),
  unavailable: () => null,
  parts: [{
    label: "typescript-language-server, the fixture project",
    target: "typescript",
    queries: Servers.typescriptQueries,
    plan: (quick) => ({
      warmup: quick ? 8 : 1500,
      rounds: quick ? 2 : 8,
      perRound: quick ? 8 : 24,
      transientRounds: quick ? 2 : 8,
      transientPerRound: quick ? 8 : 24
    })
  }]
}

const clangdGroup: ServerGroup = {
  label: "clangd",
  spec: Servers.clangdServer,
  hostOptions: Servers.clangdHostOptions,
  workspace: Servers.clangdWorkspace,
  unavailable: () => Servers.clangdInstalled() ? null : `clangd not found (${Servers.clangdServer.command})`,
  parts: [
    {
      label: `clangd, the generated 300-line ${Servers.clangdLargeFile}`,
      target: "clangd, 300-line file",
      queries: Servers.clangdLargeQueries,
      plan: (quick) => ({
        warmup: quick ? 5 : 1500,
        rounds: quick ? 2 : 8,
        perRound: quick ? 5 : 25,
        transientRounds: quick ? 1 : 3,
        transientPerRound: 4
      })
    },
    {
      label: "clangd, the fixture's 16-line main.cpp",
      target: "clangd, small file",
      queries: Servers.clangdSmallQueries,
      plan: (quick) => ({
        warmup: quick ? 4 : 1500,
        rounds: quick ? 2 : 8,
        perRound: quick ? 8 : 24,
        transientRounds: quick ? 1 : 3,
        transientPerRound: 8
      })
    }
  ]
}

const sleep = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis))

const relative = (workspace: string, uri: string) => Path.relative(workspace, fileURLToPath(uri))

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/** `path:line:character` of a Location or a LocationLink (its target selection), as the host normalises it. */
const rawLocation = (workspace: string, entry: unknown): string => {
  if (!isRecord(entry)) return "?"
  const uri = typeof entry.targetUri === "string" ? entry.targetUri : entry.uri
  const range = "targetSelectionRange" in entry ? entry.targetSelectionRange : entry.range
  const start = isRecord(range) && isRecord(range.start) ? range.start : {}
  return typeof uri === "string" ? `${relative(workspace, uri)}:${start.line}:${start.character}` : "?"
}

const rawAnswer = (workspace: string, query: Query, result: unknown): string => {
  if (query.operation === "hover") return isRecord(result) && result.contents !== undefined ? "hover" : "no hover"
  const entries = result === null || result === undefined ? [] : Array.isArray(result) ? result : [result]
  return entries.map((entry) => rawLocation(workspace, entry)).sort().join(" ")
}

const oursAnswer = (workspace: string, result: LspResult.LspQueryResult): string =>
  result.kind === "hover"
    ? result.hover === null ? "no hover" : "hover"
    : result.kind === "locations"
    ? result.locations.map((location) =>
      `${relative(workspace, location.uri)}:${location.range.start.line}:${location.range.start.character}`
    ).sort().join(" ")
    : `a ${result.kind} answer`

const oursContender = (name: ContenderName, host: OursHost, workspace: string): Contender => ({
  name,
  workspace,
  run: (queries, count, offset) => host.timed(workspace, queries, count, offset),
  answer: async (query) => oursAnswer(workspace, await host.answer(workspace, query))
})

const rawContender = (name: ContenderName, client: RawClient, keepOpen: boolean): Contender => {
  const ask = (query: Query) => keepOpen ? client.queryKeepOpen(query) : client.query(query)
  return {
    name,
    workspace: client.workspace,
    run: async (queries, count, offset) => {
      const samples: Array<number> = []
      for (let i = 0; i < count; i++) {
        const query = queries[(offset + i) % queries.length]!
        const start = performance.now()
        await ask(query)
        samples.push(performance.now() - start)
      }
      return samples
    },
    answer: async (query) => rawAnswer(client.workspace, query, await ask(query))
  }
}

/**
 * Asks every query of the group through the contenders, pass after pass, until all four give the same
 * answers and the keep-open ones the same as in the pass before: clangd builds its preamble and background
 * index after the first open, and until then its answers change. The transient contenders (a clangd open
 * can cost a second) take part in the first pass, which starts every server's indexing, and in the
 * confirming last one. Fails when the answers do not settle within the budget.
 */
const settle = async (
  contenders: ReadonlyArray<Contender>,
  queries: ReadonlyArray<Query>,
  budgetMs: number
): Promise<number> => {
  const deadline = performance.now() + budgetMs
  const keepOpen = contenders.filter((contender) => contender.name === "retained" || contender.name === "rawKeepOpen")
  let previous: string | undefined
  let confirming = false
  for (let pass = 1;; pass++) {
    const asked: ReadonlyArray<Contender> = pass === 1 || confirming ? contenders : keepOpen
    // Untimed, and each contender has its own server: ask them all at once.
    const answers: Array<string> = await Promise.all(asked.map(async (contender) => {
      const own: Array<string> = []
      for (const query of queries) own.push(await contender.answer(query))
      return own.join("\n")
    }))
    const agreed = answers.every((answer) => answer === answers[0])
    const stable = agreed && answers[0] === previous
    if (confirming && stable) return pass
    if (performance.now() > deadline) {
      const listing = asked.map((contender, i) => `${contender.name}:\n${answers[i]}`).join("\n")
      throw new Error(`answers did not settle after ${pass} passes:\n${listing}`)
    }
    confirming = !confirming && stable
    if (!confirming) previous = agreed ? answers[0] : undefined
    await sleep(500)
  }
}

const measurePart = async (
  part: PartSpec,
  contenders: Record<ContenderName, Contender>,
  settlePasses: number,
  options: Options
): Promise<RetainedPart> => {
  const plan = part.plan(options.quick)
  // Long warm-ups: V8 compiles the stack's many small functions only as they get hot, over the first
  // thousand queries or so; the raw client's little code is compiled within a few dozen.
  const retainedWarmup = await contenders.retained.run(part.queries, plan.warmup, 0)
  const rawWarmup = await contenders.rawKeepOpen.run(part.queries, plan.warmup, 0)
  const coldCount = Math.min(100, plan.warmup)
  const cold = {
    queries: coldCount,
    retained: median(retainedWarmup.slice(0, coldCount)),
    rawKeepOpen: median(rawWarmup.slice(0, coldCount))
  }
  const samples: Record<ContenderName, Array<number>> = {
    retained: [],
    rawKeepOpen: [],
    transient: [],
    rawTransient: []
  }
  const medians: Record<ContenderName, Array<number>> = {
    retained: [],
    rawKeepOpen: [],
    transient: [],
    rawTransient: []
  }
  const cpu: Record<ContenderName, number> = { retained: 0, rawKeepOpen: 0, transient: 0, rawTransient: 0 }
  // The keep-open pair first, then the transient pair: each open makes a server work on in the background
  // (diagnostics, re-parsing), which would land in the keep-open figures of the same round.
  const rounds = [
    ...Array.from({ length: plan.rounds }, (_, r) => ({ r, active: contenderNames.slice(0, 2) })),
    ...Array.from({ length: plan.transientRounds }, (_, r) => ({ r, active: contenderNames.slice(2) }))
  ]
  for (const { active, r } of rounds) {
    // Rotating order, so that neither contender always runs right after the other's server did its work.
    const order = active.map((_, i) => active[(i + r) % active.length]!)
    for (const name of order) {
      const transient = name === "transient" || name === "rawTransient"
      const count = transient ? plan.transientPerRound : plan.perRound
      const before = process.cpuUsage()
      const taken = await contenders[name].run(part.queries, count, r * count)
      const used = process.cpuUsage(before)
      cpu[name] += (used.user + used.system) / 1000
      samples[name].push(...taken)
      medians[name].push(median(taken))
    }
  }
  const summaries = {
    retained: summarize(samples.retained),
    rawKeepOpen: summarize(samples.rawKeepOpen),
    transient: summarize(samples.transient),
    rawTransient: summarize(samples.rawTransient)
  }
  return {
    label: part.label,
    target: part.target,
    plan,
    settlePasses,
    cold,
    summaries,
    cpuPerQuery: {
      retained: cpu.retained / summaries.retained.n,
      rawKeepOpen: cpu.rawKeepOpen / summaries.rawKeepOpen.n,
      transient: cpu.transient / summaries.transient.n,
      rawTransient: cpu.rawTransient / summaries.rawTransient.n
    },
    retainedRatioByRound: pairedRatio(medians.retained, medians.rawKeepOpen),
    transientRatioByRound: pairedRatio(medians.transient, medians.rawTransient)
  }
}

/** Starts the four contenders of a group, each on a fresh workspace, lets them settle, measures its parts. */
const measureGroup = async (group: ServerGroup, options: Options): Promise<Array<RetainedPart>> => {
  const retainedHost = await startOurs(group.spec, { ...group.hostOptions, documentSync: "retained" })
  const transientHost = await startOurs(group.spec, { ...group.hostOptions, documentSync: "transient" })
  const clients: Array<RawClient> = []
  const track = async () => {
    Processes.track([...await retainedHost.pids(), ...await transientHost.pids(), ...clients.map((c) => c.pid)])
  }
  try {
    const start = async (workspace: string) => {
      const client = await RawClient.start(group.spec, workspace)
      clients.push(client)
      Processes.track([client.pid])
      return client
    }
    const contenders: Record<ContenderName, Contender> = {
      retained: oursContender("retained", retainedHost, group.workspace()),
      rawKeepOpen: rawContender("rawKeepOpen", await start(group.workspace()), true),
      transient: oursContender("transient", transientHost, group.workspace()),
      rawTransient: rawContender("rawTransient", await start(group.workspace()), false)
    }
    const all = contenderNames.map((name) => contenders[name])
    const settlePasses = await settle(all, group.parts.flatMap((part) => part.queries), 120_000)
    await track()
    const parts: Array<RetainedPart> = []
    for (const part of group.parts) parts.push(await measurePart(part, contenders, settlePasses, options))
    return parts
  } finally {
    await track().catch(() => undefined)
    await Promise.allSettled([retainedHost.dispose(), transientHost.dispose(), ...clients.map((c) => c.close())])
  }
}

/** Benchmark 9: every group whose server is installed. */
export const measureRetained = async (
  options: Options,
  log: (message: string) => void = () => {}
): Promise<RetainedResult> => {
  const parts: Array<RetainedPart> = []
  const notMeasured: Array<{ target: string; reason: string }> = []
  for (const group of [typescriptGroup, clangdGroup]) {
    const reason = group.unavailable()
    if (reason !== null) {
      for (const part of group.parts) notMeasured.push({ target: part.target, reason })
      continue
    }
    const start = performance.now()
    parts.push(...await measureGroup(group, options))
    log(`retained, ${group.label}: ${((performance.now() - start) / 1000).toFixed(1)} s`)
  }
  return { parts, notMeasured }
}

const row = (part: RetainedPart, name: ContenderName) => {
  const s = part.summaries[name]
  const reference = name === "transient" || name === "rawTransient"
    ? part.summaries.rawTransient
    : part.summaries.rawKeepOpen
  return [
    describe[name],
    String(s.n),
    ms(s.min),
    ms(s.median),
    ms(s.p99),
    ms(s.max),
    ratio(s.median / part.summaries.rawKeepOpen.median),
    ratio(s.median / reference.median),
    ms(part.cpuPerQuery[name])
  ]
}

const blank = (count: number): Array<string> => Array.from({ length: count }, () => "")

const table = (part: RetainedPart): Table => ({
  caption: `${part.label}: ${part.plan.rounds} rounds × ${part.plan.perRound} queries for the keep-open ` +
    `contenders after ${part.plan.warmup} warm-up queries each, ${part.plan.transientRounds} rounds × ` +
    `${part.plan.transientPerRound} for the transient ones; answers settled after ${part.settlePasses} passes`,
  columns: [
    "ms per query",
    "n",
    "min",
    "median",
    "p99",
    "max",
    "median / raw keep-open",
    "median / raw of the same mode",
    "client CPU / query"
  ],
  rows: [
    ...contenderNames.map((name) => row(part, name)),
    [
      "ours retained / raw keep-open, per-round medians",
      ...blank(5),
      ratioSummary(part.retainedRatioByRound),
      ...blank(2)
    ],
    [
      "ours transient / raw transient, per-round medians",
      ...blank(6),
      ratioSummary(part.transientRatioByRound),
      ...blank(1)
    ]
  ]
})

const goal = 1.2

const target = (part: RetainedPart, options: Options): Target => {
  const { rawKeepOpen, rawTransient, retained, transient } = part.summaries
  const paired = part.retainedRatioByRound
  return {
    name: `retained warm latency vs raw keep-open, ${part.target}`,
    goal: `≤ ${goal}×`,
    measured: `${ratioSummary(paired)} per round (${ms(retained.median)} vs ${ms(rawKeepOpen.median)} ms)`,
    pass: options.quick ? null : paired.median <= goal,
    note: `transient per query: ours ${ms(transient.median)} ms, raw ${ms(rawTransient.median)} ms ` +
      `(raw transient is ${ratio(rawTransient.median / rawKeepOpen.median)} raw keep-open; ours transient is ` +
      `${ratio(transient.median / retained.median)} ours retained); ours retained adds ` +
      `${ms(retained.median - rawKeepOpen.median)} ms and ${
        ms(part.cpuPerQuery.retained - part.cpuPerQuery.rawKeepOpen)
      } ms client CPU per query`
  }
}

/** Benchmark 9, from the parts measured. */
export const retainedSection = (result: RetainedResult, options: Options): Section => ({
  id: "retained",
  title: "9. Retained documents: warm latency against the server's keep-open latency",
  method: "One query at a time. Four contenders, each on its own server instance and its own copy of the " +
    "workspace: ours with `documentSync: \"retained\"` (`LspToolHandler.run` → `LspService` → the stdio host, " +
    "which before every query checks each retained document of the workspace against the disk — size, mtime, " +
    "content hash of the queried file — and resyncs what changed); the raw client in keep-open mode, which " +
    "opens each file once and then sends only requests (the server's own warm latency: the physical limit); " +
    "and, to show what an open per query costs, ours in transient mode and the raw client in transient mode " +
    "(didOpen / request / didClose). Before timing, every query of the server is asked through every " +
    "contender, pass after pass, until all four give equal answers (locations by path, line and character; " +
    "hover present or not) and the keep-open ones the same twice in a row (the transient ones take part in the " +
    "first and the last pass): clangd answers from its preamble and background index only once built. The " +
    "keep-open contenders then run 1,500 warm-up queries each: V8 compiles the stack's code only as it gets " +
    "hot, so the first queries cost more (see the notes), and the timed rounds measure the steady state of a " +
    "long-lived host. The keep-open pair's rounds come first, then the transient pair's (each open sets a " +
    "server working in the background, which would land in the keep-open figures of the same round); within a " +
    "pair, rounds alternate the two in rotating order with the same query sequence. The transient pair runs " +
    "fewer rounds and queries (a clangd open re-parses the file and its headers). clangd is /usr/bin/clangd with the CLI " +
    "preset's arguments (none) and readiness (`quietMs` 500); its workspace is the compat fixture with " +
    "absolute compile commands plus a generated 300-line C++ file including standard headers. The ratio " +
    "judged is the median of the per-round ratios of medians.",
  tables: result.parts.map(table),
  notes: result.parts.map((part) =>
    `${part.label}, the first ${part.cold.queries} warm-up queries of the keep-open contenders: ours retained ` +
    `${ms(part.cold.retained)} ms, raw keep-open ${ms(part.cold.rawKeepOpen)} ms median (${
      ratio(part.cold.retained / part.cold.rawKeepOpen)
    }).`
  ),
  targets: [
    ...result.parts.map((part) => target(part, options)),
    ...result.notMeasured.map(({ reason, target }) => ({
      name: `retained warm latency vs raw keep-open, ${target}`,
      goal: `≤ ${goal}×`,
      measured: `not measured: ${reason}`,
      pass: null
    }))
  ],
  data: {
    parts: result.parts.map((part) => ({
      ...part,
      summaries: {
        retained: rounded(part.summaries.retained),
        rawKeepOpen: rounded(part.summaries.rawKeepOpen),
        transient: rounded(part.summaries.transient),
        rawTransient: rounded(part.summaries.rawTransient)
      },
      cpuPerQuery: {
        retained: round(part.cpuPerQuery.retained, 4),
        rawKeepOpen: round(part.cpuPerQuery.rawKeepOpen, 4),
        transient: round(part.cpuPerQuery.transient, 4),
        rawTransient: round(part.cpuPerQuery.rawTransient, 4)
      },
      retainedRatioByRound: rounded(part.retainedRatioByRound),
      transientRatioByRound: rounded(part.transientRatioByRound)
    })),
    notMeasured: result.notMeasured
  }
})
