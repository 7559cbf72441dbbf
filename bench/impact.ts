/**
 * Benchmark 17, the cost of `impact` (issue 44): one `impact` call (depth 2) against the chain of seam queries an
 * agent runs by hand to the same depth — findReferences; documentSymbol of every file with a use, to place each
 * use in its enclosing declaration (`LspEnclosing`); incomingCalls of each of those declarations; incomingCalls of
 * each of their callers — on this repository and on a generated monorepo, both served by the TypeScript preset.
 * Compared at the seam (`LspService.query`): calls, the JSON bytes of the answers, warm wall time, and the set of
 * declarations each reaches.
 */
import { NodeContext } from "@effect/platform-node"
import { LspEnclosing, type LspQuery, type LspResult, LspService } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as LspStdio from "../packages/lsp-stdio/src/LspStdio.js"
import * as StdioStatus from "../packages/lsp-stdio/src/StdioStatus.js"
import * as Generated from "../packages/lsp-stdio/test/support/generatedMonorepo.js"
import { typescript as typescriptPreset } from "../packages/setup/src/LspPresets.js"
import * as Processes from "./support/processes.js"
import { ms, type Options, ratio, type Section } from "./support/report.js"
import { median, pairedRatio, rounded, summarize } from "./support/stats.js"

const repositoryRoot = Fs.realpathSync(fileURLToPath(new URL("..", import.meta.url)))

/** The depth both contenders go to: `impact`'s default. */
const depth = 2

/** A question: the declaration's name, where it is (zero-based, at its name), in which workspace. */
interface Question {
  readonly label: string
  readonly file: string
  readonly position: LspQuery.LspPosition
}

/** Where `pattern` first matches in `file` (relative to `root`): the position of its group 1. */
const find = (root: string, file: string, pattern: RegExp, label: string): Question => {
  const lines = Fs.readFileSync(Path.join(root, file), "utf8").split("\n")
  for (const [line, text] of lines.entries()) {
    const match = pattern.exec(text)
    if (match !== null) return { label, file, position: { line, character: match.index + match[0].indexOf(match[1]!) } }
  }
  throw new Error(`${label}: not found in ${file}`)
}

/** Widely used functions of packages/lsp, found by their declarations' text. */
const repositoryQuestions = (): Array<Question> => [
  find(repositoryRoot, "packages/lsp/src/LspExtension.ts", /^export const (finalExtension)\b/, "finalExtension"),
  find(
    repositoryRoot,
    "packages/lsp/src/internal/result/annotations.ts",
    /^export const (markIncomplete)\b/,
    "markIncomplete"
  ),
  find(repositoryRoot, "packages/lsp/src/LspIdentifiers.ts", /^export const (locate)\b/, "LspIdentifiers.locate")
]

/** A declaration reached: what the comparison of the two sets keys on. */
const keyOf = (name: string, uri: string, line: number) => `${name} ${uri}:${line + 1}`

const bytes = (answer: unknown) => Buffer.byteLength(JSON.stringify(answer), "utf8")

/** What one contender did for one question. */
interface Run {
  readonly calls: number
  readonly bytes: number
  readonly ms: number
  /** The declarations reached (levels 0 to `depth`), keyed by `keyOf`. */
  readonly reached: ReadonlyArray<string>
  readonly incomplete: ReadonlyArray<string>
}

type Ask = (
  request: LspQuery.LspQueryRequest
) => Effect.Effect<LspResult.LspQueryResult, unknown, LspService.LspService>

/** Kinds whose callers the agent asks: functions and methods, and a `const` or field holding one. */
const followed = new Set(["Function", "Method", "Constructor", "Variable", "Constant", "Property", "Field", "Class"])
const callable = new Set(["Function", "Method", "Constructor"])

const fileName = (uri: string) => decodeURIComponent(uri.slice(uri.lastIndexOf("/") + 1))

/** The single `impact` call: its answer's bytes, its nodes. */
const impactRun = (ask: Ask, root: string, question: Question) =>
  Effect.gen(function*() {
    const start = performance.now()
    const answer = yield* ask({
      operation: "impact",
      filePath: question.file,
      position: question.position,
      workspaceRoot: root,
      depth
    })
    const elapsed = performance.now() - start
    if (answer.kind !== "impact") throw new Error(`impact answered "${answer.kind}"`)
    return {
      calls: 1,
      bytes: bytes(answer),
      ms: elapsed,
      reached: answer.nodes.map((node) => keyOf(node.name, node.uri, node.selectionRange.start.line)),
      incomplete: (answer.incompleteReasons ?? []).map((reason) => reason.reason)
    } satisfies Run
  })

/** A declaration the chain follows: where to ask its callers. */
interface Place {
  readonly key: string
  readonly uri: string
  readonly kind: string
  readonly position: LspQuery.LspPosition
}

/**
 * The chain an agent runs by hand, each step a seam query: findReferences; documentSymbol of each file with a use
 * (the asked declaration's own place left out), each use placed in its innermost enclosing function or method, else
 * its innermost enclosing declaration, else the file's top level; then incomingCalls of each declaration found, level
 * after level, each declaration asked once.
 */
const chainRun = (ask: Ask, root: string, question: Question) =>
  Effect.gen(function*() {
    const start = performance.now()
    let calls = 0
    let size = 0
    const incomplete = new Set<string>()
    const call = (request: LspQuery.LspQueryRequest) =>
      Effect.tap(ask(request), (answer) => {
        calls++
        size += bytes(answer)
        for (const reason of "incompleteReasons" in answer ? answer.incompleteReasons ?? [] : []) {
          incomplete.add(reason.reason)
        }
      })
    const references = yield* call({
      operation: "findReferences",
      filePath: question.file,
      position: question.position,
      workspaceRoot: root
    })
    if (references.kind !== "locations") throw new Error(`findReferences answered "${references.kind}"`)
    const asked = `file://${Path.join(root, question.file)}`
    const uses = references.locations.filter((location) =>
      !(location.uri === asked && location.range.start.line === question.position.line &&
        location.range.start.character === question.position.character)
    )
    const reached = new Map<string, Place>()
    for (const uri of [...new Set(uses.map((use) => use.uri))].sort()) {
      const answer = yield* call({ operation: "documentSymbol", filePath: fileURLToPath(uri), workspaceRoot: root })
      const symbols = answer.kind === "symbols" ? answer.symbols : []
      for (const use of uses.filter((use) => use.uri === uri)) {
        const around = LspEnclosing.enclosingAll(symbols, use.range.start)
        const symbol = around.find((s) => callable.has(s.kind)) ?? around[0]
        const place: Place = symbol === undefined
          ? { key: keyOf(fileName(uri), uri, 0), uri, kind: "File", position: { line: 0, character: 0 } }
          : {
            key: keyOf(symbol.name, uri, symbol.selectionRange.start.line),
            uri,
            kind: symbol.kind,
            position: symbol.selectionRange.start
          }
        reached.set(place.key, place)
      }
    }
    const target = keyOf(question.label.split(".").at(-1)!, asked, question.position.line)
    let frontier = [...reached.values()]
    for (let level = 1; level <= depth; level++) {
      const next: Array<Place> = []
      for (const place of frontier.filter((p) => followed.has(p.kind))) {
        const answer = yield* call({
          operation: "incomingCalls",
          filePath: fileURLToPath(place.uri),
          position: place.position,
          workspaceRoot: root
        })
        for (const caller of answer.kind === "calls" ? answer.calls : []) {
          const key = keyOf(caller.name, caller.uri, caller.selectionRange.start.line)
          if (key === target || reached.has(key)) continue
          const found: Place = { key, uri: caller.uri, kind: caller.kind, position: caller.selectionRange.start }
          reached.set(key, found)
          next.push(found)
        }
      }
      frontier = next
    }
    return {
      calls,
      bytes: size,
      ms: performance.now() - start,
      reached: [...reached.keys()],
      incomplete: [...incomplete]
    } satisfies Run
  })

/** A host with the TypeScript preset's settings, room for `projects` projects; logs below warnings muted. */
const host = (projects: number) =>
  ManagedRuntime.make(
    LspStdio.layer({
      servers: {
        typescript: {
          ...typescriptPreset.server,
          projects: { askEach: typescriptPreset.server.projects?.askEach ?? [], maxProjects: projects }
        }
      }
    }).pipe(
      Layer.provideMerge(LspService.layer),
      Layer.provide(NodeContext.layer),
      Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
    )
  )

interface QuestionFigures {
  readonly workspace: string
  readonly question: string
  /** Per round, in order. */
  readonly impact: ReadonlyArray<Run>
  readonly chain: ReadonlyArray<Run>
}

/** Every question of a workspace, `rounds` times, the two contenders alternating who goes first. */
const measureWorkspace = async (
  workspace: string,
  root: string,
  questions: ReadonlyArray<Question>,
  rounds: number,
  projects: number,
  log: (message: string) => void
): Promise<Array<QuestionFigures>> => {
  const runtime = host(projects)
  const run = <A>(effect: Effect.Effect<A, unknown, LspService.LspService | StdioStatus.StdioStatus>) =>
    runtime.runPromise(effect)
  const ask: Ask = (request) => LspService.query(request)
  try {
    // One unrecorded question: the server starts and loads its projects, and both code paths are run once.
    await run(chainRun(ask, root, questions[0]!))
    await run(impactRun(ask, root, questions[0]!))
    Processes.track(
      await run(Effect.map(
        Effect.flatMap(StdioStatus.StdioStatus, (status) => status.status),
        (servers) => servers.flatMap((server) => server.pid === null ? [] : [server.pid])
      ))
    )
    const figures = questions.map((q) => ({
      workspace,
      question: q.label,
      impact: [] as Array<Run>,
      chain: [] as Array<Run>
    }))
    for (let round = 0; round < rounds; round++) {
      for (const [index, question] of questions.entries()) {
        const order = (round + index) % 2 === 0 ? ["impact", "chain"] as const : ["chain", "impact"] as const
        for (const contender of order) {
          const result = await run(
            contender === "impact" ? impactRun(ask, root, question) : chainRun(ask, root, question)
          )
          figures[index]![contender].push(result)
        }
        log(
          `impact ${workspace} ${question.label} round ${round + 1}/${rounds}: impact ${
            ms(figures[index]!.impact.at(-1)!.ms)
          } ms, chain ${ms(figures[index]!.chain.at(-1)!.ms)} ms`
        )
      }
    }
    return figures
  } finally {
    await runtime.dispose()
  }
}

const plan = (quick: boolean) =>
  quick
    ? { rounds: 1, questions: 1, projects: 4, filesPerProject: 2 }
    : { rounds: 3, questions: 3, projects: 20, filesPerProject: 5 }

export interface ImpactPart {
  readonly rounds: number
  readonly monorepo: { readonly projects: number; readonly filesPerProject: number }
  readonly questions: ReadonlyArray<QuestionFigures>
}

export const measureImpact = async (options: Options, log: (message: string) => void): Promise<ImpactPart> => {
  const { filesPerProject, projects, questions, rounds } = plan(options.quick)
  const figures: Array<QuestionFigures> = []
  // This repository has fewer than 40 tsconfig projects: room for all, so no answer is cut by the preset's bound.
  figures.push(
    ...await measureWorkspace(
      "this repository",
      repositoryRoot,
      repositoryQuestions().slice(0, questions),
      rounds,
      40,
      log
    )
  )
  const repo = Generated.make({ projects, filesPerProject })
  try {
    const generated: Array<Question> = [
      { label: "makeWidget", file: repo.makeWidget.filePath, position: repo.makeWidget },
      { label: "Widget", file: repo.widget.filePath, position: repo.widget }
    ]
    figures.push(
      ...await measureWorkspace(
        `generated monorepo (${projects} × ${filesPerProject})`,
        repo.root,
        generated.slice(0, Math.min(2, questions)),
        rounds,
        projects + 10,
        log
      )
    )
  } finally {
    repo.remove()
  }
  return { rounds, monorepo: { projects, filesPerProject }, questions: figures }
}

/** The reached sets of a question's first round: equal, or what each has that the other does not. */
const comparison = (figures: QuestionFigures) => {
  const impact = new Set(figures.impact[0]!.reached)
  const chain = new Set(figures.chain[0]!.reached)
  const onlyImpact = [...impact].filter((key) => !chain.has(key))
  const onlyChain = [...chain].filter((key) => !impact.has(key))
  const stable = figures.impact.every((run) => sameSet(run.reached, figures.impact[0]!.reached)) &&
    figures.chain.every((run) => sameSet(run.reached, figures.chain[0]!.reached))
  return { impact: impact.size, chain: chain.size, onlyImpact, onlyChain, stable }
}

const sameSet = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  a.length === b.length && a.every((key) => b.includes(key))

const relative = (key: string) => key.replace(/file:\/\/\S*?\/(packages|bench)\//, "$1/")

const listed = (keys: ReadonlyArray<string>) =>
  keys.length === 0
    ? ""
    : keys.length <= 6
    ? keys.map(relative).join("; ")
    : `${keys.slice(0, 6).map(relative).join("; ")}; and ${keys.length - 6} more`

export const impactSection = (part: ImpactPart, options: Options): Section => {
  const rows = part.questions.map((figures) => {
    const impactMs = median(figures.impact.map((run) => run.ms))
    const chainMs = median(figures.chain.map((run) => run.ms))
    const compared = comparison(figures)
    return {
      figures,
      impactMs,
      chainMs,
      compared,
      paired: pairedRatio(figures.impact.map((r) => r.ms), figures.chain.map((r) => r.ms))
    }
  })
  const sum = (pick: (run: Run) => number, contender: "impact" | "chain") =>
    rows.reduce((total, row) => total + pick(row.figures[contender][0]!), 0)
  const impactBytes = sum((run) => run.bytes, "impact")
  const chainBytes = sum((run) => run.bytes, "chain")
  const impactMs = rows.reduce((total, row) => total + row.impactMs, 0)
  const chainMs = rows.reduce((total, row) => total + row.chainMs, 0)
  const chainCalls = sum((run) => run.calls, "chain")
  return {
    id: "impact",
    title: "17. What a change would touch: one impact call against the chain by hand (issue 44)",
    method: `Each question asked twice at the seam (\`LspService.query\`) of one host with the TypeScript preset's ` +
      `settings (\`maxProjects\` raised to hold every project): one \`impact\` call (depth ${depth}, default ` +
      "maxGroups) against the chain an agent runs by hand to the same depth, each step a query of its own — " +
      "findReferences; documentSymbol of every file with a use (the asked declaration's own place left out), each " +
      "use placed by `LspEnclosing.enclosingAll` in its innermost enclosing function or method, else its innermost " +
      "enclosing declaration, else the file's top level; incomingCalls of each declaration found that is a " +
      "function, method, constructor, class, variable, constant, property or field; incomingCalls of each of their " +
      "callers — each declaration asked once, one call after another. Bytes: the JSON length of every answer. " +
      "Time: warm — one unrecorded question per workspace first (it starts the server and loads the projects) — " +
      `over ${part.rounds} rounds, the two alternating who goes first; medians. Reached: the declarations at ` +
      `levels 0 to ${depth} (name, file, line), compared between the two on the first round. Questions on this ` +
      "repository are declarations of packages/lsp found by their text; on a generated monorepo " +
      `(\`packages/lsp-stdio/test/support/generatedMonorepo.ts\`, \`core\` and ${part.monorepo.projects} user ` +
      `packages of ${part.monorepo.filesPerProject} files, each its own tsconfig project) core's \`makeWidget\` and ` +
      "`Widget`.",
    tables: [
      {
        caption: "per question: calls, bytes (JSON of the answers) and warm wall time (median over rounds)",
        columns: [
          "workspace: symbol",
          "calls impact / chain",
          "bytes impact / chain",
          "ms impact / chain (median)",
          "impact / chain time (paired, median)"
        ],
        rows: [
          ...rows.map(({ chainMs, figures, impactMs, paired }) => [
            `${figures.workspace}: \`${figures.question}\``,
            `1 / ${figures.chain[0]!.calls}`,
            `${figures.impact[0]!.bytes} / ${figures.chain[0]!.bytes} (${
              ratio(figures.impact[0]!.bytes / figures.chain[0]!.bytes)
            })`,
            `${ms(impactMs)} / ${ms(chainMs)}`,
            ratio(paired.median)
          ]),
          [
            "in all",
            `${rows.length} / ${chainCalls}`,
            `${impactBytes} / ${chainBytes} (${ratio(impactBytes / chainBytes)})`,
            `${ms(impactMs)} / ${ms(chainMs)}`,
            ratio(impactMs / chainMs)
          ]
        ]
      },
      {
        caption: `the declarations reached (levels 0–${depth}): the same set, or what only one reached`,
        columns: [
          "workspace: symbol",
          "impact / chain",
          "same set",
          "only impact",
          "only the chain",
          "incomplete (impact; chain)"
        ],
        rows: rows.map(({ compared, figures }) => [
          `${figures.workspace}: \`${figures.question}\``,
          `${compared.impact} / ${compared.chain}`,
          (compared.onlyImpact.length === 0 && compared.onlyChain.length === 0 ? "equal" : "differ") +
          (compared.stable ? "" : " (sets varied between rounds)"),
          listed(compared.onlyImpact),
          listed(compared.onlyChain),
          `${figures.impact[0]!.incomplete.join(", ") || "complete"}; ${
            figures.chain[0]!.incomplete.join(", ") || "complete"
          }`
        ])
      }
    ],
    targets: [],
    notes: [
      "The issue asks for the figures, with no goal: nothing here is judged.",
      "The chain's time is its calls back to back, with no model in between: an agent pays a model round trip " +
      "per call on top, which `impact` saves. `impact` runs up to 4 of its steps at once; the stdio host serves " +
      "one server's requests in turn, so that gains little.",
      ...(options.quick
        ? ["Quick run: one question per workspace, one round, a monorepo of 4 packages of 2 files."]
        : [])
    ],
    forUsers: [{
      figure: `what a change would touch (depth ${depth}), ${rows.length} questions, warm: calls and bytes`,
      ours: `${rows.length} calls, ${impactBytes} B`,
      reference: `${chainCalls} calls, ${chainBytes} B (the chain by hand)`,
      ratio: `${ratio(impactBytes / chainBytes)} bytes, ${ratio(impactMs / chainMs)} time`
    }],
    data: {
      ...part,
      perQuestion: rows.map(({ compared, figures, paired }) => ({
        workspace: figures.workspace,
        question: figures.question,
        impactMs: summarize(figures.impact.map((r) => r.ms)),
        chainMs: summarize(figures.chain.map((r) => r.ms)),
        paired: rounded(paired),
        compared
      }))
    }
  }
}
