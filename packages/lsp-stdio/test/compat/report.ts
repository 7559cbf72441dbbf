/**
 * Writes docs/compatibility.md from a real run of the compatibility suites' queries through the stdio host:
 * per server its version, how long its handshake and first answer take, when its answers become the warm ones,
 * and peak resident memory; which of the seam's operations it supports, with the warm latency of each.
 *
 * Run from the repository root, after `npm run build` (tsx resolves @lsp-seam/lsp to its build):
 *   npx tsx packages/lsp-stdio/test/compat/report.ts [suite ...]
 * Takes about ten minutes on two cores. Timings are wall-clock on the machine that runs it: noisy, so the
 * document says which machine and how loaded it was.
 */
import { NodeContext } from "@effect/platform-node"
import { type LspQuery, LspService } from "@lsp-seam/lsp"
import { Duration, Effect, Fiber, Layer, Option, Schedule } from "effect"
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import * as LspStdio from "../../src/LspStdio.js"
import { StdioStatus } from "../../src/StdioStatus.js"
import * as Servers from "./servers.js"
import {
  type Answer,
  ask,
  documentSync,
  type Expected,
  hostLayer,
  installed,
  operations,
  type Query,
  readExpected,
  sameAnswer,
  workspace
} from "./support.js"

const repository = fileURLToPath(new URL("../../../../", import.meta.url))
const output = NodePath.join(repository, "docs", "compatibility.md")

const warmRuns = 5
const handshakeRuns = 3
const settleBudgetMs = 30_000
// Asked again at once, then every 250 ms.
const settleSpacing = "250 millis"

const version = (suite: Servers.Suite): string => {
  if ("npm" in suite.from) {
    const file = NodePath.join(repository, "node_modules", suite.from.npm, "package.json")
    const { version } = JSON.parse(NodeFs.readFileSync(file, "utf8")) as { version: string }
    return `${suite.from.npm} ${version} (npm)`
  }
  const debian = ChildProcess.execFileSync("dpkg-query", ["-W", "-f=${Version}", suite.from.debian], {
    encoding: "utf8"
  })
  return `${suite.from.debian} ${debian} (Debian)`
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

const elapsed = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.timed(self), ([duration, value]) => [value, Duration.toMillis(duration)] as const)

/** Samples the resident memory of every server of the host, keeping the largest sum seen. */
const sampleMemory = (peak: { bytes: number }) =>
  Effect.flatMap(StdioStatus, (host) =>
    host.status.pipe(
      Effect.tap((servers) =>
        Effect.sync(() => {
          const total = servers.reduce((sum, server) => sum + (server.rssBytes ?? 0), 0)
          peak.bytes = Math.max(peak.bytes, total)
        })
      ),
      Effect.repeat(Schedule.spaced("100 millis"))
    ))

interface ColdRun {
  readonly query: Query
  readonly first: Answer
  readonly firstMs: number
  readonly firstCorrect: boolean
  /** Milliseconds from the first query until the warm answer came; null if it never did within the budget. */
  readonly settledMs: number | null
}

interface SuiteReport {
  readonly suite: Servers.Suite
  readonly expected: Expected
  readonly version: string
  readonly providers: ReadonlyArray<{
    readonly id: string
    readonly serverInfo: string
    readonly operations: ReadonlyArray<LspQuery.LspProviderOperation>
    readonly diagnosticsMode: "pull" | "push" | null
    readonly handshakeMs: number | null
  }>
  readonly cold: ReadonlyArray<ColdRun>
  readonly warm: ReadonlyArray<{ readonly query: Query; readonly ms: number; readonly correct: boolean }>
  /** Per provider: the warm time of a diagnostics query on the first file the suite asks it about. */
  readonly diagnostics: ReadonlyMap<string, { readonly ms: number; readonly pending: boolean }>
  readonly peakRssBytes: number
}

const measure = (suite: Servers.Suite) =>
  Effect.gen(function*() {
    const expected = readExpected(suite)
    const peak = { bytes: 0 }

    const diagnoses = yield* Effect.forEach(
      Array.from({ length: handshakeRuns }),
      () =>
        Effect.scoped(
          Effect.flatMap(workspace(suite), (root) => LspStdio.diagnose({ servers: suite.servers }, root))
        ).pipe(Effect.provide(NodeContext.layer))
    )
    const providers = (diagnoses[0] ?? []).map((diagnosis, i) => {
      const starts = diagnoses.flatMap((d) => d[i]?.startMs ?? [])
      return {
        id: diagnosis.providerId,
        serverInfo: diagnosis.serverInfo === null
          ? "(none)"
          : `${diagnosis.serverInfo.name}${
            diagnosis.serverInfo.version === undefined ? "" : ` ${diagnosis.serverInfo.version}`
          }`,
        operations: operations.filter((op) => diagnosis.operations[op]),
        diagnosticsMode: diagnosis.diagnosticsMode,
        handshakeMs: starts.length === 0 ? null : median(starts)
      }
    })

    // Cold: a fresh host per query; ask again every 250 ms until the warm answer comes.
    const cold = yield* Effect.forEach(expected.queries, (query) =>
      Effect.scoped(Effect.gen(function*() {
        const root = yield* workspace(suite)
        const context = yield* Layer.build(hostLayer(suite))
        const sampler = yield* Effect.fork(Effect.provide(sampleMemory(peak), context))
        const [first, firstMs] = yield* elapsed(Effect.provide(ask(root, query), context))
        const firstCorrect = sameAnswer(first, query.answer)
        const settledMs = firstCorrect ? firstMs : yield* elapsed(
          Effect.provide(ask(root, query), context).pipe(
            Effect.repeat({
              until: (answer) => sameAnswer(answer, query.answer),
              schedule: Schedule.spaced(settleSpacing)
            }),
            Effect.timeout(Math.max(0, settleBudgetMs - firstMs)),
            Effect.option
          )
        ).pipe(Effect.map(([settled, ms]) => Option.isSome(settled) ? firstMs + ms : null))
        yield* Fiber.interrupt(sampler)
        return { query, first, firstMs, firstCorrect, settledMs } satisfies ColdRun
      })))

    // Warm: one host; settle every query first, then time each `warmRuns` times.
    const warm = yield* Effect.scoped(Effect.gen(function*() {
      const root = yield* workspace(suite)
      const context = yield* Layer.build(hostLayer(suite))
      const sampler = yield* Effect.fork(Effect.provide(sampleMemory(peak), context))
      for (const query of expected.queries) {
        yield* Effect.provide(ask(root, query), context).pipe(
          Effect.repeat({
            until: (answer) => sameAnswer(answer, query.answer),
            schedule: Schedule.spaced(settleSpacing)
          }),
          Effect.timeout(settleBudgetMs),
          Effect.ignore
        )
      }
      const results = yield* Effect.forEach(expected.queries, (query) =>
        Effect.gen(function*() {
          const runs = yield* Effect.forEach(
            Array.from({ length: warmRuns }),
            () => elapsed(Effect.provide(ask(root, query), context))
          )
          return {
            query,
            ms: median(runs.map(([, ms]) => ms)),
            correct: runs.every(([answer]) => sameAnswer(answer, query.answer))
          }
        }))
      // Diagnostics of each server's first file: settled once, then timed like the others.
      const diagnostics = new Map<string, { readonly ms: number; readonly pending: boolean }>()
      for (const id of Object.keys(suite.servers)) {
        const file = expected.queries.find((query) => providerOf(suite, query.file) === id)?.file
        if (file === undefined) continue
        const asked = Effect.provide(
          LspService.query({ operation: "diagnostics", filePath: file, workspaceRoot: root }),
          context
        )
        yield* Effect.ignore(asked)
        const runs = yield* Effect.forEach(Array.from({ length: warmRuns }), () => elapsed(Effect.either(asked)))
        diagnostics.set(id, {
          ms: median(runs.map(([, ms]) => ms)),
          pending: runs.some(([answer]) => answer._tag === "Left" || answer.right.incomplete === true)
        })
      }
      yield* Fiber.interrupt(sampler)
      return { results, diagnostics }
    }))

    return {
      suite,
      expected,
      version: version(suite),
      providers,
      cold,
      warm: warm.results,
      diagnostics: warm.diagnostics,
      peakRssBytes: peak.bytes
    } satisfies SuiteReport
  })

const ms = (value: number | null): string => value === null ? "never" : `${Math.round(value)}`

/** The provider a file routes to: the server whose extensions include the file's final extension. */
const providerOf = (suite: Servers.Suite, file: string): string | undefined => {
  const extension = NodePath.extname(file).toLowerCase()
  return Object.keys(suite.servers).find((id) =>
    Object.keys(suite.servers[id]?.extensionToLanguage ?? {}).some((key) =>
      (key.startsWith(".") ? key : `.${key}`).toLowerCase() === extension
    )
  )
}

/** The report row of a provider: the suite, and the provider when the suite has several. */
const serverName = (report: SuiteReport, providerId: string): string =>
  report.providers.length > 1 ? `${report.suite.name} (${providerId})` : report.suite.name

const render = (reports: ReadonlyArray<SuiteReport>, skipped: ReadonlyArray<string>, started: Date): string => {
  const lines: Array<string> = []
  const [load1, load5] = NodeOs.loadavg()
  lines.push(
    "# Language server compatibility",
    "",
    "Generated by `packages/lsp-stdio/test/compat/report.ts` from a run of the compatibility suites' queries through",
    `the stdio host (${documentSync} documents, the configuration of \`packages/lsp-stdio/test/compat/servers.ts\`,`,
    "which mirrors the CLI presets). Do not edit by hand: run `npm run build && npx tsx",
    "packages/lsp-stdio/test/compat/report.ts` (`LSP_SEAM_COMPAT_DOCUMENT_SYNC=transient` for the other mode).",
    "",
    `Run: ${started.toISOString().slice(0, 10)}, Node ${process.version}, ${NodeOs.cpus().length} cores, ` +
      `load average ${load1?.toFixed(1)} / ${load5?.toFixed(1)} (1 / 5 min) at the end. Timings are wall-clock ` +
      "milliseconds on that machine and move with its load; compare orders of magnitude, not digits.",
    "",
    "Columns:",
    "- **handshake**: spawn until `initialize` is answered (median of 3).",
    "- **first answer**: a fresh server per query; from the query until its answer, handshake included (median over",
    "  the queries).",
    "- **cold = warm**: of the queries, how many had the warm answer as the first answer of a fresh server, in this run.",
    "- **settled**: on a fresh server, when the last query got its warm answer, asking again at once and then every",
    "  250 ms (the slowest query; `never` means not within 30 s).",
    "- **peak RSS**: the largest resident memory of the server's process group seen while it ran.",
    "",
    "| server | version | handshake | first answer | cold = warm | settled | peak RSS |",
    "|---|---|---|---|---|---|---|"
  )
  for (const report of reports) {
    for (const provider of report.providers) {
      const queries = <Row extends { readonly query: Query }>(rows: ReadonlyArray<Row>) =>
        rows.filter((row) => providerOf(report.suite, row.query.file) === provider.id)
      const cold = queries(report.cold)
      const settled = cold.some((run) => run.settledMs === null)
        ? null
        : Math.max(...cold.map((run) => run.settledMs ?? 0))
      const multi = report.providers.length > 1
      lines.push(
        `| ${serverName(report, provider.id)} | ${report.version} | ${ms(provider.handshakeMs)} | ${
          ms(median(cold.map((run) => run.firstMs)))
        } | ${cold.filter((run) => run.firstCorrect).length} / ${cold.length} | ${ms(settled)} | ${
          multi ? "(shared) " : ""
        }${(report.peakRssBytes / 1_048_576).toFixed(0)} MiB |`
      )
    }
  }
  if (skipped.length > 0) lines.push("", `Not measured (executables not installed): ${skipped.join(", ")}.`)

  lines.push(
    "",
    "## Operations",
    "",
    "Which of the seam's operations each server supports, as it advertises them in its `initialize` answer and as",
    "the suite's queries found them:",
    "- **yes (N)**: advertised and answered; N is the warm latency, the median over its queries of the median of 5",
    "  asks on one server that has settled (milliseconds).",
    "- **unsupported**: not advertised; the seam answers `LSP_UNSUPPORTED_OPERATION` without asking the server, and",
    "  the suite asserts exactly that. **unsupported (advertised, method not found)**: advertised, but the server",
    "  answers the request with JSON-RPC -32601, which the host reports as `LSP_UNSUPPORTED_OPERATION` too.",
    "- **fails (CODE)**: advertised, but every query of the suite fails with CODE (see the notes).",
    "- **diagnostics**: `pull` when the server answers `textDocument/diagnostic`, `push` when the host waits for",
    "  what it publishes; N is the warm time of a diagnostics query on the first file the suite asks it about",
    "  (for push servers the host's quiet period is included when the set arrives with the query); `pending` when",
    "  an answer was not known to be for the current text. Cold, after-a-change and transient figures:",
    "  [diagnostics-compatibility.md](diagnostics-compatibility.md).",
    "",
    "A supported operation may still answer partially or wrongly on some query: the expected answers record what",
    "the server gives, and the notes below say where it falls short of the right answer.",
    "",
    `| server | ${operations.join(" | ")} | diagnostics |`,
    `|---|${operations.map(() => "---").join("|")}|---|`
  )
  for (const report of reports) {
    for (const provider of report.providers) {
      const warm = report.warm.filter((row) => providerOf(report.suite, row.query.file) === provider.id)
      const cell = (op: LspQuery.LspProviderOperation): string => {
        if (!provider.operations.includes(op)) return "unsupported"
        const rows = warm.filter((row) => row.query.operation === op)
        if (rows.length === 0) return "yes (not asked)"
        const failures = rows.flatMap((row) => "error" in row.query.answer ? [row.query.answer.error] : [])
        if (failures.length === rows.length && failures.every((code) => code === "LSP_UNSUPPORTED_OPERATION")) {
          return "unsupported (advertised, method not found)"
        }
        if (failures.length === rows.length) return `fails (${[...new Set(failures)].join(", ")})`
        return `yes (${ms(median(rows.map((row) => row.ms)))})`
      }
      const diagnostics = report.diagnostics.get(provider.id)
      const diagnosticsCell = provider.diagnosticsMode === null || diagnostics === undefined
        ? "not asked"
        : `${provider.diagnosticsMode} (${ms(diagnostics.ms)})${diagnostics.pending ? ", pending" : ""}`
      lines.push(`| ${serverName(report, provider.id)} | ${operations.map(cell).join(" | ")} | ${diagnosticsCell} |`)
    }
  }

  lines.push(
    "",
    "## First answers that differ from the warm answer",
    "",
    "The readiness problem of issue 7. Every query whose first answer on a fresh server differed from the warm one in",
    "this run, or in any run while the expected answers were measured (their `cold` entries; some are races that a",
    "single run may not show).",
    "",
    "| query | operation | first answer in this run | wrong first answers recorded | warm answer | settled in this run (ms) |",
    "|---|---|---|---|---|---|"
  )
  const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`
  const summary = (answer: Answer): string =>
    "locations" in answer
      ? count(answer.locations.length, "location")
      : "hover" in answer
      ? answer.hover === null ? "no hover" : `hover (${answer.hover.contents.length} chars)`
      : "symbols" in answer
      ? count(answer.symbols.length, "symbol")
      : "calls" in answer
      ? count(answer.calls.length, "call")
      : answer.error
  let differing = 0
  for (const report of reports) {
    for (const run of report.cold) {
      if (run.firstCorrect && run.query.cold === undefined) continue
      differing++
      lines.push(
        `| ${report.suite.name} ${run.query.name} | ${run.query.operation} | ${
          run.firstCorrect ? "the warm answer" : summary(run.first)
        } | ${(run.query.cold?.answers ?? []).map(summary).join("; ") || "none"} | ${summary(run.query.answer)} | ${
          ms(run.settledMs)
        } |`
      )
    }
  }
  if (differing === 0) lines.push("| (none) | | | | | |")

  lines.push("", "## Notes", "")
  for (const report of reports) {
    if (report.expected.notes.length > 0) lines.push(`- **${report.suite.name}**: ${report.expected.notes.join(" ")}`)
  }

  lines.push("", "## Configuration", "")
  for (const report of reports) {
    for (const [id, server] of Object.entries(report.suite.servers)) {
      const { args: _args, command: _command, ...rest } = server
      lines.push(`- **${report.suite.name}** \`${id}\`: \`${JSON.stringify(rest)}\``)
    }
  }
  lines.push("")
  return lines.join("\n")
}

const wanted = process.argv.slice(2)
const suites = Servers.all.filter((suite) => wanted.length === 0 || wanted.includes(suite.name))
const available = suites.filter(installed)
const skipped = suites.filter((suite) => !installed(suite)).map((suite) => suite.name)
const started = new Date()

const program = Effect.gen(function*() {
  const reports: Array<SuiteReport> = []
  for (const suite of available) {
    yield* Effect.sync(() => process.stderr.write(`measuring ${suite.name}\n`))
    reports.push(yield* measure(suite))
  }
  // Sections other runs write between their markers (coldRuns.ts, bench/monorepoCounts.ts) are kept as they are.
  const previous = NodeFs.existsSync(output) ? NodeFs.readFileSync(output, "utf8") : ""
  const kept = [...previous.matchAll(/<!-- ([a-z-]+):start -->[\s\S]*?<!-- \1:end -->/g)].map((match) => match[0])
  NodeFs.writeFileSync(
    output,
    [render(reports, skipped, started), ...kept].join("\n\n") + (kept.length > 0 ? "\n" : "")
  )
  yield* Effect.sync(() => process.stderr.write(`wrote ${output}\n`))
})

Effect.runPromise(program).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${String(error)}\n`)
    process.exit(1)
  }
)
