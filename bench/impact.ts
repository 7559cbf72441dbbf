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
import { ms, type Options } from "./support/report.js"

const repositoryRoot = Fs.realpathSync(fileURLToPath(new URL("..", import.meta.url)))

/** The depth both contenders go to: `impact`'s default. */
export const depth = 2

/** `maxGroups` high enough that no level of these questions is cut (the request's bound). */
export const uncappedGroups = 500

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
export interface Run {
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
const impactRun = (ask: Ask, root: string, question: Question, maxGroups?: number) =>
  Effect.gen(function*() {
    const start = performance.now()
    const answer = yield* ask({
      operation: "impact",
      filePath: question.file,
      position: question.position,
      workspaceRoot: root,
      depth,
      ...(maxGroups === undefined ? {} : { maxGroups })
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

export interface QuestionFigures {
  readonly workspace: string
  readonly question: string
  /** Per round, in order. */
  readonly impact: ReadonlyArray<Run>
  readonly chain: ReadonlyArray<Run>
  /** One `impact` call with `maxGroups` at `uncappedGroups`: the set it reaches when no level is cut. */
  readonly uncapped: Run
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
    // Not timed: what the default cap on groups per level leaves out of the comparison of the sets.
    const uncapped: Array<Run> = []
    for (const question of questions) uncapped.push(await run(impactRun(ask, root, question, uncappedGroups)))
    return figures.map((f, index) => ({ ...f, uncapped: uncapped[index]! }))
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
