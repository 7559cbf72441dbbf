/**
 * Benchmark 16, a cross-project question by a deadline (issue 41): on a generated monorepo of many tsconfig
 * projects (a `core` package and user packages that each use it, `packages/lsp-stdio/test/support/
 * generatedMonorepo.ts`), findReferences of core's `makeWidget` asked cold — a fresh server each time — through
 * the `lsp` tool with a budget that ends before the server can load every project, and with the default budget;
 * against raw typescript-language-server opening the defining file and asking `textDocument/references`, which
 * searches only the projects tsserver has loaded: the defining one.
 */
import { LspResult } from "@lsp-seam/lsp"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import * as Generated from "../packages/lsp-stdio/test/support/generatedMonorepo.js"
import { typescript as typescriptPreset } from "../packages/setup/src/LspPresets.js"
import { startOurs } from "./support/ours.js"
import * as Processes from "./support/processes.js"
import { type Query, RawClient } from "./support/rawClient.js"
import { ms, type Options, ratioSummary, type Section } from "./support/report.js"
import { typescriptServer } from "./support/servers.js"
import { loadAverage, pairedRatio, rounded, summarize, type Summary } from "./support/stats.js"

/** The budget that ends before every project is loaded, and the tool's default. */
const shortBudgetMs = 5_000
const defaultBudgetMs = 60_000
/** How long the short-budget host is asked again for the complete answer, at most (from its start). */
const completeWithinMs = 90_000

const plan = (quick: boolean) =>
  quick ? { projects: 40, filesPerProject: 5, rounds: 1 } : { projects: 80, filesPerProject: 40, rounds: 3 }

/**
 * The TypeScript preset's settings for a workspace of several projects, with room for all of them: the preset
 * loads at most 20 (`maxProjects`), which would flag the rest `projects-not-searched` whatever the deadline.
 */
const hostOptions = (projects: number) => ({
  documentSync: "retained" as const,
  projectMarkers: [...(typescriptPreset.server.projectMarkers ?? [])],
  ...(typescriptPreset.server.looseFiles === undefined ? {} : { looseFiles: typescriptPreset.server.looseFiles }),
  projects: { ...typescriptPreset.server.projects, maxProjects: projects + 10 }
})

/** What one answer covered: the user packages it has places in, its places, and why it is incomplete. */
interface Coverage {
  readonly users: number
  readonly places: number
  readonly reasons: ReadonlyArray<string>
}

const flagged = (coverage: Coverage) => coverage.reasons.length === 0 ? "complete" : coverage.reasons.join(", ")

/** A sequence of flags with repeats counted: "LSP_TIMEOUT ×3, complete". */
const runs = (flags: ReadonlyArray<string>) => {
  const counted: Array<[string, number]> = []
  for (const flag of flags) {
    const last = counted[counted.length - 1]
    if (last !== undefined && last[0] === flag) last[1]++
    else counted.push([flag, 1])
  }
  return counted.map(([flag, n]) => n === 1 ? flag : `${flag} ×${n}`).join(", ")
}

const packageOf = (root: string, uri: string): string | undefined => {
  const relative = NodePath.relative(root, fileURLToPath(uri))
  return /^packages\/([^/]+)\//.exec(relative)?.[1]
}

const coverageOf = (root: string, uris: ReadonlyArray<string>, reasons: ReadonlyArray<string>): Coverage => {
  const packages = new Set(uris.flatMap((uri) => packageOf(root, uri) ?? []))
  packages.delete("core")
  return { users: packages.size, places: uris.length, reasons }
}

const isFailure = (answer: LspResult.LspQueryResult | { readonly code: string }): answer is { readonly code: string } =>
  "code" in answer

const oursCoverage = (root: string, answer: LspResult.LspQueryResult | { readonly code: string }): Coverage => {
  if (isFailure(answer)) return { users: 0, places: 0, reasons: [answer.code] }
  const uris = answer.kind === "locations" ? answer.locations.map((location) => location.uri) : []
  return coverageOf(root, uris, LspResult.incompleteReasonsOf(answer).map((reason) => reason.reason))
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

const rawCoverage = (root: string, answer: unknown): Coverage =>
  coverageOf(
    root,
    (Array.isArray(answer) ? answer : []).flatMap((item) =>
      isRecord(item) && typeof item.uri === "string" ? [item.uri] : []
    ),
    []
  )

/** One reply of the tool: when it came (from building the host Layer, ms) and what it covered. */
interface Reply {
  readonly atMs: number
  readonly coverage: Coverage
  /** The tool failed (the code is the coverage's reason) rather than answered. */
  readonly failed: boolean
}

interface OursRun {
  /** Every reply, in order: the question is asked again at once until an answer is complete. */
  readonly replies: ReadonlyArray<Reply>
  /** The first reply that is an answer (not a failure such as LSP_TIMEOUT). */
  readonly first: Reply | undefined
  /** The first complete answer. */
  readonly complete: Reply | undefined
}

interface RawRun {
  /** Spawn → initialize → the defining file opened → references answered, ms. */
  readonly firstMs: number
  readonly first: Coverage
}

const ours = async (repo: Generated.Monorepo, query: Query, budgetMs: number, projects: number): Promise<OursRun> => {
  const start = performance.now()
  const host = await startOurs(typescriptServer, hostOptions(projects))
  try {
    const replies: Array<Reply> = []
    // Asked again at once until the answer is complete, as an agent told "ask again" would.
    do {
      const answer = await host.within(repo.root, query, budgetMs)
      replies.push({
        atMs: performance.now() - start,
        coverage: oursCoverage(repo.root, answer),
        failed: isFailure(answer)
      })
      if (replies.length === 1) Processes.track(await host.pids())
    } while (replies.at(-1)!.coverage.reasons.length > 0 && performance.now() - start < completeWithinMs)
    return {
      replies,
      first: replies.find((reply) => !reply.failed),
      complete: replies.find((reply) => reply.coverage.reasons.length === 0)
    }
  } finally {
    await host.dispose()
  }
}

const raw = async (repo: Generated.Monorepo, query: Query): Promise<RawRun> => {
  const start = performance.now()
  const client = await RawClient.start(typescriptServer, repo.root)
  Processes.track([client.pid])
  try {
    const uri = await client.open(query.file)
    const answer = await client.call("textDocument/references", {
      textDocument: { uri },
      position: query.position,
      context: { includeDeclaration: true }
    })
    return { firstMs: performance.now() - start, first: rawCoverage(repo.root, answer) }
  } finally {
    await client.close()
  }
}

export interface DeadlinePart {
  readonly projects: number
  readonly filesPerProject: number
  readonly rounds: number
  readonly shortBudgetMs: number
  readonly defaultBudgetMs: number
  /** Per round, in order: the figures and the 1-minute load average when the round began. */
  readonly perRound: ReadonlyArray<{
    readonly load: number
    readonly short: OursRun
    readonly long: OursRun
    readonly raw: RawRun
  }>
  /** Over the rounds that had one (the ratios paired with raw in those rounds); undefined if none had. */
  readonly shortFirst: Summary | undefined
  readonly shortComplete: Summary | undefined
  readonly longFirst: Summary | undefined
  readonly rawFirst: Summary
  readonly shortOverRaw: Summary | undefined
  readonly longOverRaw: Summary | undefined
}

/** `ours` over `raw`, round by round, leaving out the rounds where ours had no such reply. */
const pairedWhere = (ours: ReadonlyArray<Reply | undefined>, raw: ReadonlyArray<RawRun>) => {
  const rounds = ours.flatMap((reply, i) => reply === undefined ? [] : [[reply.atMs, raw[i]!.firstMs] as const])
  return rounds.length === 0 ? undefined : pairedRatio(rounds.map(([a]) => a), rounds.map(([, b]) => b))
}

const summaryOf = (replies: ReadonlyArray<Reply | undefined>) => {
  const times = replies.flatMap((reply) => reply === undefined ? [] : [reply.atMs])
  return times.length === 0 ? undefined : summarize(times)
}

export const measureDeadline = async (options: Options, log: (message: string) => void): Promise<DeadlinePart> => {
  const { filesPerProject, projects, rounds } = plan(options.quick)
  // One small unrecorded round warms the bench's code paths and tsserver's library files in the file cache.
  const small = Generated.make({ projects: 2, filesPerProject: 2 })
  try {
    const query = { operation: "findReferences" as const, file: small.makeWidget.filePath, position: small.makeWidget }
    await ours(small, query, defaultBudgetMs, 2)
    await raw(small, query)
  } finally {
    small.remove()
  }
  const perRound: Array<DeadlinePart["perRound"][number]> = []
  for (let round = 0; round < rounds; round++) {
    const repo = Generated.make({ projects, filesPerProject })
    try {
      const load = loadAverage()[0]!
      const query: Query = {
        operation: "findReferences",
        file: repo.makeWidget.filePath,
        position: { line: repo.makeWidget.line, character: repo.makeWidget.character }
      }
      // Rotating order, so that none always runs on a machine another has just warmed or loaded.
      const steps = [
        ["short", () => ours(repo, query, shortBudgetMs, projects)],
        ["long", () => ours(repo, query, defaultBudgetMs, projects)],
        ["raw", () => raw(repo, query)]
      ] as const
      const figures: Record<string, OursRun | RawRun> = {}
      for (let i = 0; i < steps.length; i++) {
        const [name, run] = steps[(round + i) % steps.length]!
        figures[name] = await run()
        log(`deadline round ${round + 1}/${rounds}, ${name}: ${JSON.stringify(figures[name])}`)
      }
      perRound.push({
        load,
        short: figures.short as OursRun,
        long: figures.long as OursRun,
        raw: figures.raw as RawRun
      })
    } finally {
      repo.remove()
    }
  }
  const raws = perRound.map((r) => r.raw)
  return {
    projects,
    filesPerProject,
    rounds,
    shortBudgetMs,
    defaultBudgetMs,
    perRound,
    shortFirst: summaryOf(perRound.map((r) => r.short.first)),
    shortComplete: summaryOf(perRound.map((r) => r.short.complete)),
    longFirst: summaryOf(perRound.map((r) => r.long.first)),
    rawFirst: summarize(raws.map((r) => r.firstMs)),
    shortOverRaw: pairedWhere(perRound.map((r) => r.short.first), raws),
    longOverRaw: pairedWhere(perRound.map((r) => r.long.first), raws)
  }
}

const optionally = (summary: Summary | undefined) => summary === undefined ? null : rounded(summary)

const covered = (part: DeadlinePart, coverage: Coverage) => `${coverage.users} of ${part.projects}`

const summaryRow = (label: string, s: Summary | undefined, paired: Summary | undefined) =>
  s === undefined
    ? [[label, "none", "", "", ""]]
    : [[label, ms(s.min), ms(s.median), ms(s.max), paired === undefined ? "" : ratioSummary(paired)]]

/** A reply as the per-round table shows it. */
const shown = (part: DeadlinePart, reply: Reply) =>
  `${ms(reply.atMs)} ms, ${covered(part, reply.coverage)}, ${flagged(reply.coverage)}, ${reply.coverage.places} places`

/** Ours in one round: the first reply, the first answer if that was not it, and the complete answer. */
const oursCell = (part: DeadlinePart, run: OursRun) => {
  const [reply] = run.replies
  const lines = [
    reply!.failed ? `${reply!.coverage.reasons.join(", ")} at ${ms(reply!.atMs)} ms` : shown(part, reply!),
    ...(run.first === undefined || run.first === reply ? [] : [`first answer ${shown(part, run.first)}`]),
    ...(run.replies.length === 1 ? [] : [
      run.complete === undefined
        ? `not complete within ${completeWithinMs / 1000} s`
        : `complete at ${ms(run.complete.atMs)} ms`,
      `asked ${run.replies.length} times: ${runs(run.replies.map((r) => flagged(r.coverage)))}`
    ])
  ]
  return lines.join("; ")
}

export const deadlineSection = (part: DeadlinePart, options: Options): Section => {
  const { perRound } = part
  // Each user file imports `makeWidget` and calls it.
  const places = 1 + 2 * part.projects * part.filesPerProject
  return {
    id: "deadline",
    title: "16. A cross-project question by a deadline (issue 41)",
    method: `A generated monorepo (\`packages/lsp-stdio/test/support/generatedMonorepo.ts\`): a \`core\` package ` +
      `and ${part.projects} user packages of ${part.filesPerProject} files, each its own tsconfig project, every ` +
      `file importing and calling core's \`makeWidget\` (${places} places with the declaration). The question: findReferences of ` +
      "`makeWidget`, asked cold — a fresh monorepo each round and a fresh server for each contender, in rotating " +
      `order. Ours: the \`lsp\` tool (\`LspToolHandler.run\`) on a host with the TypeScript preset's settings ` +
      `(retained documents, \`projectMarkers\`, \`looseFiles\`, \`projects\` with \`maxProjects\` raised to hold ` +
      `every project), once with \`timeoutMs\` ${part.shortBudgetMs} ms — which ends before the server can load ` +
      `every project — and once with the default ${part.defaultBudgetMs} ms; timed from building the host ` +
      "Layer to the answer. The question is asked again at once, with the same budget, until an answer is " +
      "complete, as an agent told to ask again would (the times are from the same start). The reference: raw typescript-language-server — " +
      "spawn, initialize, open the defining file, `textDocument/references` — which searches only the projects " +
      "tsserver has loaded, the defining one. Coverage counts the user packages an answer has places in. One " +
      "small unrecorded round (2 projects) first.",
    tables: [
      {
        caption: `answers, ${part.rounds} rounds (ms from building the host Layer; raw from its spawn)`,
        columns: ["ms", "min", "median", "max", "ours / raw (paired)"],
        rows: [
          ...summaryRow(
            `ours, timeoutMs ${part.shortBudgetMs}: the first answer`,
            part.shortFirst,
            part.shortOverRaw
          ),
          ...summaryRow(
            `ours, timeoutMs ${part.shortBudgetMs}: the first complete answer (asked again)`,
            part.shortComplete,
            undefined
          ),
          ...summaryRow(
            `ours, timeoutMs ${part.defaultBudgetMs} (default): the first answer`,
            part.longFirst,
            part.longOverRaw
          ),
          ...summaryRow("raw: spawn → references in the defining project", part.rawFirst, undefined)
        ]
      },
      {
        caption: `per round: each reply's time, the user packages (of ${part.projects}) with places in it, its flag`,
        columns: [
          "round (load)",
          `ours, timeoutMs ${part.shortBudgetMs}`,
          `ours, timeoutMs ${part.defaultBudgetMs}`,
          "raw"
        ],
        rows: perRound.map((r, i) => [
          `${i + 1} (${r.load})`,
          oursCell(part, r.short),
          oursCell(part, r.long),
          `${ms(r.raw.firstMs)} ms, ${covered(part, r.raw.first)}, ${r.raw.first.places} places`
        ])
      }
    ],
    targets: [],
    notes: [
      "The issue asks for the figures, with no goal: nothing here is judged.",
      "The first answer is the first reply that is one: when the server's start and the defining project's " +
      "search do not end before the deadline, the tool fails with LSP_TIMEOUT instead, shown with its time in " +
      "the round's cell. Each reply's flag is listed: `deadline` while other projects still load, LSP_TIMEOUT " +
      "when the search did not end within the budget, complete.",
      ...(options.quick ? ["Quick run: one round on a small monorepo (40 packages of 5 files)."] : [])
    ],
    forUsers: part.shortFirst === undefined || part.shortOverRaw === undefined ? [] : [{
      figure: `the first answer to a cross-project question, cold, ${part.projects} tsconfig projects ` +
        `(timeoutMs ${part.shortBudgetMs})`,
      ours: `${ms(part.shortFirst.median)} ms`,
      reference: `${ms(part.rawFirst.median)} ms (raw references, the defining project only)`,
      ratio: `${ratioSummary(part.shortOverRaw)} (paired)`
    }],
    data: {
      ...part,
      shortFirst: optionally(part.shortFirst),
      shortComplete: optionally(part.shortComplete),
      longFirst: optionally(part.longFirst),
      rawFirst: rounded(part.rawFirst),
      shortOverRaw: optionally(part.shortOverRaw),
      longOverRaw: optionally(part.longOverRaw)
    }
  }
}
