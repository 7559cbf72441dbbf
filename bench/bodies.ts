/**
 * Benchmark 13, bodies (`include_body`, issue 33): what an agent reads to see the code of a definition. For a
 * set of definition questions on a real repository — this one: every relative import of the stdio host's and
 * the tool's sources, asked at its first use after the imports (at most two per file) — each question is
 * answered twice through the tool (`LspToolHandler.run` → `LspService` → stdio host → typescript-language-server,
 * documents retained):
 *
 * - ours: one `goToDefinition` call with `include_body: true`; the agent reads its text;
 * - the reference: `goToDefinition` without it, then one read of each file it points into (the agent's file
 *   tool returns the whole file: its size on disk is counted, no line numbers added), one call per file.
 *
 * Measured: the bytes the agent reads (UTF-8), the calls it makes, and the wall time of ours against the plain
 * `goToDefinition` call (the reference's first call; its file reads are not timed), interleaved, ours first on
 * even questions and second on odd ones.
 */
import { NodeContext } from "@effect/platform-node"
import { LspService } from "@lsp-seam/lsp"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as LspStdio from "../packages/lsp-stdio/src/LspStdio.js"
import * as LspSession from "../packages/tool-lsp/src/LspSession.js"
import * as LspToolHandler from "../packages/tool-lsp/src/LspToolHandler.js"
import type { Options, Section, Target } from "./support/report.js"
import { hostConfig, typescriptServer } from "./support/servers.js"
import { median, round, summarize } from "./support/stats.js"

const root = Fs.realpathSync(fileURLToPath(new URL("..", import.meta.url)))

/** The source directories the questions are taken from. */
const sourceDirectories = ["packages/lsp-stdio/src/internal", "packages/tool-lsp/src"]

export interface Question {
  readonly file: string
  readonly line: number
  readonly character: number
  readonly name: string
}

const sourceFiles = (directory: string): Array<string> =>
  Fs.readdirSync(Path.join(root, directory), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => Path.join(directory, name))
    .sort()

/** Relative value imports of a file, each asked at its first use after the import lines (at most `perFile`). */
export const questionsOf = (file: string, text: string, perFile: number): Array<Question> => {
  const lines = text.split("\n")
  const names: Array<string> = []
  let last = -1
  lines.forEach((line, index) => {
    const match = /^import \{([^}]*)\} from "\.\.?\//.exec(line)
    if (match === null) return
    last = index
    for (const part of match[1]!.split(",")) {
      const name = part.trim()
      if (/^[A-Za-z_$][\w$]*$/.test(name)) names.push(name)
    }
  })
  const found: Array<Question> = []
  for (const name of names) {
    if (found.length >= perFile) break
    const pattern = new RegExp(`(?<![\\w$.])${name.replace(/\$/g, "\\$")}(?![\\w$])`)
    for (let index = last + 1; index < lines.length; index++) {
      const line = lines[index]!
      if (/^\s*(\/\/|\*|\/\*)/.test(line)) continue
      const at = line.search(pattern)
      if (at >= 0) {
        found.push({ file, line: index + 1, character: at + 1, name })
        break
      }
    }
  }
  return found
}

export const questions = (limit: number): Array<Question> =>
  sourceDirectories.flatMap(sourceFiles)
    .flatMap((file) => questionsOf(file, Fs.readFileSync(Path.join(root, file), "utf8"), 2))
    .slice(0, limit)

interface Answer {
  readonly text: string
  readonly uris: ReadonlyArray<string>
  readonly ms: number
}

export interface BodiesPart {
  readonly questions: number
  readonly answered: number
  readonly rows: ReadonlyArray<{
    readonly question: Question
    readonly bodyBytes: number
    readonly plainBytes: number
    readonly fileBytes: number
    readonly referenceCalls: number
    readonly cut: boolean
    /** Whether some location of ours came without its code (see `missingBody` of the tool's rendering). */
    readonly missing: boolean
    readonly bodyMs: number
    readonly plainMs: number
  }>
}

const utf8 = (text: string) => Buffer.byteLength(text, "utf8")

export const measureBodies = async (options: Options): Promise<BodiesPart> => {
  const config = hostConfig(typescriptServer, { documentSync: "retained", projectMarkers: ["tsconfig.json"] })
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(
      LspStdio.layer(config).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer)),
      LspSession.layer(root),
      Logger.minimumLogLevel(LogLevel.Warning)
    )
  )
  const ask = async (question: Question, includeBody: boolean): Promise<Answer> => {
    const start = performance.now()
    const output = await runtime.runPromise(LspToolHandler.run({
      operation: "goToDefinition",
      file_path: question.file,
      line: question.line,
      character: question.character,
      ...(includeBody ? { include_body: true } : {})
    }))
    const ms = performance.now() - start
    const uris = output.result.kind === "locations" ? output.result.locations.map((l) => l.uri) : []
    return { text: output.text, uris, ms }
  }
  try {
    const asked = questions(options.quick ? 4 : 40)
    // The server loads the project on the first question: asked once, untimed, so neither contender pays it.
    for (const question of asked.slice(0, 1)) await ask(question, false)
    const rows: Array<BodiesPart["rows"][number]> = []
    for (const [index, question] of asked.entries()) {
      const [body, plain] = index % 2 === 0
        ? [await ask(question, true), await ask(question, false)]
        : (([p, b]) => [b, p])([await ask(question, false), await ask(question, true)])
      if (plain.uris.length === 0) continue
      const files = [...new Set(plain.uris)].filter((uri) => uri.startsWith("file:"))
      const fileBytes = files.reduce((sum, uri) => sum + Fs.statSync(fileURLToPath(uri)).size, 0)
      rows.push({
        question,
        bodyBytes: utf8(body.text),
        plainBytes: utf8(plain.text),
        fileBytes,
        referenceCalls: 1 + files.length,
        cut: body.text.includes(" not shown ("),
        missing: body.text.includes("(no code: "),
        bodyMs: body.ms,
        plainMs: plain.ms
      })
    }
    return { questions: asked.length, answered: rows.length, rows }
  } finally {
    await runtime.dispose()
  }
}

export const bodiesSection = (part: BodiesPart, options: Options): Section => {
  const rows = part.rows
  const ours = rows.reduce((sum, row) => sum + row.bodyBytes, 0)
  const reference = rows.reduce((sum, row) => sum + row.plainBytes + row.fileBytes, 0)
  const perQuestion = summarize(rows.map((row) => row.bodyBytes / (row.plainBytes + row.fileBytes)))
  const referenceCalls = rows.reduce((sum, row) => sum + row.referenceCalls, 0)
  const time = summarize(rows.map((row) => row.bodyMs / row.plainMs))
  const judged = options.quick ? null : perQuestion.median < 1 && referenceCalls > rows.length
  const targets: Array<Target> = [{
    name: "bodies: fewer bytes and fewer calls than definition + file read",
    goal: "the definition with its code costs the agent fewer bytes and fewer calls than goToDefinition and a read",
    measured: `bytes ${(ours / reference).toFixed(2)}× in all (median per question ${
      perQuestion.median.toFixed(2)
    }×); calls ${rows.length} against ${referenceCalls}`,
    pass: judged
  }]
  return {
    id: "bodies",
    title: "Bodies: a definition with its code, against a definition and a file read",
    method: `${part.questions} goToDefinition questions on this repository (relative imports of ` +
      `${sourceDirectories.join(" and ")}, asked at their first use), through the tool on ` +
      "typescript-language-server (retained documents): ours with include_body (default caps: 150 lines per body, " +
      "12 000 bytes per answer), the reference without it plus one whole-file read per file it points into. " +
      "Bytes are what the agent reads; time is ours against the plain goToDefinition call, interleaved.",
    tables: [{
      caption: "What the agent reads and how many calls it makes",
      columns: ["", "ours (include_body)", "reference (definition + read)", "ratio"],
      rows: [
        ["questions answered", String(rows.length), String(rows.length), ""],
        ["bytes read, in all", String(ours), String(reference), `${(ours / reference).toFixed(2)}×`],
        [
          "bytes read, per question (min / median / max)",
          "",
          "",
          `${perQuestion.min.toFixed(2)}× / ${perQuestion.median.toFixed(2)}× / ${perQuestion.max.toFixed(2)}×`
        ],
        ["calls", String(rows.length), String(referenceCalls), `${referenceCalls - rows.length} saved`],
        ["answers with a body cut by the caps", String(rows.filter((row) => row.cut).length), "", ""],
        ["answers with a location without code", String(rows.filter((row) => row.missing).length), "", ""],
        [
          "wall time against the plain call (min / median / max)",
          "",
          "",
          `${time.min.toFixed(2)}× / ${time.median.toFixed(2)}× / ${time.max.toFixed(2)}×`
        ]
      ]
    }],
    targets,
    notes: [
      `Questions without an answer (no location) are left out: ${part.questions - part.answered}.`,
      `Median bytes per question: ours ${median(rows.map((row) => row.bodyBytes))}, reference ${
        median(rows.map((row) => row.plainBytes + row.fileBytes))
      }.`
    ],
    data: {
      ...part,
      totals: { ours, reference, referenceCalls, ratio: round(ours / reference) },
      perQuestion,
      time
    }
  }
}
