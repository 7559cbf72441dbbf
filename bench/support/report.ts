/**
 * What each benchmark hands back, and how the report is written: `bench/results.json` (every figure) and
 * `bench/results.md` (a table per benchmark, then every target with PASS or FAIL). A run of some reliability
 * benchmarks is merged into the previous reliability report (`merge`), which is read back with `decode`.
 */
import * as Schema from "effect/Schema"
import type { Machine, Summary } from "./stats.js"

export interface Target {
  readonly name: string
  /** The goal, as the issue states it. */
  readonly goal: string
  /** The measured figure the goal is judged on. */
  readonly measured: string
  /** `null` when not judged (a quick run is too short to judge). */
  readonly pass: boolean | null
  /** Why it failed, or what limits it; one line. */
  readonly note?: string
}

export interface Table {
  readonly caption: string
  readonly columns: ReadonlyArray<string>
  readonly rows: ReadonlyArray<ReadonlyArray<string>>
}

/**
 * A figure users feel (a wait, a memory size), with its reference measured in the same run: gathered from every
 * section into the table at the top of the report.
 */
export interface UserFigure {
  readonly figure: string
  readonly ours: string
  readonly reference: string
  /** Ours over the reference, as the section summarises it (paired where the runs were). */
  readonly ratio: string
}

export interface Section {
  readonly id: string
  readonly title: string
  /** How it was measured: workload, warm-up, runs, reference. */
  readonly method: string
  readonly tables: ReadonlyArray<Table>
  readonly targets: ReadonlyArray<Target>
  readonly notes?: ReadonlyArray<string>
  /** Its figures for the users' table at the top of the report. */
  readonly forUsers?: ReadonlyArray<UserFigure>
  /** Every figure behind the tables, for the JSON report. */
  readonly data: unknown
  readonly seconds?: number
  /** For a section kept from an earlier report by `merge`: the run that measured it. */
  readonly run?: EarlierRun
}

/** The run behind a section that a later, partial run kept. */
export interface EarlierRun {
  readonly command: string
  readonly generatedAt: string
  readonly machine: Machine
}

export interface Options {
  /** A smoke run: a few iterations of everything, targets not judged. */
  readonly quick: boolean
}

export interface Report {
  readonly generatedAt: string
  readonly command: string
  readonly quick: boolean
  readonly machine: Machine
  readonly seconds: number
  readonly sections: ReadonlyArray<Section>
  /** Processes of the run still alive at the end (must be empty). */
  readonly processesLeftBehind: ReadonlyArray<number>
}

const MachineSchema = Schema.Struct({
  node: Schema.String,
  platform: Schema.String,
  cpu: Schema.String,
  cpus: Schema.Number,
  totalMemoryMB: Schema.Number,
  loadAverage: Schema.Struct({
    before: Schema.Array(Schema.Number),
    after: Schema.optionalWith(Schema.Array(Schema.Number), { exact: true })
  })
})

const ReportSchema = Schema.Struct({
  generatedAt: Schema.String,
  command: Schema.String,
  quick: Schema.Boolean,
  machine: MachineSchema,
  seconds: Schema.Number,
  sections: Schema.Array(Schema.Struct({
    id: Schema.String,
    title: Schema.String,
    method: Schema.String,
    tables: Schema.Array(Schema.Struct({
      caption: Schema.String,
      columns: Schema.Array(Schema.String),
      rows: Schema.Array(Schema.Array(Schema.String))
    })),
    targets: Schema.Array(Schema.Struct({
      name: Schema.String,
      goal: Schema.String,
      measured: Schema.String,
      pass: Schema.NullOr(Schema.Boolean),
      note: Schema.optionalWith(Schema.String, { exact: true })
    })),
    notes: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
    forUsers: Schema.optionalWith(
      Schema.Array(Schema.Struct({
        figure: Schema.String,
        ours: Schema.String,
        reference: Schema.String,
        ratio: Schema.String
      })),
      { exact: true }
    ),
    data: Schema.Unknown,
    seconds: Schema.optionalWith(Schema.Number, { exact: true }),
    run: Schema.optionalWith(
      Schema.Struct({ command: Schema.String, generatedAt: Schema.String, machine: MachineSchema }),
      { exact: true }
    )
  })),
  processesLeftBehind: Schema.Array(Schema.Number)
})

/** A report as read back from its JSON file; throws when the file is not one. */
export const decode = (json: unknown): Report => Schema.decodeUnknownSync(ReportSchema)(json)

/**
 * `current`'s sections and, for each id of `order` it did not run, `previous`'s section, marked with the run
 * that measured it; in the order of `order`.
 */
export const merge = (previous: Report, current: Report, order: ReadonlyArray<string>): Report => {
  const earlier: EarlierRun = {
    command: previous.command,
    generatedAt: previous.generatedAt,
    machine: previous.machine
  }
  return {
    ...current,
    sections: order.flatMap((id) => {
      const fresh = current.sections.find((section) => section.id === id)
      if (fresh !== undefined) return [fresh]
      const kept = previous.sections.find((section) => section.id === id)
      return kept === undefined ? [] : [{ ...kept, run: kept.run ?? earlier }]
    })
  }
}

const loadOf = (machine: Machine) =>
  `before ${machine.loadAverage.before.join(", ")}, after ${machine.loadAverage.after?.join(", ") ?? "?"}`

export const ms = (value: number) => value < 10 ? value.toFixed(3) : value < 100 ? value.toFixed(2) : value.toFixed(1)

export const ratio = (value: number) => `${value.toFixed(2)}×`

export const ratioSummary = (summary: Summary) =>
  `${ratio(summary.median)} (${summary.min.toFixed(2)}–${summary.max.toFixed(2)})`

export const verdict = (pass: boolean | null) => pass === null ? "not judged" : pass ? "PASS" : "FAIL"

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ")

const table = (t: Table): Array<string> => [
  `**${t.caption}**`,
  "",
  `| ${t.columns.map(cell).join(" | ")} |`,
  `| ${t.columns.map((_, i) => i === 0 ? "---" : "---:").join(" | ")} |`,
  ...t.rows.map((row) => `| ${row.map(cell).join(" | ")} |`),
  ""
]

/** The figures users feel, from every section that has some, each with its reference and the run behind it. */
const usersTable = (report: Report): Array<string> => {
  const rows = report.sections.flatMap((section) =>
    (section.forUsers ?? []).map((f) =>
      `| ${cell(f.figure)} | ${cell(f.ours)} | ${cell(f.reference)} | ${cell(f.ratio)} | ${
        cell(`${section.title.replace(/^(\d+)\..*$/, "§$1")}${section.run === undefined ? "" : `, ${section.run.generatedAt.slice(0, 10)}`}`)
      } |`
    )
  )
  return rows.length === 0 ? [] : [
    "## What users wait for",
    "",
    "What an agent's user feels, each figure beside its reference from the same run (the section that measured",
    "it, and its date when it was kept from an earlier run). Medians unless the figure says otherwise.",
    "",
    "| figure | ours | reference (same run) | ratio | measured in |",
    "| --- | ---: | ---: | ---: | --- |",
    ...rows,
    ""
  ]
}

export const markdown = (report: Report): string => {
  const { machine } = report
  const lines: Array<string> = [
    "# lsp-seam benchmarks",
    "",
    `Generated by \`${report.command}\` at ${report.generatedAt} in ${Math.round(report.seconds)} s` +
    (report.quick ? " — **quick run: too few iterations to judge targets**." : "."),
    "",
    `Machine: ${machine.cpus} × ${machine.cpu}, ${machine.totalMemoryMB} MB, ${machine.platform}, Node ` +
    `${machine.node}. Load average (1, 5, 15 min) ${loadOf(machine)}.`,
    "",
    ...(report.sections.some((section) => section.run !== undefined)
      ? ["Sections kept from an earlier run name that run; the rest were measured by this one.", ""]
      : []),
    "Every figure is compared with a reference measured in the same run, interleaved with ours, so that load",
    "which comes and goes hits both. Ratios are ours over the reference, paired run by run, then summarised as",
    "median (min–max). Latencies are in milliseconds. Other work on the machine skews absolute figures: a load",
    "average near or above the number of cores means the ratios are the figures to read.",
    "",
    ...(Math.max(machine.loadAverage.before[0] ?? 0, machine.loadAverage.after?.[0] ?? 0) >= machine.cpus
      ? [
        `**This run shared the machine**: the 1-minute load average reached ${
          Math.max(machine.loadAverage.before[0] ?? 0, machine.loadAverage.after?.[0] ?? 0)
        } on ${machine.cpus} cores, so`,
        "absolute figures are slow and noisy, and latency ratios are inflated for whichever side uses more CPU.",
        ""
      ]
      : []),
    ...usersTable(report),
    "## Targets",
    "",
    "| benchmark | target | goal | measured | verdict | note |",
    "| --- | --- | --- | --- | --- | --- |"
  ]
  for (const section of report.sections) {
    for (const t of section.targets) {
      lines.push(
        `| ${cell(section.title)} | ${cell(t.name)} | ${cell(t.goal)} | ${cell(t.measured)} | ${verdict(t.pass)} | ${
          cell(t.note ?? "")
        } |`
      )
    }
  }
  lines.push("")
  lines.push(
    report.processesLeftBehind.length === 0
      ? "No process was left behind: every server process group and every descendant of the bench was gone at the end."
      : `**Processes left behind: ${report.processesLeftBehind.join(", ")}** (killed after the report).`,
    ""
  )
  for (const section of report.sections) {
    lines.push(`## ${section.title}`, "")
    if (section.run !== undefined) {
      lines.push(
        `Measured by \`${section.run.command}\` at ${section.run.generatedAt} (Node ${section.run.machine.node}, ` +
          `load average ${loadOf(section.run.machine)}).`,
        ""
      )
    }
    lines.push(section.method, "")
    for (const t of section.tables) lines.push(...table(t))
    for (const note of section.notes ?? []) lines.push(`- ${note}`)
    if ((section.notes ?? []).length > 0) lines.push("")
    if (section.seconds !== undefined) lines.push(`(${Math.round(section.seconds)} s)`, "")
  }
  return lines.join("\n")
}
