// Real processes for the cluster tests: runners started from fixtures/runner.ts, free ports, process trees
// read from /proc, and a PostgreSQL server of the test's own.
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as Net from "node:net"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

const fixtures = NodePath.join(import.meta.dirname, "fixtures")

/** Whether a process (not a zombie) with this pid exists. */
export const alive = (pid: number): boolean => {
  try {
    const state = NodeFs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0]
    return state !== undefined && state !== "Z"
  } catch {
    return false
  }
}

/** Every live descendant of `pid`, from /proc. */
export const descendants = (pid: number): ReadonlyArray<number> => {
  const parents = new Map<number, number>()
  for (const entry of NodeFs.readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(entry)) continue
    try {
      const fields = NodeFs.readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ")
      if (fields[0] !== "Z") parents.set(Number(entry), Number(fields[1]))
    } catch {
      // gone meanwhile
    }
  }
  const found: Array<number> = []
  const visit = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid === parent && !found.includes(child)) {
        found.push(child)
        visit(child)
      }
    }
  }
  visit(pid)
  return found
}

/** Polls `predicate` every 50 ms until it holds; dies after `timeoutMs`. */
export const waitFor = (what: string, predicate: () => boolean, timeoutMs: number): Effect.Effect<void> =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (!predicate()) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep("50 millis")
    }
  })

/** A TCP port nothing listens on right now. */
export const freePort: Effect.Effect<number> = Effect.async((resume) => {
  const server = Net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** A temporary directory, removed with the scope. */
export const tempDirectory = (prefix: string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), prefix)))),
    (directory) => Effect.sync(() => NodeFs.rmSync(directory, { recursive: true, force: true }))
  )

/** `count` copies of the CLI's TypeScript fixture under `root`, as `ws1`…, each with a `.slow` file; their paths. */
export const workspaces = (root: string, count: number): ReadonlyArray<string> => {
  const fixture = NodePath.join(import.meta.dirname, "../../cli/test/fixtures/ts-workspace")
  return Array.from({ length: count }, (_, i) => {
    const directory = NodePath.join(root, `ws${i + 1}`)
    NodeFs.cpSync(fixture, directory, { recursive: true })
    NodeFs.writeFileSync(NodePath.join(directory, "slow.slow"), "answered after 4 s\n")
    return directory
  })
}

export interface Runner {
  readonly pid: number
  readonly address: string
  readonly child: ChildProcess.ChildProcess
  /** SIGKILL, and wait for the exit. */
  readonly kill: Effect.Effect<void>
  readonly output: () => string
}

/** Starts fixtures/runner.ts and waits for its "ready" line; SIGKILLed with the scope if still running. */
export const startRunner = (options: {
  readonly storage: string
  readonly port: number
  readonly root: string
  readonly idleSeconds?: number
  /** Further arguments of fixtures/runner.ts: --host, --token, --tls-cert, --tls-key, --ca-file. */
  readonly extra?: ReadonlyArray<string>
}): Effect.Effect<Runner, never, Scope.Scope> =>
  Effect.gen(function*() {
    const args = [
      "--import",
      "tsx",
      NodePath.join(fixtures, "runner.ts"),
      "--storage",
      options.storage,
      "--port",
      String(options.port),
      "--root",
      options.root,
      ...(options.idleSeconds === undefined ? [] : ["--idle", String(options.idleSeconds)]),
      ...(options.extra ?? [])
    ]
    const exited = (child: ChildProcess.ChildProcess) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
      })
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        ChildProcess.spawn(process.execPath, args, {
          stdio: ["ignore", "pipe", "pipe"],
          env: { ...process.env, TSX_TSCONFIG_PATH: NodePath.join(fixtures, "tsconfig.json") }
        })
      ),
      (child) => Effect.zipRight(Effect.sync(() => child.kill("SIGKILL")), exited(child))
    )
    let out = ""
    child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")))
    child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")))
    yield* waitFor(
      `runner on port ${options.port} to be ready`,
      () => {
        if (child.exitCode !== null) throw new Error(`the runner exited (${child.exitCode}):\n${out}`)
        return /^ready /m.test(out)
      },
      60_000
    )
    const [, address] = /^ready (\S+) /m.exec(out)!
    return {
      pid: child.pid!,
      address: address!,
      child,
      kill: Effect.zipRight(Effect.sync(() => child.kill("SIGKILL")), exited(child)),
      output: () => out
    }
  })

const postgresBin = (name: string): string => {
  const candidates = [
    "/usr/local/bin",
    ...(NodeFs.existsSync("/usr/lib/postgresql")
      ? NodeFs.readdirSync("/usr/lib/postgresql").sort().reverse().map((v) => `/usr/lib/postgresql/${v}/bin`)
      : [])
  ]
  const found = candidates.map((dir) => NodePath.join(dir, name)).find((path) => NodeFs.existsSync(path))
  if (found === undefined) {
    throw new Error(`${name} (PostgreSQL) is not installed: install the postgresql package (.ci/run does)`)
  }
  return found
}

/** A PostgreSQL server of the test's own: its URL, and a way to stop it and start it again on the same port. */
export interface PostgresServer {
  readonly url: string
  /** Fast shutdown (SIGINT), and wait for the exit. */
  readonly stop: Effect.Effect<void>
  /** Starts it again on the same data and port; waits until it accepts connections. */
  readonly start: Effect.Effect<void>
}

/**
 * A PostgreSQL server of the test's own, in a temporary directory, on a loopback port and a socket in that
 * directory, trusted for local connections; stopped with the scope. PostgreSQL refuses to run as root, so
 * under root it runs as `nobody` (setpriv, which execs: the signal that stops it reaches postgres itself).
 */
export const postgresServer: Effect.Effect<PostgresServer, never, Scope.Scope> = Effect.gen(function*() {
  const initdb = postgresBin("initdb")
  const postgres = postgresBin("postgres")
  const directory = yield* tempDirectory("lsp-cluster-pg-")
  const data = NodePath.join(directory, "data")
  const asRoot = process.getuid?.() === 0
  const run = (command: string, args: ReadonlyArray<string>) =>
    asRoot
      ? {
        command: "setpriv",
        args: ["--reuid=65534", "--regid=65534", "--clear-groups", "--", command, ...args]
      }
      : { command, args }
  if (asRoot) NodeFs.chownSync(directory, 65534, 65534)
  const init = run(initdb, ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"])
  const result = ChildProcess.spawnSync(init.command, init.args, { encoding: "utf8" })
  if (result.status !== 0) throw new Error(`initdb failed: ${result.stderr}${result.stdout}`)
  const port = yield* freePort
  const start = run(postgres, [
    "-D",
    data,
    "-p",
    String(port),
    "-k",
    directory,
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "fsync=off",
    "-c",
    "max_connections=200"
  ])
  let child: ChildProcess.ChildProcess | undefined
  const stop = Effect.async<void>((resume) => {
    const running = child
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) {
      return resume(Effect.void)
    }
    running.once("exit", () => resume(Effect.void))
    // SIGINT: PostgreSQL's fast shutdown.
    running.kill("SIGINT")
  })
  const launch = Effect.gen(function*() {
    const started = ChildProcess.spawn(start.command, start.args, { stdio: ["ignore", "pipe", "pipe"] })
    child = started
    let log = ""
    started.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")))
    started.stdout!.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")))
    yield* waitFor("PostgreSQL to accept connections", () => {
      if (started.exitCode !== null) throw new Error(`postgres exited (${started.exitCode}):\n${log}`)
      return log.includes("ready to accept connections")
    }, 60_000)
  })
  yield* Effect.acquireRelease(launch, () => stop)
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop, start: launch }
})

/** A PostgreSQL server of the test's own (`postgresServer`): its URL. */
export const startPostgres: Effect.Effect<string, never, Scope.Scope> = Effect.map(
  postgresServer,
  (server) => server.url
)
