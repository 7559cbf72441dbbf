/**
 * Compares this tree with another commit, side by side in one run (`npm run bench:against -- <ref>`): the
 * selected benchmarks run in both trees, alternating which goes first round by round, and every target's
 * headline ratio (ours over its reference, measured in that same run) is set against the other tree's.
 * A change that makes the stack slower shows as a ratio that grew; load on the machine hits both trees.
 *
 *   npm run bench:against -- HEAD~1                       latency and retained, 2 rounds each
 *   npm run bench:against -- main --only=latency --rounds=3
 *   npm run bench:against -- HEAD~1 --quick                a smoke run (few iterations: no verdict)
 *
 * The other commit is checked out in a worktree under the temporary directory and shares this tree's
 * node_modules (the bench resolves `@lsp-seam/*` to each tree's own sources); a commit whose dependencies
 * differ cannot be compared this way, and the script says so.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const root = Path.join(import.meta.dirname, "..")
const args = process.argv.slice(2)
const ref = args.find((arg) => !arg.startsWith("--"))
if (ref === undefined) {
  process.stderr.write("usage: npm run bench:against -- <git-ref> [--only=latency,retained] [--rounds=2]\n")
  process.exit(2)
}
const only = args.find((arg) => arg.startsWith("--only="))?.slice("--only=".length) ?? "latency,retained"
const quick = args.includes("--quick")
const rounds = Number(args.find((arg) => arg.startsWith("--rounds="))?.slice("--rounds=".length) ?? "2")

const git = (...gitArgs: Array<string>) =>
  ChildProcess.execFileSync("git", gitArgs, { cwd: root, encoding: "utf8" }).trim()

const sha = git("rev-parse", "--verify", `${ref}^{commit}`)
const lockOf = (tree: string) => Fs.readFileSync(Path.join(tree, "package-lock.json"), "utf8")
const other = Path.join(Os.tmpdir(), `lsp-seam-bench-${sha.slice(0, 12)}`)
if (!Fs.existsSync(other)) git("worktree", "add", "--detach", other, sha)
if (lockOf(other) !== lockOf(root)) {
  process.stderr.write(`${ref} (${sha.slice(0, 12)}) has other dependencies than this tree: compare by hand.\n`)
  process.exit(1)
}
if (!Fs.existsSync(Path.join(other, "node_modules"))) {
  Fs.symlinkSync(Path.join(root, "node_modules"), Path.join(other, "node_modules"))
}

/** One run of the selected benchmarks in `tree`: its targets table, as printed. */
const runIn = (tree: string): string => {
  const out = ChildProcess.execFileSync(
    process.execPath,
    ["--import", "tsx", Path.join(tree, "bench", "run.ts"), `--only=${only}`, ...(quick ? ["--quick"] : [])],
    { cwd: tree, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 * 1024 * 1024 }
  )
  return out.slice(out.indexOf("## Targets"))
}

interface Row {
  readonly target: string
  readonly ratio: number
}

/** Each target's headline ratio: the first `N×` of its measured column. */
const ratios = (targets: string): Array<Row> =>
  targets.split("\n").filter((line) => line.startsWith("| ") && /\d×/.test(line)).flatMap((line) => {
    const cells = line.split("|").map((cell) => cell.trim())
    const ratio = /([\d.]+)×/.exec(cells[4] ?? "")
    return ratio === null ? [] : [{ target: `${cells[1]}: ${cells[2]}`, ratio: Number(ratio[1]) }]
  })

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const runs: Record<"this" | "other", Array<Array<Row>>> = { this: [], other: [] }
for (let round = 0; round < rounds; round++) {
  // Alternate which tree goes first, so that neither always runs on a machine the other has warmed.
  const order: Array<"this" | "other"> = round % 2 === 0 ? ["other", "this"] : ["this", "other"]
  for (const which of order) {
    process.stderr.write(`[against] round ${round + 1}/${rounds}: ${which === "this" ? "this tree" : ref}\n`)
    runs[which].push(ratios(runIn(which === "this" ? root : other)))
  }
}

const targets = runs.this[0]?.map((row) => row.target) ?? []
const lines = [
  `Side by side, ${rounds} rounds each, alternating: this tree (${git("rev-parse", "--short", "HEAD")} + ` +
  `working tree) against ${ref} (${sha.slice(0, 12)}). Each figure is that run's ratio of ours over the ` +
  `reference measured in the same run (lower is better); the change compares the medians.`,
  "",
  "| target | " + ref + " (per round) | this tree (per round) | change of the median |",
  "| --- | --- | --- | ---: |"
]
for (const target of targets) {
  const of = (which: "this" | "other") =>
    runs[which].map((rows) => rows.find((row) => row.target === target)?.ratio).filter((r) => r !== undefined)
  const before = of("other")
  const after = of("this")
  const change = before.length === 0 || after.length === 0
    ? "n/a"
    : `${((median(after) / median(before) - 1) * 100).toFixed(1)} %`
  lines.push(
    `| ${target} | ${before.map((r) => `${r}×`).join(", ")} | ${after.map((r) => `${r}×`).join(", ")} | ${change} |`
  )
}
process.stdout.write(`${lines.join("\n")}\n`)
