/**
 * Compares this tree with another commit, side by side in one run (`npm run bench:against -- <ref>`): the
 * selected benchmarks run in both trees, alternating which goes first round by round, and every target's
 * headline ratio (ours over its reference, measured in that same run) is set against the other tree's.
 * A change that makes the stack slower shows as a ratio that grew; load on the machine hits both trees.
 *
 *   npm run bench:against -- HEAD~1                       latency and retained, 2 rounds each
 *   npm run bench:against -- main --only=latency --rounds=3
 *   npm run bench:against -- HEAD~1 --quick                a smoke run (few iterations: no verdict)
 *   npm run bench:against -- HEAD~1 --together             both trees at once, each round
 *
 * One tree after the other, a machine that is shared (a VM, a CI runner) changes speed between the two runs
 * of a round by more than the change looked for; `--together` runs both trees at the same time instead, so
 * whatever slows the machine slows both, at the price of each having half of it (the ratios are higher).
 *
 * The other commit is checked out in a worktree under the temporary directory and shares this tree's
 * node_modules (the bench resolves `@lsp-seam/*` to each tree's own sources); a commit that locks a package
 * this tree does not have at the same version cannot be compared this way, and the script says so.
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
const together = args.includes("--together")
const rounds = Number(args.find((arg) => arg.startsWith("--rounds="))?.slice("--rounds=".length) ?? "2")

const git = (...gitArgs: Array<string>) =>
  ChildProcess.execFileSync("git", gitArgs, { cwd: root, encoding: "utf8" }).trim()

const sha = git("rev-parse", "--verify", `${ref}^{commit}`)
/** Every installed package of a tree's lockfile, by its path under the tree, with its version. */
const lockOf = (tree: string): Record<string, { readonly version?: string }> =>
  JSON.parse(Fs.readFileSync(Path.join(tree, "package-lock.json"), "utf8")).packages ?? {}
const other = Path.join(Os.tmpdir(), `lsp-seam-bench-${sha.slice(0, 12)}`)
if (!Fs.existsSync(other)) git("worktree", "add", "--detach", other, sha)
// The other tree runs on this tree's node_modules: fair only if every package it locks is installed here at
// the same version. Packages only this tree has (added since) are never loaded by the other tree's code.
const installed = lockOf(root)
const mismatched = Object.entries(lockOf(other)).filter(([path, entry]) =>
  path.includes("node_modules/") && installed[path]?.version !== entry.version
)
if (mismatched.length > 0) {
  process.stderr.write(
    `${ref} (${sha.slice(0, 12)}) locks packages this tree does not have at the same version ` +
      `(${mismatched.slice(0, 5).map(([path]) => path).join(", ")}${mismatched.length > 5 ? ", …" : ""}): ` +
      `compare by hand.\n`
  )
  process.exit(1)
}
if (!Fs.existsSync(Path.join(other, "node_modules"))) {
  Fs.symlinkSync(Path.join(root, "node_modules"), Path.join(other, "node_modules"))
}

/** One run of the selected benchmarks in `tree`: its targets table, as printed. */
const runIn = (tree: string): Promise<string> =>
  new Promise((resolve, reject) => {
    ChildProcess.execFile(
      process.execPath,
      ["--import", "tsx", Path.join(tree, "bench", "run.ts"), `--only=${only}`, ...(quick ? ["--quick"] : [])],
      { cwd: tree, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
      (error, out, err) => {
        process.stderr.write(err)
        if (error !== null) reject(error)
        else resolve(out.slice(out.indexOf("## Targets")))
      }
    )
  })

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
  const treeOf = (which: "this" | "other") => which === "this" ? root : other
  if (together) {
    process.stderr.write(`[against] round ${round + 1}/${rounds}: both trees at once\n`)
    const [first, second] = await Promise.all(order.map((which) => runIn(treeOf(which))))
    runs[order[0]!].push(ratios(first!))
    runs[order[1]!].push(ratios(second!))
    continue
  }
  for (const which of order) {
    process.stderr.write(`[against] round ${round + 1}/${rounds}: ${which === "this" ? "this tree" : ref}\n`)
    runs[which].push(ratios(await runIn(treeOf(which))))
  }
}

const targets = runs.this[0]?.map((row) => row.target) ?? []
const lines = [
  `Side by side, ${rounds} rounds each, ${together ? "both trees at once" : "alternating"}: this tree (${git("rev-parse", "--short", "HEAD")} + ` +
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
