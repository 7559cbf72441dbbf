/**
 * The cold compatibility suites run again and again on a loaded machine: `npx tsx
 * packages/lsp-stdio/test/compat/coldRuns.ts [rounds] [lanes] [suite]` (default 20 rounds, 1 lane, every
 * suite) runs every `*.cold.test.ts` (or the one named, e.g. `Clangd`, into a section of its own) once per round (each query of each on a fresh server) while the machine does other work, and
 * writes what it saw into the
 * section of docs/compatibility.md between the `cold-runs` markers: per suite, rounds passed, and the load
 * average during the rounds. A suite that failed names its failed queries. report.ts keeps the section when it
 * rewrites the rest of the file.
 */
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

const here = import.meta.dirname
const packageDirectory = NodePath.resolve(here, "../..")
const repository = NodePath.resolve(packageDirectory, "../..")
const output = NodePath.join(repository, "docs", "compatibility.md")

const rounds = Number(process.argv[2] ?? "20")
// Lanes run rounds side by side: each lane is CPU-heavy work for the others, as a busy machine would be.
const lanes = Number(process.argv[3] ?? "1")
const only = process.argv[4]
const suites = NodeFs.readdirSync(here)
  .filter((name) => name.endsWith(".cold.test.ts") && (only === undefined || name === `${only}.cold.test.ts`))
  .sort()
if (suites.length === 0) throw new Error(`no cold suite named ${only}`)
const startMarker = `<!-- cold-runs${only === undefined ? "" : `-${only}`}:start -->`
const endMarker = `<!-- cold-runs${only === undefined ? "" : `-${only}`}:end -->`

interface Outcome {
  readonly passed: boolean
  readonly failed: ReadonlyArray<string>
  readonly seconds: number
}

/** Runs a command to its end; its exit status and the tail of its stderr. */
const spawn = (command: string, args: ReadonlyArray<string>) =>
  new Promise<{ readonly status: number | null; readonly stderr: string }>((resolve) => {
    const child = ChildProcess.spawn(command, args, {
      cwd: packageDirectory,
      env: { ...process.env, CI: "true" },
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => stderr = (stderr + chunk).slice(-4000))
    child.on("close", (status) => resolve({ status, stderr }))
  })

/** One suite, once, in a vitest process of its own; the failed tests' names from its JSON report. */
const runOnce = async (suite: string, lane: number): Promise<Outcome> => {
  const report = NodePath.join(NodeOs.tmpdir(), `lsp-seam-cold-${process.pid}-${lane}.json`)
  const started = performance.now()
  const run = await spawn("npx", ["vitest", "run", `test/compat/${suite}`, "--reporter=json", `--outputFile=${report}`])
  const seconds = (performance.now() - started) / 1000
  let failed: Array<string> = []
  try {
    const json: unknown = JSON.parse(NodeFs.readFileSync(report, "utf8"))
    const files = typeof json === "object" && json !== null && "testResults" in json && Array.isArray(json.testResults)
      ? json.testResults
      : []
    failed = files.flatMap((file: unknown) =>
      typeof file === "object" && file !== null && "assertionResults" in file && Array.isArray(file.assertionResults)
        ? file.assertionResults.flatMap((test: unknown) =>
          typeof test === "object" && test !== null && "status" in test && test.status === "failed" &&
            "title" in test && typeof test.title === "string"
            ? [test.title]
            : []
        )
        : []
    )
  } catch {
    failed = [`no report (exit ${run.status}): ${run.stderr.slice(-300)}`]
  } finally {
    NodeFs.rmSync(report, { force: true })
  }
  return { passed: run.status === 0 && failed.length === 0, failed, seconds }
}

/** Writes what the rounds so far saw (after each round, so a run cut short still says how far it got). */
const write = (done: number) => {
  const sortedLoads = [...loads].sort((a, b) => a - b)
  const lines = [
    startMarker,
    only === undefined ? "## Cold runs on a loaded machine" : `## Cold runs on a loaded machine: ${only} again`,
    "",
    `Written by \`npx tsx packages/lsp-stdio/test/compat/coldRuns.ts ${process.argv.slice(2).join(" ")}\` on ${
      started.toISOString().slice(0, 10)
    }: ` +
    `${
      only === undefined ? "every cold suite" : `the ${only} cold suite`
    } (each query on a fresh server, the first answer compared with the recorded one), ${done} of ` +
    `${rounds} rounds${
      lanes > 1 ? `, ${lanes} at a time,` : ""
    } in a row, on ${NodeOs.cpus().length} cores (Node ${process.version}) while other CPU-heavy work ran ` +
    `(1-minute load average after each suite: min ${sortedLoads[0]!.toFixed(1)}, median ${
      sortedLoads[Math.floor(sortedLoads.length / 2)]!.toFixed(1)
    }, max ${sortedLoads[sortedLoads.length - 1]!.toFixed(1)}).`,
    "",
    "| suite | rounds passed | seconds per round (median) | failed queries |",
    "| --- | ---: | ---: | --- |",
    ...suites.map((suite) => {
      const outcomes = results.get(suite)!
      const seconds = outcomes.map((o) => o.seconds).sort((a, b) => a - b)
      const failed = [...new Set(outcomes.flatMap((o) => o.failed))]
      return `| ${suite.replace(".cold.test.ts", "")} | ${
        outcomes.filter((o) => o.passed).length
      } of ${outcomes.length} | ${seconds[Math.floor(seconds.length / 2)]!.toFixed(1)} | ${
        failed.join("; ").replace(/\|/g, "\\|")
      } |`
    }),
    "",
    endMarker
  ]
  const text = NodeFs.readFileSync(output, "utf8")
  const at = text.indexOf(startMarker)
  const end = text.indexOf(endMarker)
  const next = at >= 0 && end > at
    ? `${text.slice(0, at)}${lines.join("\n")}${text.slice(end + endMarker.length)}`
    : `${text.trimEnd()}\n\n${lines.join("\n")}\n`
  NodeFs.writeFileSync(output, next)
  process.stderr.write(`wrote ${output}\n`)
}

const started = new Date()
const loads: Array<number> = []
const results = new Map<string, Array<Outcome>>(suites.map((suite) => [suite, []]))
let nextRound = 1
let roundsDone = 0
const lane = async (id: number) => {
  while (nextRound <= rounds) {
    const round = nextRound++
    for (const suite of suites) {
      const outcome = await runOnce(suite, id)
      results.get(suite)!.push(outcome)
      loads.push(NodeOs.loadavg()[0]!)
      process.stderr.write(
        `round ${round}/${rounds} ${suite}: ${outcome.passed ? "passed" : `FAILED ${outcome.failed.join("; ")}`} ` +
          `(${outcome.seconds.toFixed(1)} s, load ${NodeOs.loadavg()[0]!.toFixed(1)})\n`
      )
    }
    write(++roundsDone)
  }
}
await Promise.all(Array.from({ length: lanes }, (_, id) => lane(id)))
