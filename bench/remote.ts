/**
 * Benchmark 10, one warm host for many clients. Two parts:
 *
 * - The command: `lsp-seam query … --remote auto` (the compiled packages/cli/dist/bin.js, as users run it)
 *   timed from spawn to exit. The first run of a fresh socket directory is cold (it starts the daemon, which
 *   starts typescript-language-server); later runs are warm (the daemon answers). References in the same run:
 *   `node -e 0` (Node's own start), and the same query without `--remote` (a local run starts its own server).
 * - The wire: the same stdio host queried in-process through `LspService.query` and through
 *   `LspRemoteClient` over a Unix socket served by `LspRemoteServer.layerSocket`, interleaved in rounds.
 */
import { NodeContext } from "@effect/platform-node"
import { LspService } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as LspRemoteClient from "../packages/lsp-remote/src/LspRemoteClient.js"
import * as LspRemoteServer from "../packages/lsp-remote/src/LspRemoteServer.js"
import * as LspStdio from "../packages/lsp-stdio/src/LspStdio.js"
import * as StdioStatus from "../packages/lsp-stdio/src/StdioStatus.js"
import { hasPids, runJsonChild } from "./support/childRun.js"
import { fakeKind, type ServerKind, typescriptKind } from "./support/contenders.js"
import * as Processes from "./support/processes.js"
import type { Query } from "./support/rawClient.js"
import { ms, type Options, ratioSummary, type Section, type Table, type Target } from "./support/report.js"
import { hostConfig } from "./support/servers.js"
import { median, pairedRatio, rounded, summarize, type Summary } from "./support/stats.js"

const bin = fileURLToPath(new URL("../packages/cli/dist/bin.js", import.meta.url))

export interface CommandPart {
  readonly coldRuns: number
  readonly warmRuns: number
  /** `--remote auto` with no daemon: spawn → exit, ms. */
  readonly cold: Summary
  /** `--remote auto` with the daemon warm, ms (answered by the command's edge, `internal/query/quickQuery.ts`). */
  readonly warm: Summary
  /** The same warm query left to the full client (the edge declines it), ms. */
  readonly warmFull: Summary
  /** `node -e 0`, interleaved with the warm runs, ms. */
  readonly node: Summary
  /** The same query without `--remote`, ms. */
  readonly local: Summary
  readonly warmOverCold: number
  readonly warmOverNode: Summary
  readonly warmFullOverNode: Summary
  /** How often another build changed dist/ during the warm runs (those rounds were measured again). */
  readonly rebuilds: number
}

export interface WirePart {
  readonly label: string
  readonly queries: number
  readonly local: Summary
  readonly remote: Summary
  /** Median remote minus median local, ms. */
  readonly cost: number
}

export interface RemotePart {
  readonly command: CommandPart
  readonly wire: ReadonlyArray<WirePart>
}

const run = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv, cwd: string): number => {
  const start = performance.now()
  const result = ChildProcess.spawnSync(process.execPath, args, { env, cwd, encoding: "utf8" })
  const elapsed = performance.now() - start
  if (result.status !== 0) {
    throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr}`)
  }
  return elapsed
}

const daemonsIn = (directory: string): Array<number> =>
  Fs.readdirSync("/proc").filter((entry) => /^[0-9]+$/.test(entry)).flatMap((entry) => {
    try {
      const cmdline = Fs.readFileSync(`/proc/${entry}/cmdline`, "utf8")
      return cmdline.includes(directory) && cmdline.includes("serve") ? [Number(entry)] : []
    } catch {
      return []
    }
  })

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Stops the daemons of `directory` (SIGTERM: they stop their servers) and waits until they are gone. */
const stopDaemons = async (directory: string) => {
  const pids = daemonsIn(directory)
  for (const pid of pids) process.kill(pid, "SIGTERM")
  const deadline = Date.now() + 10_000
  while (pids.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  for (const pid of pids.filter(alive)) process.kill(pid, "SIGKILL")
}

const target = (query: Query) => `${query.file}:${query.position.line + 1}:${query.position.character + 1}`

const root = fileURLToPath(new URL("..", import.meta.url))
const dist = Path.join(root, "packages", "cli", "dist")

/**
 * What `npm run build` makes, from the sources as they are now: the command's dist/ and the bundles of its
 * remote path (a bundle older than any of its inputs is not used, and the query would load ~600 modules one by
 * one instead).
 */
export const build = () => {
  ChildProcess.execFileSync(process.execPath, [
    createRequire(import.meta.url).resolve("typescript/bin/tsc"),
    "-b",
    Path.join(root, "packages", "cli", "tsconfig.src.json")
  ], { cwd: root, stdio: "inherit" })
  ChildProcess.execFileSync(process.execPath, [Path.join(dist, "..", "scripts", "bundleRemoteQuery.mjs")], {
    cwd: root,
    stdio: "inherit"
  })
}

const unchanged = (file: string, size: unknown, mtimeMs: unknown) => {
  try {
    const stats = Fs.statSync(Path.join(dist, file))
    return stats.size === size && stats.mtimeMs === mtimeMs
  } catch {
    return false
  }
}

/**
 * Whether both bundles are still the ones the command uses (as `fastPathBundle.ts` checks it). On a shared
 * machine another build (a test's global setup) may rewrite dist/ meanwhile: the command would then load its
 * modules one by one, and the runs would time that instead.
 */
const bundlesFresh = (): boolean =>
  ["quickQuery", "remoteQuery"].every((name) => {
    try {
      const manifest: unknown = JSON.parse(Fs.readFileSync(Path.join(dist, `${name}.bundle.json`), "utf8"))
      if (typeof manifest !== "object" || manifest === null || !("bundle" in manifest) || !("inputs" in manifest)) {
        return false
      }
      const { bundle, inputs } = manifest
      return Array.isArray(bundle) && unchanged(`${name}.bundle.cjs`, bundle[0], bundle[1]) && Array.isArray(inputs) &&
        inputs.every((input: unknown) => Array.isArray(input) && unchanged(String(input[0]), input[1], input[2]))
    } catch {
      return false
    }
  })

const measureCommand = async (options: Options, log: (message: string) => void): Promise<CommandPart> => {
  build()
  if (!Fs.existsSync(bin)) throw new Error(`${bin} is missing: run npm run build first`)
  const coldRuns = options.quick ? 1 : 3
  const warmRuns = options.quick ? 3 : 20
  const workspace = typescriptKind.workspace()
  const args = ["query", typescriptKind.queries[0]!.operation, target(typescriptKind.queries[0]!), "--cwd", workspace]
  // An option the edge leaves to the full client and that changes nothing for `auto` (which uses no token):
  // the same warm query through the Effect client, as every warm query went before the edge.
  const full = ["--token-file", "/dev/null"]
  let rebuilds = 0
  const samples = {
    cold: [] as Array<number>,
    warm: [] as Array<number>,
    warmFull: [] as Array<number>,
    node: [] as Array<number>,
    nodeFull: [] as Array<number>
  }
  const local: Array<number> = []
  for (let round = 0; round < coldRuns; round++) {
    // A socket directory of its own per round: no daemon runs for it yet.
    const runtime = Fs.mkdtempSync(Path.join(Os.tmpdir(), "lsp-seam-bench-run-"))
    const env = { ...process.env, XDG_RUNTIME_DIR: runtime, LSP_SEAM_IDLE_EXIT: "5m" }
    try {
      samples.cold.push(run([bin, ...args, "--remote", "auto"], env, workspace))
      Processes.track(daemonsIn(runtime))
      // One warm-up of each (the first run after a build writes the V8 code caches), then interleaved.
      const warmUp = () => {
        run([bin, ...args, "--remote", "auto"], env, workspace)
        run([bin, ...args, "--remote", "auto", ...full], env, workspace)
        run(["-e", "0"], env, workspace)
      }
      warmUp()
      for (let i = 0; i < warmRuns; i++) {
        // A round during which dist/ changed is measured again, on a new build.
        if (!bundlesFresh()) {
          if (rebuilds >= 20) throw new Error("dist/ keeps changing under the bench: another build is running")
          log("remote: dist/ changed under the bench (another build); building again")
          build()
          warmUp()
          rebuilds++
        }
        const kept = {
          warm: samples.warm.length,
          warmFull: samples.warmFull.length,
          node: samples.node.length,
          nodeFull: samples.nodeFull.length
        }
        if (i % 2 === 0) {
          samples.warm.push(run([bin, ...args, "--remote", "auto"], env, workspace))
          samples.node.push(run(["-e", "0"], env, workspace))
          samples.warmFull.push(run([bin, ...args, "--remote", "auto", ...full], env, workspace))
          samples.nodeFull.push(run(["-e", "0"], env, workspace))
        } else {
          samples.node.push(run(["-e", "0"], env, workspace))
          samples.warm.push(run([bin, ...args, "--remote", "auto"], env, workspace))
          samples.nodeFull.push(run(["-e", "0"], env, workspace))
          samples.warmFull.push(run([bin, ...args, "--remote", "auto", ...full], env, workspace))
        }
        if (!bundlesFresh()) {
          samples.warm.length = kept.warm
          samples.warmFull.length = kept.warmFull
          samples.node.length = kept.node
          samples.nodeFull.length = kept.nodeFull
          i--
        }
      }
      local.push(run([bin, ...args], process.env, workspace))
    } finally {
      await stopDaemons(runtime)
      Fs.rmSync(runtime, { recursive: true, force: true })
    }
  }
  const cold = summarize(samples.cold)
  const warm = summarize(samples.warm)
  return {
    coldRuns,
    warmRuns,
    cold,
    warm,
    warmFull: summarize(samples.warmFull),
    node: summarize([...samples.node, ...samples.nodeFull]),
    local: summarize(local),
    warmOverCold: warm.median / cold.median,
    warmOverNode: pairedRatio(samples.warm, samples.node),
    warmFullOverNode: pairedRatio(samples.warmFull, samples.nodeFull),
    rebuilds
  }
}

const seamRequest = (query: Query, workspace: string) => ({
  operation: query.operation,
  filePath: query.file,
  position: query.position,
  workspaceRoot: workspace
})

/** The wire's cost for one server, in this process (bench/wireChild.ts runs it in a fresh one). */
export const measureWire = async (kind: ServerKind, options: Options): Promise<WirePart> => {
  const workspace = kind.workspace()
  const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "lsp-seam-bench-wire-"))
  const socket = Path.join(directory, "host.sock")
  const host = LspStdio.layer(hostConfig(kind.spec)).pipe(
    Layer.provideMerge(LspService.layer),
    Layer.provide(NodeContext.layer)
  )
  const runtime = ManagedRuntime.make(
    LspRemoteServer.layerSocket({ path: socket }).pipe(Layer.provideMerge(host))
  )
  const perRound = options.quick ? 20 : kind === fakeKind ? 500 : 100
  const rounds = options.quick ? 2 : 8
  try {
    await runtime.runtime()
    const timed = (query: (request: ReturnType<typeof seamRequest>) => Effect.Effect<unknown, unknown>) =>
      Effect.gen(function*() {
        const samples: Array<number> = []
        for (let i = 0; i < perRound; i++) {
          const request = seamRequest(kind.queries[i % kind.queries.length]!, workspace)
          const start = performance.now()
          yield* query(request)
          samples.push(performance.now() - start)
        }
        return samples
      })
    const samples = await runtime.runPromise(Effect.scoped(Effect.gen(function*() {
      const service = yield* LspService.LspService
      const client = yield* LspRemoteClient.make({ transport: LspRemoteClient.socket(socket) })
      const local = (request: ReturnType<typeof seamRequest>) => service.query(request)
      const remote = (request: ReturnType<typeof seamRequest>) => client.query(request)
      Processes.track(
        (yield* Effect.flatMap(StdioStatus.StdioStatus, (view) => view.status)).flatMap((s) =>
          s.pid === null ? [] : [s.pid]
        )
      )
      // Warm-up: the server, both paths and V8's compiled code.
      yield* timed(local)
      yield* timed(remote)
      yield* timed(local)
      yield* timed(remote)
      const all = { local: [] as Array<number>, remote: [] as Array<number> }
      for (let round = 0; round < rounds; round++) {
        if (round % 2 === 0) {
          all.local.push(...yield* timed(local))
          all.remote.push(...yield* timed(remote))
        } else {
          all.remote.push(...yield* timed(remote))
          all.local.push(...yield* timed(local))
        }
      }
      return all
    })))
    return {
      label: kind.label,
      queries: samples.local.length,
      local: summarize(samples.local),
      remote: summarize(samples.remote),
      cost: median(samples.remote) - median(samples.local)
    }
  } finally {
    await runtime.dispose()
    Fs.rmSync(directory, { recursive: true, force: true })
  }
}

const wireChild = fileURLToPath(new URL("./wireChild.ts", import.meta.url))

const isWireResult = (u: unknown): u is { readonly part: WirePart; readonly pids: ReadonlyArray<number> } =>
  hasPids(u) && "part" in u

/** `measureWire` in a fresh Node process, so that the benchmarks run before it do not weigh on it. */
const wireInChild = async (kind: "fake" | "typescript", options: Options): Promise<WirePart> =>
  (await runJsonChild({
    label: `${kind} wire`,
    script: wireChild,
    args: [kind, options.quick ? "1" : "0"],
    isResult: isWireResult
  })).part

export const measureRemote = async (options: Options, log: (message: string) => void): Promise<RemotePart> => {
  log("remote: the command, cold and warm through --remote auto")
  const command = await measureCommand(options, log)
  const wire: Array<WirePart> = []
  for (const kind of [fakeKind, typescriptKind]) {
    log(`remote: the wire, ${kind.label}`)
    wire.push(await wireInChild(kind === fakeKind ? "fake" : "typescript", options))
  }
  return { command, wire }
}

const row = (label: string, s: Summary, paired = "") => [label, ms(s.min), ms(s.median), ms(s.max), paired]

export const remoteSection = (part: RemotePart, options: Options): Section => {
  const { command } = part
  const judged = options.quick ? null : undefined
  const tables: Array<Table> = [
    {
      caption:
        `the command, spawn → exit: ${command.coldRuns} cold runs, ${command.warmRuns} warm runs after each, interleaved with node -e 0` +
        (command.rebuilds === 0
          ? ""
          : ` (another build changed dist/ ${command.rebuilds} times: those rounds were measured again on a new build)`),
      columns: ["ms", "min", "median", "max", "this / node -e 0 (paired)"],
      rows: [
        row("lsp-seam query --remote auto, cold (starts the daemon and its server)", command.cold),
        row("lsp-seam query --remote auto, warm (the edge answers)", command.warm, ratioSummary(command.warmOverNode)),
        row(
          "the same, left to the full client (--token-file, which the edge declines)",
          command.warmFull,
          ratioSummary(command.warmFullOverNode)
        ),
        row("node -e 0", command.node),
        row("lsp-seam query (local: starts its own server)", command.local)
      ]
    },
    ...part.wire.map((wire): Table => ({
      caption: `the wire, ${wire.label}: ${wire.queries} queries each, in alternating rounds on one host`,
      columns: ["ms", "min", "median", "p99", "max"],
      rows: [
        [
          "LspService.query in the host's process",
          ms(wire.local.min),
          ms(wire.local.median),
          ms(wire.local.p99),
          ms(wire.local.max)
        ],
        [
          "LspRemoteClient over the Unix socket",
          ms(wire.remote.min),
          ms(wire.remote.median),
          ms(wire.remote.p99),
          ms(wire.remote.max)
        ]
      ]
    }))
  ]
  const fake = part.wire.find((wire) => wire.label === fakeKind.label)!
  const targets: Array<Target> = [
    {
      name: "warm CLI query vs node -e 0",
      goal: "≤ 2× (median of the paired ratios)",
      measured: `${command.warmOverNode.median.toFixed(2)}× (${ms(command.warm.median)} ms vs ${
        ms(command.node.median)
      } ms; the full client: ${command.warmFullOverNode.median.toFixed(2)}×)`,
      pass: judged === null ? null : command.warmOverNode.median <= 2
    },
    {
      name: "warm CLI query vs the cold one",
      goal: "warm ≤ 0.1× cold",
      measured: `${command.warmOverCold.toFixed(3)}× (${ms(command.warm.median)} ms vs ${ms(command.cold.median)} ms)`,
      pass: judged === null ? null : command.warmOverCold <= 0.1
    },
    {
      name: "the wire's cost over a Unix socket",
      goal: "≤ +0.5 ms per query (fake server: the stack's own cost)",
      measured: `+${ms(fake.cost)} ms (median ${ms(fake.remote.median)} vs ${ms(fake.local.median)} ms)`,
      pass: judged === null ? null : fake.cost <= 0.5
    }
  ]
  const forUsers = [
    {
      figure: "the first answer on a fresh machine: `lsp-seam query --remote auto` (starts the daemon and its server)",
      ours: `${ms(command.cold.median)} ms`,
      reference: `${ms(command.local.median)} ms (\`lsp-seam query\` starting its own server)`,
      ratio: `${(command.cold.median / command.local.median).toFixed(2)}×`
    },
    {
      figure: "a warm answer from the command line (`lsp-seam query … --remote auto`, spawn → exit)",
      ours: `${ms(command.warm.median)} ms`,
      reference: `${ms(command.node.median)} ms (\`node -e 0\`)`,
      ratio: `${ratioSummary(command.warmOverNode)} (paired)`
    }
  ]
  return {
    id: "remote",
    title: "10. One warm host for many clients",
    method: "The command: `lsp-seam query <op> <file:line:col> --remote auto` run as users run it (node " +
      "packages/cli/dist/bin.js, spawn to exit) on a copy of the TypeScript fixture. Each cold run uses a fresh " +
      "socket directory (XDG_RUNTIME_DIR), so it finds no daemon, starts one detached and waits for it, and the " +
      "daemon starts typescript-language-server; the warm runs that follow reuse that daemon, after one warm-up, interleaved with " +
      "`node -e 0` (Node's own start, the floor of any command): each warm query pairs with the `node -e 0` run " +
      "next to it, and the ratio is the median of those pairs. The command's edge (packages/cli/src/internal/" +
      "quickQuery.ts: no Effect runtime, no Schemas) answers the warm query; the same query with `--token-file " +
      "/dev/null` (unused with auto, but an option the edge leaves alone) goes through the full Effect client, " +
      "as every warm query did before the edge, in the same rounds with its own `node -e 0` pairs. The local run is the same query without " +
      "`--remote`. The wire: in a fresh Node process for each server (bench/wireChild.ts: the heap and compiled " +
      "code the earlier benchmarks leave in the bench's own process made the same wire measure 0.1–0.2 ms slower), " +
      "one stdio host serves its LspService on a Unix socket; the same queries go to it in-process and through " +
      "LspRemoteClient (ndjson over the socket), after a warm-up of both, in alternating rounds; the cost is the " +
      "difference of the medians.",
    tables,
    targets,
    forUsers,
    data: {
      command: {
        ...command,
        cold: rounded(command.cold),
        warm: rounded(command.warm),
        warmFull: rounded(command.warmFull),
        node: rounded(command.node),
        local: rounded(command.local),
        warmOverNode: rounded(command.warmOverNode),
        warmFullOverNode: rounded(command.warmFullOverNode)
      },
      wire: part.wire.map((wire) => ({ ...wire, local: rounded(wire.local), remote: rounded(wire.remote) }))
    }
  }
}
