/**
 * Benchmark 14, many agents on one host. One daemon as users run it (`lsp-seam serve --socket`, the compiled
 * packages/cli/dist/bin.js) serves M workspaces, each a copy of the TypeScript fixture with a fake-server file
 * and (when pyright-langserver is installed) the Python fixture: a server per (language, workspace). Its
 * clients are what users run: `lsp-seam mcp --remote <socket>` sessions driven by the MCP SDK client (2 per
 * workspace), a stream of `lsp-seam query … --remote <socket>` commands over every workspace, and a stream of
 * commands killed (SIGKILL) at a random moment of their query. Each client asks, waits for its answer and asks
 * again (an agent's loop). The reference is the same clients alone on the same host in the same run (one MCP
 * session, then the command stream), measured before and after the load.
 *
 * Measured: every call's time by operation and language (p50/p99 against the single client's), each
 * workspace's p50 against the others', the host's status sampled every 250 ms (queries waiting per (server,
 * root), the servers' memory) and the daemon's own resident memory over time; after the load, what is still
 * queued or busy.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as LspRemoteClient from "../packages/lsp-remote/src/LspRemoteClient.js"
import type { ServerStatus } from "../packages/lsp-remote/src/LspRpc.js"
import { type LoadPart, loadSection, type Sample } from "./loadReport.js"
import { build } from "./remote.js"
import { prng } from "./support/prng.js"
import * as Processes from "./support/processes.js"
import type { Options } from "./support/report.js"
import { fakeServer, typescriptServer, typescriptWorkspace } from "./support/servers.js"

export { loadSection }

const root = fileURLToPath(new URL("..", import.meta.url))
const bin = Path.join(root, "packages", "cli", "dist", "bin.js")
const pythonFixture = Path.join(root, "packages", "lsp-stdio", "test", "fixtures", "rename-py")

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** One question, as an agent asks it (one-based line and column). */
export interface Call {
  readonly language: string
  readonly operation: string
  readonly file: string
  readonly line: number
  readonly character: number
}

const callsFor = (python: boolean): ReadonlyArray<Call> => [
  { language: "fake", operation: "hover", file: "main.fake", line: 1, character: 5 },
  { language: "fake", operation: "goToDefinition", file: "main.fake", line: 2, character: 1 },
  { language: "fake", operation: "findReferences", file: "main.fake", line: 1, character: 5 },
  { language: "typescript", operation: "hover", file: "main.ts", line: 7, character: 14 },
  { language: "typescript", operation: "goToDefinition", file: "main.ts", line: 7, character: 28 },
  { language: "typescript", operation: "findReferences", file: "shape.ts", line: 2, character: 18 },
  ...(python
    ? [
      { language: "python", operation: "hover", file: "main.py", line: 4, character: 8 },
      { language: "python", operation: "goToDefinition", file: "main.py", line: 5, character: 12 },
      { language: "python", operation: "findReferences", file: "shapes.py", line: 1, character: 5 }
    ]
    : [])
]

const pythonInstalled = () =>
  (process.env.PATH ?? "").split(Path.delimiter).some((dir) => Fs.existsSync(Path.join(dir, "pyright-langserver")))

/** The TypeScript fixture, plus a fake-server file and (with pyright) the Python fixture. */
const workspace = (python: boolean) => {
  const dir = typescriptWorkspace({ "main.fake": "let x = 1\nx\n" })
  if (python) {
    for (const file of Fs.readdirSync(pythonFixture)) {
      Fs.copyFileSync(Path.join(pythonFixture, file), Path.join(dir, file))
    }
  }
  return dir
}

/** The hosts' configuration file: the fake server, typescript-language-server and (with it) pyright. */
export const configOf = (python: boolean) => ({
  servers: {
    fake: {
      command: fakeServer.command,
      args: fakeServer.args,
      env: fakeServer.env,
      extensionToLanguage: { ".fake": "fake" }
    },
    typescript: {
      command: typescriptServer.command,
      args: typescriptServer.args,
      extensionToLanguage: { ".ts": "typescript" },
      initializationOptions: typescriptServer.initializationOptions,
      projectMarkers: ["tsconfig.json"]
    },
    ...(python
      ? {
        python: {
          command: "pyright-langserver",
          args: ["--stdio"],
          extensionToLanguage: { ".py": "python" },
          // The preset's: pyright sends no readiness signal of its own.
          readiness: { quietMs: 3000 }
        }
      }
      : {})
  }
})

interface Daemon {
  readonly pid: number
  readonly socket: string
  readonly stop: () => Promise<void>
}

const startDaemon = async (directory: string, python: boolean): Promise<Daemon> => {
  const socket = Path.join(directory, "host.sock")
  const configFile = Path.join(directory, "lsp-seam.json")
  Fs.writeFileSync(configFile, JSON.stringify(configOf(python)))
  const child = ChildProcess.spawn(
    process.execPath,
    [bin, "serve", "--socket", socket, "--no-prewarm", "--config", configFile],
    { cwd: directory, stdio: ["ignore", "ignore", "pipe"] }
  )
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  const ended = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const deadline = Date.now() + 60_000
  while (!/listening on /.test(stderr)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`lsp-seam serve did not start: ${stderr}`)
    await sleep(50)
  }
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill("SIGTERM")
    await Promise.race([ended, sleep(15_000)])
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }
  return { pid: child.pid!, socket, stop }
}

const ownRss = (pid: number): number => {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(Fs.readFileSync(`/proc/${pid}/status`, "latin1"))
  return match === null ? 0 : Number(match[1]) * 1024
}

const connect = async (args: ReadonlyArray<string>, cwd: string): Promise<Client> => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [...args], cwd, stderr: "ignore" })
  const client = new Client({ name: "lsp-seam-bench", version: "0.0.0" })
  await client.connect(transport)
  return client
}

const openSession = (socket: string, cwd: string) => connect([bin, "mcp", "--remote", socket, "--cwd", cwd], cwd)

/** The MCP floor: the SDK's own server over stdio, whose `lsp` tool answers at once (bench/support/mcpFloor.mjs). */
const openFloor = (cwd: string) => connect([fileURLToPath(new URL("./support/mcpFloor.mjs", import.meta.url))], cwd)

const mcpCall = async (client: Client, call: Call): Promise<boolean> => {
  const result = await client.callTool({
    name: "lsp",
    arguments: { operation: call.operation, file_path: call.file, line: call.line, character: call.character }
  })
  return result.isError !== true
}

const target = (call: Call) => `${call.file}:${call.line}:${call.character}`

/** `lsp-seam query … --remote <socket>`, spawn → exit; `killAfterMs` kills it (SIGKILL) that soon. */
const command = (socket: string, cwd: string, call: Call, killAfterMs?: number) =>
  new Promise<{ readonly ok: boolean; readonly killed: boolean }>((resolve) => {
    const child = ChildProcess.spawn(
      process.execPath,
      [bin, "query", call.operation, target(call), "--remote", socket, "--cwd", cwd],
      { cwd, stdio: "ignore" }
    )
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), killAfterMs)
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      resolve({ ok: code === 0, killed: signal === "SIGKILL" })
    })
  })

/** Asks `calls` in turn (from `offset`) until `until`; each answer is a sample. */
const loop = async (
  ask: (call: Call) => Promise<boolean>,
  calls: ReadonlyArray<Call>,
  offset: number,
  until: number,
  tag: Omit<Sample, "language" | "operation" | "ms" | "ok">
): Promise<Array<Sample>> => {
  const samples: Array<Sample> = []
  for (let i = offset; Date.now() < until; i++) {
    const call = calls[i % calls.length]!
    const start = performance.now()
    const ok = await ask(call).catch(() => false)
    samples.push({ ...tag, language: call.language, operation: call.operation, ms: performance.now() - start, ok })
  }
  return samples
}

interface StatusSample {
  readonly t: number
  readonly daemonRss: number
  readonly serversRss: number
  readonly servers: ReadonlyArray<ServerStatus>
}

/** The host's status every 250 ms until `stop` is called. */
const sampler = (
  client: LspRemoteClient.LspRemoteClientShape,
  runtime: ManagedRuntime.ManagedRuntime<never, never>,
  pid: number
) => {
  const samples: Array<StatusSample> = []
  const start = performance.now()
  let running = true
  const done = (async () => {
    while (running) {
      const servers = await runtime.runPromise(client.status)
      Processes.track(servers.flatMap((s) => (s.pid === null ? [] : [s.pid])))
      samples.push({
        t: performance.now() - start,
        daemonRss: ownRss(pid),
        serversRss: servers.reduce((sum, s) => sum + (s.rssBytes ?? 0), 0),
        servers
      })
      await sleep(250)
    }
  })()
  return {
    samples,
    stop: async () => {
      running = false
      await done
    }
  }
}

/** The load's size: clients, workspaces and how long each phase lasts. */
const sizeOf = (options: Options) =>
  options.quick
    ? { workspaces: 2, sessionsPerWorkspace: 1, soloMs: 2_000, loadMs: 5_000, python: false }
    : { workspaces: 4, sessionsPerWorkspace: 2, soloMs: 15_000, loadMs: 60_000, python: pythonInstalled() }

/** Waits until the host reports nothing queued and nothing busy; returns how it stood at the end. */
const settled = async (
  client: LspRemoteClient.LspRemoteClientShape,
  runtime: ManagedRuntime.ManagedRuntime<never, never>
) => {
  const deadline = Date.now() + 15_000
  for (;;) {
    const servers = await runtime.runPromise(client.status)
    const queued = servers.reduce((sum, s) => sum + (s.queued ?? 0), 0)
    const busy = servers.filter((s) => s.state === "busy").length
    if ((queued === 0 && busy === 0) || Date.now() > deadline) return { queued, busy, servers }
    await sleep(50)
  }
}

/** The stream of commands killed mid-query: each one SIGKILLed 50–400 ms after its spawn. */
const churn = async (socket: string, workspaces: ReadonlyArray<string>, calls: ReadonlyArray<Call>, until: number) => {
  const random = prng(14)
  let killed = 0
  let answered = 0
  for (let i = 0; Date.now() < until; i++) {
    const outcome = await command(
      socket,
      workspaces[i % workspaces.length]!,
      calls[i % calls.length]!,
      50 + random() * 350
    )
    if (outcome.killed) killed++
    else if (outcome.ok) answered++
  }
  return { killed, answered }
}

interface Run {
  readonly socket: string
  readonly workspaces: ReadonlyArray<string>
  readonly calls: ReadonlyArray<Call>
  readonly sessions: ReadonlyArray<Client>
  /** A session with the MCP floor (bench/support/mcpFloor.mjs), the reference of an MCP call. */
  readonly floor: Client
  readonly size: ReturnType<typeof sizeOf>
}

/** The command stream: `calls` in turn from `offset`, going round the workspaces, until `until`. */
const commandStream = (run: Run, offset: number, until: number, phase: Sample["phase"]) => {
  let n = 0
  return loop(
    (call) => command(run.socket, run.workspaces[n++ % run.workspaces.length]!, call).then((r) => r.ok),
    run.calls,
    offset,
    until,
    { client: "cli", workspace: -1, phase }
  )
}

/** One MCP session alone until `until`, each call followed by the same call to the MCP floor (a pair). */
const soloPairs = async (run: Run, until: number): Promise<Array<Sample>> => {
  const samples: Array<Sample> = []
  for (let i = 0; Date.now() < until; i++) {
    const call = run.calls[i % run.calls.length]!
    const timed = async (client: Client) => {
      const start = performance.now()
      const ok = await mcpCall(client, call).catch(() => false)
      return { ok, ms: performance.now() - start }
    }
    const ours = await timed(run.sessions[0]!)
    const floor = await timed(run.floor)
    samples.push({
      client: "mcp",
      workspace: 0,
      phase: "solo",
      language: call.language,
      operation: call.operation,
      ...ours,
      ...(floor.ok ? { floorMs: floor.ms } : {})
    })
  }
  return samples
}

/** The reference: one MCP session alone (paired with the MCP floor), then the command stream alone. */
const solo = async (run: Run) => [
  ...await soloPairs(run, Date.now() + run.size.soloMs),
  ...await commandStream(run, 0, Date.now() + run.size.soloMs, "solo")
]

/** Every session asks every call twice: every server started and settled, every path warm. Failed calls. */
const warmUp = async (run: Run) =>
  (await Promise.all(run.sessions.map(async (session) => {
    let failed = 0
    for (let round = 0; round < 2; round++) {
      for (const call of run.calls) if (!(await mcpCall(session, call).catch(() => false))) failed++
    }
    return failed
  }))).reduce((a, b) => a + b, 0)

/** Every client at once until `until`: the sessions, the command stream and the killed commands. */
const underLoad = async (run: Run, until: number) => {
  const [mcp, cli, churned] = await Promise.all([
    Promise.all(run.sessions.map((session, s) =>
      loop((call) => mcpCall(session, call), run.calls, s, until, {
        client: "mcp",
        workspace: s % run.workspaces.length,
        phase: "load"
      })
    )),
    commandStream(run, 1, until, "load"),
    churn(run.socket, run.workspaces, run.calls, until)
  ])
  return { samples: [...mcp.flat(), ...cli], churned }
}

const keyOf = (workspaces: ReadonlyArray<string>, server: ServerStatus) =>
  `${server.providerId} ${workspaceName(workspaces, server.root ?? server.workspace)}`

const statusPart = (workspaces: ReadonlyArray<string>, samples: ReadonlyArray<StatusSample>): LoadPart["status"] =>
  samples.map((s) => ({
    t: s.t,
    daemonRss: s.daemonRss,
    serversRss: s.serversRss,
    queued: s.servers.map((server) => ({ key: keyOf(workspaces, server), queued: server.queued ?? 0 }))
  }))

const restartsOf = (servers: ReadonlyArray<ServerStatus>) => servers.reduce((sum, server) => sum + server.restarts, 0)

export const measureLoad = async (options: Options, log: (message: string) => void): Promise<LoadPart> => {
  build()
  const size = sizeOf(options)
  const calls = callsFor(size.python)
  const languages = [...new Set(calls.map((c) => c.language))]
  const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "lsp-seam-bench-load-"))
  const workspaces = Array.from({ length: size.workspaces }, () => workspace(size.python))
  const daemon = await startDaemon(directory, size.python)
  const runtime = ManagedRuntime.make(Layer.empty)
  const scope = await runtime.runPromise(Scope.make())
  const sessions: Array<Client> = []
  let floor: Client | undefined
  try {
    const observer = await runtime.runPromise(
      Scope.extend(LspRemoteClient.make({ transport: LspRemoteClient.socket(daemon.socket) }), scope)
    )
    log(`load: ${size.workspaces} workspaces × ${size.sessionsPerWorkspace} MCP sessions, ${languages.join(", ")}`)
    for (let s = 0; s < size.workspaces * size.sessionsPerWorkspace; s++) {
      sessions.push(await openSession(daemon.socket, workspaces[s % size.workspaces]!))
    }
    floor = await openFloor(workspaces[0]!)
    const run: Run = { socket: daemon.socket, workspaces, calls, sessions, floor, size }
    const warmUpFailed = await warmUp(run)
    const warmUpRestarts = restartsOf(await runtime.runPromise(observer.status))
    log("load: the single clients, before")
    const before = await solo(run)
    const rssBefore = ownRss(daemon.pid)
    log(`load: ${sessions.length} MCP sessions, a command stream and a stream of killed ones, ${size.loadMs / 1000} s`)
    const status = sampler(observer, runtime, daemon.pid)
    const load = await underLoad(run, Date.now() + size.loadMs)
    const after = await settled(observer, runtime)
    await status.stop()
    log("load: the single clients, after")
    const soloAfter = await solo(run)
    return {
      size: { ...size, sessions: sessions.length, languages },
      samples: [...before, ...load.samples, ...soloAfter],
      churn: load.churned,
      warmUp: { failed: warmUpFailed, restarts: warmUpRestarts },
      status: statusPart(workspaces, status.samples),
      serverMemory: languages.flatMap((language) => {
        const trees = after.servers.filter((s) => s.providerId === language).flatMap((s) =>
          s.rssBytes === null || s.rssBytes === undefined ? [] : [s.rssBytes]
        ).sort((a, b) => a - b)
        return trees.length === 0 ? [] : [{ language, servers: trees.length, rss: trees[Math.floor(trees.length / 2)]! }]
      }),
      daemonRss: { before: rssBefore, after: ownRss(daemon.pid) },
      after: {
        queued: after.queued,
        busy: after.busy,
        servers: after.servers.length,
        restarts: restartsOf(after.servers) - warmUpRestarts,
        lastErrors: after.servers.flatMap((s) =>
          s.lastError === null || s.lastError === undefined ? [] : [`${keyOf(workspaces, s)}: ${s.lastError}`]
        )
      }
    }
  } finally {
    await Promise.all([...sessions, ...(floor === undefined ? [] : [floor])].map((session) =>
      session.close().catch(() => undefined)
    ))
    await runtime.runPromise(Scope.close(scope, Exit.void)).catch(() => undefined)
    await runtime.dispose()
    await daemon.stop()
    Fs.rmSync(directory, { recursive: true, force: true })
  }
}

const workspaceName = (workspaces: ReadonlyArray<string>, dir: string) => {
  const index = workspaces.findIndex((w) => dir === w || dir.startsWith(`${w}/`))
  return index < 0 ? dir : `w${index}`
}
