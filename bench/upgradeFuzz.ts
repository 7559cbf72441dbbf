/**
 * Benchmark 11, upgrade and authentication fuzz: seeded random connections (the cases of
 * packages/lsp-remote/test/upgradeFuzzCases.ts, which its test draws too) against a real
 * `lsp-seam serve --listen` (the compiled packages/cli/dist/bin.js) with a 500 ms handshake time, on the fake
 * server, while a real client queries it. Each connection is read until the host closes it; one still open 2 s
 * past the handshake time is a hang. The client's latency while the fuzz runs is compared with its latency on
 * the idle host, interleaved round by round.
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as LspRemoteClient from "../packages/lsp-remote/src/LspRemoteClient.js"
import {
  exchange,
  type Outcome,
  rightUpgrade,
  upgradeCases,
  violations
} from "../packages/lsp-remote/test/upgradeFuzzCases.js"
import { ms, type Options, ratioSummary, type Section, type Target } from "./support/report.js"
import { fakeServer, fakeWorkspace, hostConfig } from "./support/servers.js"
import { median, pairedRatio, round, rounded, summarize, type Summary } from "./support/stats.js"

const repository = fileURLToPath(new URL("..", import.meta.url))
const bin = Path.join(repository, "packages", "cli", "dist", "bin.js")

const handshakeTimeoutMs = 500
/** A connection still open this long after the handshake time is a hang. */
const hangSlackMs = 2_000
const concurrency = 16
const seed = 30

export interface UpgradeFuzzPart {
  readonly cases: number
  readonly rounds: number
  readonly seconds: number
  /** `serve` exited while the fuzz ran or did not answer afterwards: its exit code or signal, or why. */
  readonly crash: string | null
  readonly byStatus: Record<string, { readonly count: number; readonly medianMs: number; readonly maxMs: number }>
  readonly upgradedWithoutToken: number
  readonly hangs: number
  /** Closed without a byte once the handshake time had passed: the host's deadline. */
  readonly closedAtDeadline: number
  readonly slowestCloseMs: number
  /** The right token still upgraded afterwards (the control case). */
  readonly controlUpgraded: boolean
  /** The real client's queries: on the idle host, and while the fuzz ran (ms). */
  readonly idle: Summary
  readonly underFuzz: Summary
  readonly underFuzzOverIdle: Summary
  readonly clientFailures: number
}

/** Compiles the command (incremental: fast when it is up to date), as the remote benchmark does. */
export const buildCommand = () =>
  ChildProcess.execFileSync(process.execPath, [
    createRequire(import.meta.url).resolve("typescript/bin/tsc"),
    "-b",
    Path.join(repository, "packages", "cli", "tsconfig.src.json")
  ], { cwd: repository, stdio: "inherit" })

export interface Served {
  readonly process: ChildProcess.ChildProcess
  readonly port: number
  readonly token: Redacted.Redacted<string>
  readonly workspace: string
}

/**
 * `lsp-seam serve --listen 127.0.0.1:0 …options` on a fake-server workspace, until the scope closes (the flood
 * benchmark's host too).
 */
export const served = (options: ReadonlyArray<string>, nodeOptions: ReadonlyArray<string> = []) =>
  Effect.acquireRelease(
    Effect.async<Served, Error>((resume) => {
      const workspace = fakeWorkspace({ "lsp-seam.json": JSON.stringify(hostConfig(fakeServer)) })
      const tokenFile = Path.join(workspace, "token")
      const child = ChildProcess.spawn(process.execPath, [
        ...nodeOptions,
        bin,
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--token-file",
        tokenFile,
        ...options,
        "--root",
        workspace,
        "--config",
        Path.join(workspace, "lsp-seam.json"),
        "--no-prewarm"
      ], { cwd: workspace, stdio: ["ignore", "ignore", "pipe"] })
      let stderr = ""
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8")
        const port = /listening on ws:\/\/127\.0\.0\.1:([0-9]+)\//.exec(stderr)?.[1]
        if (port === undefined) return
        child.stderr.removeAllListeners("data")
        child.stderr.resume()
        const token = Redacted.make(Fs.readFileSync(tokenFile, "utf8").trim())
        resume(Effect.succeed({ process: child, port: Number(port), token, workspace }))
      })
      child.once("exit", (code, signal) => resume(Effect.fail(new Error(`serve exited ${code ?? signal}: ${stderr}`))))
    }),
    ({ process: child }) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        const kill = setTimeout(() => child.kill("SIGKILL"), 10_000)
        child.once("exit", () => {
          clearTimeout(kill)
          resume(Effect.void)
        })
        child.kill("SIGTERM")
      })
  )

/** Times sequential hover queries of the real client until `until` holds (at least `minimum` of them). */
const clientLoop = (
  query: Effect.Effect<unknown, unknown>,
  minimum: number,
  until: () => boolean
) =>
  Effect.gen(function*() {
    const samples: Array<number> = []
    let failures = 0
    while (samples.length + failures < minimum || !until()) {
      const start = performance.now()
      const ok = yield* Effect.match(query, { onFailure: () => false, onSuccess: () => true })
      if (ok) samples.push(performance.now() - start)
      else failures++
    }
    return { samples, failures }
  })

const byStatusOf = (outcomes: ReadonlyArray<Outcome>): UpgradeFuzzPart["byStatus"] => {
  const groups = new Map<string, Array<number>>()
  for (const outcome of outcomes) {
    groups.set(outcome.status, [...(groups.get(outcome.status) ?? []), outcome.closedAfterMs])
  }
  return Object.fromEntries(
    [...groups].sort().map(([status, times]) => [status, {
      count: times.length,
      medianMs: median(times),
      maxMs: Math.max(...times)
    }])
  )
}

const measure = (options: Options) =>
  Effect.gen(function*() {
    const host = yield* served(["--handshake-timeout", `${handshakeTimeoutMs}ms`])
    const cases = upgradeCases(Redacted.value(host.token), { seed, count: options.quick ? 300 : 6_000 })
    const rounds = options.quick ? 1 : 6
    const client = yield* LspRemoteClient.make({
      transport: LspRemoteClient.webSocket(`ws://127.0.0.1:${host.port}/lsp-seam`, host.token)
    })
    const query = client.query({
      operation: "hover",
      filePath: "main.fake",
      position: { line: 0, character: 4 },
      workspaceRoot: host.workspace
    })
    yield* clientLoop(query, options.quick ? 20 : 300, () => true) // warm-up: the server, the client, V8
    const outcomes: Array<Outcome> = []
    const idle: Array<number> = []
    const underFuzz: Array<number> = []
    const idleMedians: Array<number> = []
    const fuzzMedians: Array<number> = []
    let clientFailures = 0
    const started = performance.now()
    const perRound = Math.ceil(cases.length / rounds)
    for (let r = 0; r < rounds; r++) {
      const quiet = yield* clientLoop(query, options.quick ? 20 : 100, () => true)
      let done = false
      const [fuzzed, loud] = yield* Effect.all([
        Effect.forEach(
          cases.slice(r * perRound, (r + 1) * perRound),
          (chunks) => exchange(host.port, chunks, handshakeTimeoutMs + hangSlackMs),
          { concurrency }
        ).pipe(Effect.ensuring(Effect.sync(() => (done = true)))),
        clientLoop(query, 5, () => done)
      ], { concurrency: 2 })
      outcomes.push(...fuzzed)
      idle.push(...quiet.samples)
      underFuzz.push(...loud.samples)
      idleMedians.push(median(quiet.samples))
      fuzzMedians.push(median(loud.samples))
      clientFailures += quiet.failures + loud.failures
    }
    const seconds = (performance.now() - started) / 1000
    const control = yield* exchange(host.port, rightUpgrade(Redacted.value(host.token)), 300)
    const after = yield* Effect.either(query)
    const exited = host.process.exitCode ?? host.process.signalCode
    return {
      cases: outcomes.length,
      rounds,
      seconds,
      crash: exited !== null ? `serve exited ${exited}` : after._tag === "Left" ? "no answer after the fuzz" : null,
      byStatus: byStatusOf(outcomes),
      upgradedWithoutToken: outcomes.filter((outcome) => outcome.status.includes("101")).length,
      hangs: violations(outcomes).filter((outcome) => outcome.status.startsWith("open")).length,
      closedAtDeadline: outcomes.filter((o) => o.status === "closed" && o.closedAfterMs >= handshakeTimeoutMs).length,
      slowestCloseMs: Math.max(...outcomes.map((outcome) => outcome.closedAfterMs)),
      controlUpgraded: control.status === "open:101",
      idle: summarize(idle),
      underFuzz: summarize(underFuzz),
      underFuzzOverIdle: pairedRatio(fuzzMedians, idleMedians),
      clientFailures
    } satisfies UpgradeFuzzPart
  })

export const measureUpgradeFuzz = async (options: Options): Promise<UpgradeFuzzPart> => {
  buildCommand()
  return Effect.runPromise(Effect.scoped(measure(options)))
}

const title = "11. Upgrade and authentication fuzz on a real serve"

export const upgradeFuzzSection = (part: UpgradeFuzzPart, options: Options): Section => {
  // A quick run is too short to judge.
  const judge = (pass: boolean) => options.quick ? null : pass
  const targets: Array<Target> = [{
    name: `the host survives ${part.cases.toLocaleString("en")} random connections`,
    goal: "no crash: serve still running, a real query answers afterwards",
    measured: part.crash ?? "0 crashes; serve running, the query after the fuzz answered",
    pass: judge(part.crash === null)
  }, {
    name: "nothing answered without the token",
    goal: "0 upgrades without the token; the right token still upgrades",
    measured: `${part.upgradedWithoutToken} upgraded (101) without the token; the control with the token ${
      part.controlUpgraded ? "upgraded" : "did NOT upgrade"
    }`,
    pass: judge(part.upgradedWithoutToken === 0 && part.controlUpgraded)
  }, {
    name: "no connection hangs",
    goal: `every connection closed by the host, none open ${hangSlackMs} ms past the handshake time`,
    measured:
      `${part.hangs} hangs; slowest close ${part.slowestCloseMs} ms for a ${handshakeTimeoutMs} ms handshake time`,
    pass: judge(part.hangs === 0),
    note: `${part.closedAtDeadline} closed by the handshake deadline without an answer`
  }, {
    name: "a real client is served during the fuzz",
    goal: "every query answers",
    measured:
      `${part.clientFailures} failed of ${part.idle.n + part.underFuzz.n + part.clientFailures}; latency under ` +
      `the fuzz over idle ${ratioSummary(part.underFuzzOverIdle)}`,
    pass: judge(part.clientFailures === 0)
  }]
  return {
    id: "upgradeFuzz",
    title,
    method: `${part.cases.toLocaleString("en")} seeded connections (FastCheck, seed ${seed}; the generator of ` +
      "packages/lsp-remote/test/upgradeFuzzCases.ts, which LspRemote.upgradeFuzz.test.ts draws 1,000 of) against " +
      `\`lsp-seam serve --listen 127.0.0.1:0 --handshake-timeout ${handshakeTimeoutMs}ms\` (the compiled command, ` +
      `fake server), ${concurrency} at a time, in ${part.rounds} rounds: random bytes; upgrade requests with ` +
      "random request lines and headers, and missing, wrong, near-miss or misplaced tokens (the right token in " +
      "another header, the path or the query string), cut at a random byte; well-formed upgrades with near-miss " +
      "tokens; each maybe followed by a partial WebSocket frame. Each connection is read until the host closes it; " +
      `one still open ${hangSlackMs} ms past the handshake time counts as a hang. A real client (LspRemoteClient, ` +
      "the right token) queries hover throughout: before each round on the idle host (the reference), then while " +
      "the round's connections run; the ratio pairs the two medians of each round.",
    tables: [{
      caption: `${part.cases.toLocaleString("en")} connections in ${
        part.seconds.toFixed(1)
      } s; how the host ended each`,
      columns: ["host's answer", "connections", "closed after, median ms", "max ms"],
      rows: Object.entries(part.byStatus).map(([status, s]) => [
        status === "closed" ? "closed without a byte" : status === "other" ? "not HTTP" : `HTTP ${status}`,
        String(s.count),
        String(Math.round(s.medianMs)),
        String(s.maxMs)
      ])
    }, {
      caption: "The real client's hover, ms",
      columns: ["host", "queries", "median", "p99", "max"],
      rows: [
        ["idle (reference)", String(part.idle.n), ms(part.idle.median), ms(part.idle.p99), ms(part.idle.max)],
        [
          "under the fuzz",
          String(part.underFuzz.n),
          ms(part.underFuzz.median),
          ms(part.underFuzz.p99),
          ms(part.underFuzz.max)
        ],
        ["ratio, per round", String(part.underFuzzOverIdle.n), ratioSummary(part.underFuzzOverIdle), "", ""]
      ]
    }],
    targets,
    notes: [
      `closed without an answer at the handshake deadline: ${part.closedAtDeadline}; the rest were answered ` +
      "(400 malformed, 401 wrong or missing token, 403 an Origin, 405 not GET, 426 not an upgrade) and closed",
      "a ratio at or below 1× means the fuzz did not slow the real client down"
    ],
    data: {
      ...part,
      seconds: round(part.seconds, 2),
      idle: rounded(part.idle),
      underFuzz: rounded(part.underFuzz),
      underFuzzOverIdle: rounded(part.underFuzzOverIdle)
    }
  }
}
