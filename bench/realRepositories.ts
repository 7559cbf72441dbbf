/**
 * The real-repository record (issue 41): four public repositories at pinned commits (bench/support/
 * realRepositories.ts), each asked its questions through the real command from its root, as an agent asks —
 * `lsp-seam query <operation> <target> --cwd <root> --json` — first cold (a fresh process, and so fresh language
 * servers, for every question), then twice through one long-lived host (`lsp-seam serve`, the same questions
 * with `--remote`). Each answer is scored against the recorded truth: right, flagged (missing results, and the
 * answer says so), silently partial (missing results, and nothing says so), wrong (a result that is not in the
 * truth), or error (no answer: the command's coded error). The table and the findings are written into
 * docs/compatibility.md between `<!-- real-repositories:start -->` and `<!-- real-repositories:end -->`.
 *
 *   npx tsx bench/realRepositories.ts [--only NAME] [--no-write]
 *
 * The repositories live in `$LSP_SEAM_REPOS/<name>` (default `~/lsp-seam-repos`), outside this repository:
 * nothing of theirs is committed here. A missing one is brought at its commit from `$LSP_SEAM_MIRRORS/<owner>+
 * <name>/repo` (a bare git directory, as the search tool's `fetch` leaves one) when that exists; else the run
 * stops and says how to bring it (`git clone` and `git checkout` of the pinned commit). Language servers: the
 * devDependencies (typescript-language-server, pyright) from this repository's node_modules/.bin, put on PATH as
 * an agent's installed ones are; clangd, gopls and go from Debian.
 */
import { LspResult } from "@lsp-seam/lsp"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { spawn, spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { type Question, repositories, type Repository, type Truth } from "./support/realRepositories.js"
import { type Asked, type Reduced, render, type Row, type Scored } from "./support/realRepositoriesReport.js"

const thisRepository = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "")
const bin = Path.join(thisRepository, "packages", "cli", "dist", "bin.js")
const output = Path.join(thisRepository, "docs", "compatibility.md")
const reposRoot = process.env.LSP_SEAM_REPOS ?? Path.join(Os.homedir(), "lsp-seam-repos")
const mirrors = process.env.LSP_SEAM_MIRRORS ?? "/work/.mirror"
const environment = {
  ...process.env,
  PATH: `${Path.join(thisRepository, "node_modules", ".bin")}${Path.delimiter}${process.env.PATH ?? ""}`
}
/** A question that has not answered by then is stopped (the command's own budget is 60 s). */
const killAfterMs = 180_000

// --- the repositories -----------------------------------------------------------------------------------------

const stampOf = (directory: string) => Path.join(directory, ".lsp-seam-commit")

const headOf = (directory: string): string | undefined => {
  const head = spawnSync("git", ["-C", directory, "rev-parse", "HEAD"], { encoding: "utf8" })
  return head.status === 0 ? head.stdout.trim() : undefined
}

const run = (command: ReadonlyArray<string>, cwd: string) => {
  const done = spawnSync(command[0]!, command.slice(1), { cwd, encoding: "utf8", shell: false })
  if (done.status !== 0) throw new Error(`${command.join(" ")} failed in ${cwd}: ${done.stderr}`)
}

/** The repository's root at its pinned commit: found, or brought from a mirror, or how to bring it. */
const bring = (repository: Repository): string => {
  const directory = Path.join(reposRoot, repository.name)
  const stamp = stampOf(directory)
  const atCommit = (Fs.existsSync(stamp) && Fs.readFileSync(stamp, "utf8").trim() === repository.commit) ||
    (Fs.existsSync(Path.join(directory, ".git")) && headOf(directory) === repository.commit)
  if (atCommit) return directory
  if (Fs.existsSync(directory)) {
    throw new Error(`${directory} is not ${repository.repository} at ${repository.commit}: move it away first.`)
  }
  const mirror = Path.join(mirrors, repository.repository.replace("/", "+"), "repo")
  if (!Fs.existsSync(mirror)) {
    throw new Error(
      `${repository.repository} is not in ${directory}. Bring it at its commit, then run again:\n` +
        `  git clone https://github.com/${repository.repository} ${directory} && ` +
        `git -C ${directory} checkout ${repository.commit}` +
        (repository.prepare === undefined
          ? ""
          : `\n  (the run then prepares it: ${repository.prepare.map((c) => c.join(" ")).join("; ")})`)
    )
  }
  Fs.mkdirSync(directory, { recursive: true })
  const archive = spawnSync("sh", [
    "-c",
    `git --git-dir="$0" archive "$1" | tar -x -C "$2"`,
    mirror,
    repository
      .commit,
    directory
  ], { encoding: "utf8" })
  if (archive.status !== 0) throw new Error(`git archive of ${repository.repository} failed: ${archive.stderr}`)
  for (const command of repository.prepare ?? []) run(command, directory)
  Fs.writeFileSync(stamp, `${repository.commit}\n`)
  return directory
}

// --- asking -------------------------------------------------------------------------------------------------

/** The command-line target: `file:line:column` (the column of the symbol's first whole-word occurrence). */
const targetOf = (root: string, question: Question): string => {
  if (question.line === undefined || question.symbol === undefined) return question.file
  const text = Fs.readFileSync(Path.join(root, question.file), "utf8").split("\n")[question.line - 1] ?? ""
  const match = new RegExp(`(?<![\\w$])${question.symbol}(?![\\w$])`).exec(text)
  if (match === null) throw new Error(`${question.symbol} is not on ${question.file}:${question.line}`)
  return `${question.file}:${question.line}:${match.index + 1}`
}

const ask = (root: string, question: Question, remote: string | undefined): Promise<Asked> =>
  new Promise((resolve) => {
    const args = [bin, "query", question.operation, targetOf(root, question), "--cwd", root, "--json"]
    if (question.newName !== undefined) args.push("--new-name", question.newName)
    if (remote !== undefined) args.push("--remote", remote)
    const started = performance.now()
    const child = spawn(process.execPath, args, { cwd: root, env: environment, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => child.kill("SIGTERM"), killAfterMs)
    child.on("close", (code) => {
      clearTimeout(timer)
      const ms = performance.now() - started
      if (code === 0) {
        try {
          resolve({ ms, result: JSON.parse(stdout) })
          return
        } catch {
          resolve({ ms, error: `unreadable output: ${stdout.slice(0, 200)}` })
          return
        }
      }
      const coded = /error\[(\w+)\]: ([^\n]*)/.exec(stderr)
      resolve({
        ms,
        error: coded === null ? `exit ${code}: ${stderr.trim().slice(0, 300)}` : `${coded[1]}: ${coded[2]}`
      })
    })
  })

// --- reading and scoring ------------------------------------------------------------------------------------

const lastIdentifier = (name: string) => (name.match(/[A-Za-z_$][\w$]*/g) ?? [name]).at(-1) ?? name

/** The answer as the seam's result Schema reads it: what is not a result is an error, not a score. */
const decode = Schema.decodeUnknownEither(LspResult.LspQueryResult)

const reduce = (root: string, question: Question, result: LspResult.LspQueryResult): Reduced => {
  const at = (uri: string, line: number) => {
    const path = uri.startsWith("file:") ? fileURLToPath(uri) : uri
    const relative = Path.relative(root, path)
    return `${relative.startsWith("..") ? path : relative}:${line + 1}`
  }
  const items: Array<string> = []
  let text = ""
  if (result.kind === "locations") { for (const l of result.locations) items.push(at(l.uri, l.range.start.line)) }
  if (result.kind === "calls") {
    for (const c of result.calls) for (const r of c.fromRanges) items.push(at(c.fromUri, r.start.line))
  }
  if (result.kind === "edits") { for (const e of result.edits) items.push(at(e.uri, e.range.start.line)) }
  if (result.kind === "diagnostics") {
    for (const d of result.diagnostics) items.push(at(d.uri, d.range.start.line))
  }
  if (result.kind === "symbols") {
    for (const s of result.symbols) {
      if (question.operation === "documentSymbol") {
        items.push(`${lastIdentifier(s.name)}:${s.selectionRange.start.line + 1}`)
      } else if (lastIdentifier(s.name) === question.file) items.push(at(s.uri, s.selectionRange.start.line))
    }
  }
  if (result.kind === "hover") text = result.hover?.contents ?? ""
  const reasons = LspResult.incompleteReasonsOf(result).map((r) => r.reason)
  return {
    items: [...new Set(items)].sort(),
    text,
    reasons: reasons.length > 0 || result.incomplete !== true ? reasons : ["incomplete"]
  }
}

const score = (truth: Truth, asked: Asked, reduced: Reduced | undefined): Scored => {
  if (reduced === undefined) return { score: "error", missing: [], extra: [], detail: asked.error ?? "" }
  const flagged = reduced.reasons.length > 0
  const detail = flagged ? `flagged ${reduced.reasons.join(", ")}` : ""
  if (truth.kind === "text") {
    const missing = truth.contains.filter((part) => !reduced.text.includes(part))
    if (missing.length === 0) return { score: "right", missing, extra: [], detail }
    return { score: flagged && reduced.text === "" ? "flagged" : "wrong", missing, extra: [], detail }
  }
  const got = new Set(reduced.items)
  const missing = truth.required.filter((item) => !got.has(item))
  const allowed = new Set([...truth.required, ...(truth.kind === "lines" ? truth.optional ?? [] : [])])
  const extra = truth.kind === "lines" ? reduced.items.filter((item) => !allowed.has(item)) : []
  const verdict: Scored["score"] = extra.length > 0
    ? "wrong"
    : missing.length === 0
    ? "right"
    : flagged
    ? "flagged"
    : "silently partial"
  return { score: verdict, missing, extra, detail }
}

/** What two runs are compared by: the results and the flags (not the timing). */
const signature = (asked: Asked, reduced: Reduced | undefined) =>
  reduced === undefined
    ? `error ${asked.error?.split(":")[0]}`
    : JSON.stringify([reduced.items, reduced.text, reduced.reasons])

// --- the serve process ----------------------------------------------------------------------------------------

const startHost = async (socket: string) => {
  const child = spawn(process.execPath, [bin, "serve", "--socket", socket, "--root", reposRoot], {
    cwd: reposRoot,
    env: environment,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let log = ""
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${log}`)), 60_000)
    child.stderr.on("data", (chunk: Buffer) => {
      log += chunk.toString()
      if (log.includes("listening on")) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.stdout.on("data", (chunk: Buffer) => {
      log += chunk.toString()
      if (log.includes("listening on")) {
        clearTimeout(timer)
        resolve()
      }
    })
  })
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("close", () => resolve())
        child.kill("SIGTERM")
      })
  }
}

// --- the run ------------------------------------------------------------------------------------------------

const askAll = async (roots: Map<Repository, string>, remote: string | undefined, label: string) => {
  const out = new Map<Question, { asked: Asked; reduced?: Reduced; scored: Scored }>()
  for (const [repository, root] of roots) {
    for (const question of repository.questions) {
      if (remote === undefined) {
        for (const cache of repository.coldRemoves ?? []) {
          Fs.rmSync(Path.join(root, cache), { recursive: true, force: true })
        }
      }
      const raw = await ask(root, question, remote)
      const decoded = raw.result === undefined ? undefined : decode(raw.result)
      const asked: Asked = decoded !== undefined && Either.isLeft(decoded)
        ? { ms: raw.ms, error: `not a result: ${decoded.left.message.slice(0, 200)}` }
        : raw
      const reduced = decoded !== undefined && Either.isRight(decoded)
        ? reduce(root, question, decoded.right)
        : undefined
      const scored = score(question.truth, asked, reduced)
      console.log(
        `${label.padEnd(6)} ${repository.name.padEnd(6)} ${question.operation.padEnd(18)} ` +
          `${(asked.ms / 1000).toFixed(1).padStart(6)} s  ${scored.score}${scored.detail ? ` (${scored.detail})` : ""}`
      )
      out.set(question, reduced === undefined ? { asked, scored } : { asked, reduced, scored })
    }
  }
  return out
}

const main = async () => {
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined
  const write = !process.argv.includes("--no-write")
  const chosen = repositories.filter((r) => only === undefined || r.name === only)
  const roots = new Map(chosen.map((repository) => [repository, bring(repository)] as const))
  const cold = await askAll(roots, undefined, "cold")
  const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "lsp-seam-record-"))
  const socket = Path.join(directory, "host.sock")
  const host = await startHost(socket)
  let warm1: Awaited<ReturnType<typeof askAll>>
  let warm2: Awaited<ReturnType<typeof askAll>>
  try {
    warm1 = await askAll(roots, socket, "warm1")
    warm2 = await askAll(roots, socket, "warm2")
  } finally {
    await host.stop()
    Fs.rmSync(directory, { recursive: true, force: true })
  }
  const rows: Array<Row> = chosen.flatMap((repository) =>
    repository.questions.map((question) => ({
      repository,
      question,
      runs: [cold.get(question)!, warm1.get(question)!, warm2.get(question)!]
    }))
  )
  const section = render(rows, roots, signature, new Date().toISOString().slice(0, 10))
  console.log(section)
  if (write) {
    const start = "<!-- real-repositories:start -->"
    const end = "<!-- real-repositories:end -->"
    const document = Fs.readFileSync(output, "utf8")
    const from = document.indexOf(start)
    const to = document.indexOf(end)
    const block = `${start}\n${section}\n${end}`
    const next = from >= 0 && to > from
      ? document.slice(0, from) + block + document.slice(to + end.length)
      : `${document.trimEnd()}\n\n${block}\n`
    Fs.writeFileSync(output, next)
  }
}

await main()
