/**
 * The run behind bench/monorepoCounts.ts: the repositories and their questions, the three ways of asking them,
 * and the sections it writes into docs/compatibility.md. `npx tsx bench/monorepoCounts.ts [this|effect]`
 * runs one repository (default: both).
 */
import { NodeContext } from "@effect/platform-node"
import { type LspQuery, LspResult, LspService } from "@lsp-seam/lsp"
import { LspStdio } from "@lsp-seam/lsp-stdio"
import * as Path_ from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as FileAccess from "../packages/lsp-stdio/src/internal/files/fileAccess.js"
import { resolveWorkspaceWith } from "../packages/lsp-stdio/src/internal/files/workspace.js"
import * as ProjectSurvey from "../packages/lsp-stdio/src/internal/host/projectSurvey.js"
import * as EffectMonorepo from "./support/effectMonorepo.js"
import { RawClient } from "./support/rawClient.js"
import { typescriptServer } from "./support/servers.js"

const thisRepository = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "")
const output = Path.join(thisRepository, "docs", "compatibility.md")

interface Question {
  readonly name: string
  readonly operation: "findReferences" | "goToImplementation" | "incomingCalls" | "workspaceSymbol"
  readonly file: string
  /** The line that starts with this text, at `offset` characters in. */
  readonly line?: string
  readonly offset?: number
  /** For workspaceSymbol: the search, and the name a symbol must have to count. */
  readonly query?: string
}

/** Questions about this repository. */
const ownQuestions: ReadonlyArray<Question> = [
  {
    name: "findReferences of `LspResult.markIncomplete`",
    operation: "findReferences",
    // Defined with the other answer annotations; LspResult re-exports it.
    file: "packages/lsp/src/internal/result/annotations.ts",
    line: "export const markIncomplete",
    offset: "export const ".length
  },
  {
    name: "incomingCalls of `LspExtension.finalExtension` (callers / call sites)",
    operation: "incomingCalls",
    file: "packages/lsp/src/LspExtension.ts",
    line: "export const finalExtension",
    offset: "export const ".length
  },
  {
    name: "findReferences of `LspServiceShape.query`",
    operation: "findReferences",
    file: "packages/lsp/src/LspService.ts",
    line: "  readonly query:",
    offset: "  readonly ".length
  },
  {
    name: "goToImplementation of `LspServiceShape.query`",
    operation: "goToImplementation",
    file: "packages/lsp/src/LspService.ts",
    line: "  readonly query:",
    offset: "  readonly ".length
  },
  {
    name: "workspaceSymbol `layer` (symbols named exactly `layer`)",
    operation: "workspaceSymbol",
    file: "packages/lsp/src/LspService.ts",
    query: "layer"
  }
]

/** Questions about the Effect packages (support/effectMonorepo.ts): each asked in one package, used in others. */
const effectQuestions: ReadonlyArray<Question> = [
  {
    name: "findReferences of `Predicate.hasProperty` (effect)",
    operation: "findReferences",
    file: "packages/effect/src/Predicate.ts",
    line: "export const hasProperty",
    offset: "export const ".length
  },
  {
    name: "incomingCalls of `MsgPack.schema` (@effect/platform; callers / call sites)",
    operation: "incomingCalls",
    file: "packages/platform/src/MsgPack.ts",
    line: "export const schema",
    offset: "export const ".length
  },
  {
    name: "findReferences of `Rpc.make` (@effect/rpc)",
    operation: "findReferences",
    file: "packages/rpc/src/Rpc.ts",
    line: "export const make",
    offset: "export const ".length
  },
  {
    name: "goToImplementation of `Inspectable.toJSON` (effect)",
    operation: "goToImplementation",
    file: "packages/effect/src/Inspectable.ts",
    line: "  toJSON(): unknown",
    offset: 2
  },
  {
    name: "workspaceSymbol `layer` (symbols named exactly `layer`)",
    operation: "workspaceSymbol",
    file: "packages/effect/src/Layer.ts",
    query: "layer"
  }
]

const positionOf = (repository: string, question: Question) => {
  const lines = Fs.readFileSync(Path.join(repository, question.file), "utf8").split("\n")
  const line = lines.findIndex((text) => text.startsWith(question.line!))
  if (line < 0) throw new Error(`${question.file}: no line starting with ${question.line}`)
  return { line, character: question.offset! }
}

/**
 * One file of each TypeScript project of the repository, as the host's own survey finds them (tsconfig.json and
 * jsconfig.json files, their `include`/`files` and references): the same projects lsp-seam loads, so that "every
 * project loaded" means the same for the raw server.
 */
const oneFilePerProject = (repository: string): Promise<ReadonlyArray<string>> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const services = { files: FileAccess.local, path: yield* Path_.Path }
      const workspace = yield* resolveWorkspaceWith(services, repository)
      const found = yield* ProjectSurvey.survey(services, workspace, ["tsconfig.json", "jsconfig.json"], [".ts"], 4e6)
      return found.projects.flatMap((project) => project.file === undefined ? [] : [project.file])
    }).pipe(Effect.provide(NodeContext.layer))
  )

// --- the raw server ---------------------------------------------------------------------------------------

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

/** Distinct places of a raw Location / LocationLink answer. */
const rawPlaces = (answer: unknown): number => {
  const items = Array.isArray(answer) ? answer : answer === null || answer === undefined ? [] : [answer]
  const places = new Set<string>()
  for (const item of items) {
    if (!isRecord(item)) continue
    const uri = item.uri ?? item.targetUri
    const range = item.range ?? item.targetSelectionRange
    if (typeof uri === "string" && isRecord(range) && isRecord(range.start)) {
      places.add(`${uri}:${String(range.start.line)}:${String(range.start.character)}`)
    }
  }
  return places.size
}

interface Count {
  readonly text: string
  readonly incomplete?: string
}

const rawAsk = async (client: RawClient, repository: string, question: Question): Promise<Count> => {
  const uri = await client.open(question.file)
  if (question.operation === "workspaceSymbol") {
    const answer = await client.call("workspace/symbol", { query: question.query })
    const named = Array.isArray(answer) ? answer.filter((s) => isRecord(s) && s.name === question.query) : []
    return { text: String(named.length) }
  }
  const position = positionOf(repository, question)
  const at = { textDocument: { uri }, position }
  if (question.operation === "incomingCalls") {
    const items = await client.call("textDocument/prepareCallHierarchy", at)
    let callers = 0
    let sites = 0
    for (const item of Array.isArray(items) ? items : []) {
      const calls = await client.call("callHierarchy/incomingCalls", { item })
      for (const call of Array.isArray(calls) ? calls : []) {
        callers++
        sites += isRecord(call) && Array.isArray(call.fromRanges) ? call.fromRanges.length : 0
      }
    }
    return { text: `${callers} / ${sites}` }
  }
  const method = question.operation === "findReferences" ? "textDocument/references" : "textDocument/implementation"
  const answer = await client.call(method, { ...at, context: { includeDeclaration: true } })
  return { text: String(rawPlaces(answer)) }
}

/** A fresh raw server from the root; `preload` files opened first (kept open), then the question. */
const raw = async (repository: string, question: Question, preload: ReadonlyArray<string>): Promise<Count> => {
  const client = await RawClient.start(typescriptServer, repository)
  try {
    for (const file of preload) await client.open(file)
    return await rawAsk(client, repository, question)
  } finally {
    await client.close()
  }
}

// --- lsp-seam -----------------------------------------------------------------------------------------------

const hostLayer = LspStdio.layer({
  servers: {
    typescript: {
      command: typescriptServer.command,
      args: [...typescriptServer.args],
      extensionToLanguage: { ".ts": "typescript" },
      initializationOptions: typescriptServer.initializationOptions,
      // As the TypeScript preset.
      projectMarkers: ["tsconfig.json", "jsconfig.json"],
      projects: { maxProjects: 20, askEach: ["goToImplementation", "incomingCalls", "workspaceSymbol"] }
    }
  }
}).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer))

const countOf = (question: Question, result: LspResult.LspQueryResult): Count => {
  const reasons = LspResult.incompleteReasonsOf(result)
  const incomplete = reasons.length === 0 ? undefined : reasons.map((r) => r.reason).join(", ")
  const text = result.kind === "locations"
    ? String(new Set(result.locations.map((l) => `${l.uri}:${l.range.start.line}:${l.range.start.character}`)).size)
    : result.kind === "calls"
    ? `${result.calls.length} / ${result.calls.reduce((sum, call) => sum + call.fromRanges.length, 0)}`
    : result.kind === "symbols"
    ? String(result.symbols.filter((symbol) => symbol.name === question.query).length)
    : "?"
  return incomplete === undefined ? { text } : { text, incomplete }
}

/** Each question on a fresh host (no warm state carried from one to the next), from the repository root. */
const ours = (repository: string, question: Question): Promise<Count> => {
  const query: LspQuery.LspQueryRequest = question.operation === "workspaceSymbol"
    ? { operation: "workspaceSymbol", query: question.query!, workspaceRoot: repository }
    : {
      operation: question.operation,
      filePath: question.file,
      position: positionOf(repository, question),
      workspaceRoot: repository
    }
  return Effect.runPromise(
    Effect.map(LspService.query(query), (result) => countOf(question, result)).pipe(Effect.provide(hostLayer))
  )
}

// --- the run ------------------------------------------------------------------------------------------------

interface Repository {
  /** The marker of its section: `<!-- monorepo-counts${suffix}:start -->`. */
  readonly suffix: string
  readonly title: string
  readonly root: string
  /** What the repository is, given the files of its projects. */
  readonly describe: (projectFiles: ReadonlyArray<string>) => string
  readonly questions: ReadonlyArray<Question>
}

const listed = (files: ReadonlyArray<string>) => files.map((file) => `\`${file}\``).join(", ")

const methods = (projectFiles: ReadonlyArray<string>) =>
  "Three ways, each on a fresh server: lsp-seam with the TypeScript preset's `projects` setting; a raw " +
  "typescript-language-server client with only the queried file open; the raw client after opening one file of " +
  "every project (the projects the host's own survey finds, the same lsp-seam loads) so that tsserver has " +
  `loaded them all: ${listed(projectFiles)}.`

/** Asks every question three ways and writes the repository's section. */
const countsOf = async (repository: Repository, started: Date) => {
  const everyProject = await oneFilePerProject(repository.root)
  const rows: Array<string> = []
  for (const question of repository.questions) {
    process.stderr.write(`${question.name}…\n`)
    const seam = await ours(repository.root, question)
    const alone = await raw(repository.root, question, [])
    const loaded = await raw(repository.root, question, everyProject)
    const flagged = seam.incomplete === undefined ? "" : ` (flagged incomplete: ${seam.incomplete})`
    rows.push(`| ${question.name} | ${seam.text}${flagged} | ${alone.text} | ${loaded.text} |`)
    process.stderr.write(`  ours ${seam.text}${flagged}, raw alone ${alone.text}, raw every project ${loaded.text}\n`)
  }
  const startMarker = `<!-- monorepo-counts${repository.suffix}:start -->`
  const endMarker = `<!-- monorepo-counts${repository.suffix}:end -->`
  const lines = [
    startMarker,
    `## ${repository.title}`,
    "",
    `Written by \`npx tsx bench/monorepoCounts.ts\` on ${started.toISOString().slice(0, 10)} (Node ${process.version}, ` +
    `${Os.cpus().length} cores). ${repository.describe(everyProject)}`,
    "",
    "| question | lsp-seam from the root | raw, the queried file open | raw, every project loaded |",
    "| --- | ---: | ---: | ---: |",
    ...rows,
    "",
    "tsserver answers references from the projects it has loaded, so loading every project is what a raw client",
    "needs for them; implementations, callers and workspace symbols it searches in one project (the queried",
    "file's, or for workspace symbols the last file it used) even with all loaded, which is why lsp-seam asks each",
    "other project itself (docs/decisions.md, issue 29).",
    endMarker
  ]
  const text = Fs.readFileSync(output, "utf8")
  const at = text.indexOf(startMarker)
  const end = text.indexOf(endMarker)
  Fs.writeFileSync(
    output,
    at >= 0 && end > at
      ? `${text.slice(0, at)}${lines.join("\n")}${text.slice(end + endMarker.length)}`
      : `${text.trimEnd()}\n\n${lines.join("\n")}\n`
  )
  process.stderr.write(`wrote ${output}\n`)
}

const own: Repository = {
  suffix: "",
  title: "Counts on a real monorepo, from its root",
  root: thisRepository,
  describe: (projectFiles) =>
    `The repository itself: ${projectFiles.length} tsconfig projects with files of ` +
    "their own (the packages' source and test projects, and those of the bench, the docgen, the scratchpad " +
    "and the test fixtures), joined by project references, no solution file that includes them all; asked from " +
    `its root as an agent does. ${methods(projectFiles)}`,
  questions: ownQuestions
}

const which = process.argv[2]
const started = new Date()
if (which === undefined || which === "this") await countsOf(own, started)
if (which === undefined || which === "effect") {
  const effect = EffectMonorepo.make()
  try {
    await countsOf({
      suffix: "-effect",
      title: "Counts on an open-source monorepo: seven packages of Effect",
      root: effect.root,
      describe: (projectFiles) =>
        `Seven packages of the Effect monorepo (github.com/Effect-TS/effect, MIT) as their npm releases ship ` +
        `their sources (${effect.versions.join(", ")}), assembled by bench/support/effectMonorepo.ts from the ` +
        "copies this repository installs: one tsconfig project per package, and `paths` in a shared base mapping " +
        "each package name to its sources (the releases carry no tsconfig files, so that layout is ours; the " +
        `code is theirs, unchanged). ${projectFiles.length} projects, asked from the root. ${methods(projectFiles)}`,
      questions: effectQuestions
    }, started)
  } finally {
    effect.remove()
  }
}
