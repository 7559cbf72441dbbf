/**
 * The section bench/realRepositories.ts writes into docs/compatibility.md: per repository, each question's
 * score and time cold, through a long-lived host the first time and again, and whether the three answers are the
 * same; then how each truth was established, and every answer that is not right, with what was missing or extra.
 */
import * as Os from "node:os"
import type { Question, Repository } from "./realRepositories.js"

/** One run of one question: the wall time of the command, and its JSON answer or its coded error. */
export interface Asked {
  readonly ms: number
  readonly result?: unknown
  readonly error?: string
}

/** An answer reduced to what the truth is compared with. */
export interface Reduced {
  /** `file:line` (or `name:line` for documentSymbol), sorted, unique. */
  readonly items: ReadonlyArray<string>
  /** hover's text. */
  readonly text: string
  /** Why the answer says it may be incomplete (`incompleteReasons`), empty when it does not. */
  readonly reasons: ReadonlyArray<string>
}

export interface Scored {
  readonly score: "right" | "flagged" | "silently partial" | "wrong" | "error"
  readonly missing: ReadonlyArray<string>
  readonly extra: ReadonlyArray<string>
  readonly detail: string
}

export interface Run {
  readonly asked: Asked
  readonly reduced?: Reduced
  readonly scored: Scored
}

export interface Row {
  readonly repository: Repository
  readonly question: Question
  /** cold, warm (first), warm (again) */
  readonly runs: ReadonlyArray<Run>
}

const runNames = ["cold", "warm, first", "warm, again"]

const describe = (question: Question): string => {
  const at = question.line === undefined ? question.file : `${question.file}:${question.line}`
  if (question.operation === "workspaceSymbol") return `workspaceSymbol \`${question.file}\``
  if (question.symbol === undefined) return `${question.operation} ${at}`
  const rename = question.newName === undefined ? "" : ` → \`${question.newName}\``
  return `${question.operation} \`${question.symbol}\`${rename} at ${at}`
}

const truthSize = (question: Question): string =>
  question.truth.kind === "text"
    ? "text"
    : question.truth.kind === "names"
    ? `${question.truth.required.length} names`
    : `${question.truth.required.length}${
      question.truth.optional === undefined ? "" : ` (+${question.truth.optional.length} optional)`
    }`

/** The score and time; a complete answer that still says it may be incomplete shows its reasons. */
const cell = (run: Run) => {
  const said = run.scored.score === "right" && (run.reduced?.reasons.length ?? 0) > 0
    ? ` (said: ${run.reduced!.reasons.join(", ")})`
    : ""
  return `${run.scored.score}${said}, ${(run.asked.ms / 1000).toFixed(1)} s`
}

const list = (items: ReadonlyArray<string>) =>
  items.length <= 8 ? items.join(", ") : `${items.slice(0, 8).join(", ")} and ${items.length - 8} more`

const totals = (rows: ReadonlyArray<Row>, index: number) => {
  const counts = new Map<string, number>()
  for (const row of rows) {
    counts.set(row.runs[index]!.scored.score, (counts.get(row.runs[index]!.scored.score) ?? 0) + 1)
  }
  return ["right", "flagged", "silently partial", "wrong", "error"].map((s) => `${counts.get(s) ?? 0} ${s}`).join(
    ", "
  )
}

/** The section, without its markers. */
export const render = (
  rows: ReadonlyArray<Row>,
  roots: ReadonlyMap<Repository, string>,
  signature: (asked: Asked, reduced: Reduced | undefined) => string,
  date: string
): string => {
  const out: Array<string> = []
  const load = Os.loadavg()[0]!.toFixed(1)
  out.push("## A real-repository record")
  out.push("")
  out.push(
    `Written by \`npx tsx bench/realRepositories.ts\` on ${date} (Node ${process.version}, ${Os.cpus().length} ` +
      `cores, 1-minute load average ${load} at the end, other work running beside it). Four public repositories ` +
      "at pinned commits, none of their code in this repository (the script brings each one, or says how). Every " +
      "question is asked from the repository's root as an agent asks it: `lsp-seam query <operation> <target> " +
      "--cwd <root> --json`. **Cold**: a fresh process (fresh language servers) for each question. **Warm**: the " +
      "same questions through one `lsp-seam serve` host (`--remote`), all of them once, then all again. " +
      "**Scores**: *right* — every result of the truth and nothing else; *flagged* — results are missing and the " +
      "answer says so (`incomplete`, with its reason); *silently partial* — results are missing and nothing says " +
      "so; *wrong* — a result that is not in the truth; *error* — no answer, the command's coded error. *right " +
      "(said: …)* — complete, though the answer says it may not be (its reasons). Locations " +
      "are compared as `file:line` sets. *Same*: whether the three runs gave the same results and flags."
  )
  out.push("")
  for (const [index, name] of runNames.entries()) out.push(`- ${name}: ${totals(rows, index)}`)
  for (const [repository, root] of roots) {
    const mine = rows.filter((row) => row.repository === repository)
    out.push("")
    out.push(
      `### ${repository.name} — ${repository.kind} (${repository.repository} at \`${
        repository.commit.slice(0, 12)
      }\`, ${repository.licence})`
    )
    out.push("")
    out.push(
      repository.notes + (repository.prepare === undefined
        ? ""
        : ` Prepared with: ${repository.prepare.map((c) => `\`${c.join(" ")}\``).join(", ")}.`)
    )
    out.push(
      `Brought to \`${root}\`.` + (repository.coldRemoves === undefined
        ? ""
        : ` Before each cold question the server's cache in the root (${
          repository.coldRemoves.map((c) => `\`${c}\``).join(", ")
        }) is removed.`)
    )
    out.push("")
    out.push("| # | question | truth | cold | warm, first | warm, again | same |")
    out.push("| ---: | --- | ---: | --- | --- | --- | --- |")
    for (const [n, row] of mine.entries()) {
      const signatures = new Set(row.runs.map((run) => signature(run.asked, run.reduced)))
      out.push(
        `| ${n + 1} | ${describe(row.question)} | ${truthSize(row.question)} | ${row.runs.map(cell).join(" | ")} | ${
          signatures.size === 1 ? "yes" : "no"
        } |`
      )
    }
    out.push("")
    out.push("Truths:")
    out.push("")
    for (const [n, row] of mine.entries()) out.push(`${n + 1}. ${row.question.truth.how}.`)
  }
  out.push("")
  out.push("### Answers that are not right")
  out.push("")
  let any = false
  for (const row of rows) {
    const n = rows.filter((r) => r.repository === row.repository).indexOf(row) + 1
    for (const [index, run] of row.runs.entries()) {
      if (run.scored.score === "right") continue
      any = true
      const parts = [
        run.scored.detail,
        run.scored.missing.length > 0 ? `missing ${list(run.scored.missing)}` : "",
        run.scored.extra.length > 0 ? `not in the truth: ${list(run.scored.extra)}` : ""
      ].filter((part) => part !== "")
      out.push(
        `- ${row.repository.name} #${n} (${describe(row.question)}), ${runNames[index]}: **${run.scored.score}** — ${
          parts.join("; ").replace(/\|/g, "\\|")
        }`
      )
    }
  }
  if (!any) out.push("None.")
  return out.join("\n")
}
