/**
 * Helpers of the remote-host tests: workspaces served by fake language servers, `lsp-seam serve` as a
 * scoped child process, and accounting of every process a test started (none may survive it).
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { bin, fakeServer, tempDir } from "./cli.js"

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (cause) {
    return (cause as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Polls `predicate` every 50 ms until it holds; fails after `timeoutMs`. */
export const waitFor = (what: string, predicate: () => boolean, timeoutMs = 15_000): Effect.Effect<void> =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (!predicate()) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep("50 millis")
    }
  })

/** The pids of live processes whose command line contains `needle`. */
export const processesWith = (needle: string): ReadonlyArray<number> =>
  NodeFs.readdirSync("/proc").filter((entry) => /^[0-9]+$/.test(entry)).flatMap((entry) => {
    try {
      const cmdline = NodeFs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ")
      const state = NodeFs.readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.[0]
      return cmdline.includes(needle) && state !== "Z" && Number(entry) !== process.pid ? [Number(entry)] : []
    } catch {
      return []
    }
  })

/** Every live descendant of `pid` (children, their children, …), from the parent pids in /proc. */
export const descendantsOf = (pid: number): ReadonlyArray<number> => {
  const children = new Map<number, Array<number>>()
  for (const entry of NodeFs.readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(entry)) continue
    try {
      // The fields after the command's closing parenthesis: state, then the parent pid.
      const [state, parent] = NodeFs.readFileSync(`/proc/${entry}/stat`, "utf8").split(") ").at(-1)!.split(" ")
      if (state !== "Z") children.set(Number(parent), [...(children.get(Number(parent)) ?? []), Number(entry)])
    } catch {
      // gone
    }
  }
  const found: Array<number> = []
  const visit = (parent: number) => {
    for (const child of children.get(parent) ?? []) {
      found.push(child)
      visit(child)
    }
  }
  visit(pid)
  return found
}

const killAll = (pids: ReadonlyArray<number>) => {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // gone
    }
  }
}

export interface Recorded {
  readonly type: string
  /** A request's id (a message) or the id of our request it answers (an answer). */
  readonly id?: unknown
  readonly method?: string
  readonly event?: string
  readonly pid?: number
  readonly params?: unknown
}

export const readRecord = (file: string): ReadonlyArray<Recorded> =>
  NodeFs.existsSync(file)
    ? NodeFs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) =>
      JSON.parse(line) as Recorded
    )
    : []

export const startedPids = (file: string) =>
  readRecord(file).filter((r) => r.type === "event" && r.event === "start").map((r) => r.pid!)

export interface FakeWorkspace {
  /** The workspace; also where the daemon's socket directory (`XDG_RUNTIME_DIR`) lives, under `run/`. */
  readonly dir: string
  readonly runtimeDir: string
  /** The record file of server `id`. */
  readonly record: (id: string) => string
  /** The environment of every command of the test: its own socket directory. */
  readonly env: Record<string, string>
}

/**
 * A temporary workspace with one file `<id>.<ext>` per fake server and an `lsp-seam.json` that configures
 * them (each recording to its own file); when the scope closes, every process started under it is killed
 * and the directory removed.
 */
export const fakeWorkspace = (
  servers: Record<string, { readonly extension: string; readonly fake?: Record<string, unknown> }>
): Effect.Effect<FakeWorkspace, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const dir = tempDir("remote")
      const runtimeDir = NodePath.join(dir, "run")
      NodeFs.mkdirSync(runtimeDir, { mode: 0o700 })
      const record = (id: string) => NodePath.join(dir, `${id}.record.jsonl`)
      const config = {
        servers: Object.fromEntries(
          Object.entries(servers).map(([id, server]) => {
            NodeFs.writeFileSync(NodePath.join(dir, `${id}${server.extension}`), "hello world\nsecond line\n")
            return [id, {
              command: process.execPath,
              args: [fakeServer],
              extensionToLanguage: { [server.extension]: "plaintext" },
              env: { FAKE_LSP: JSON.stringify({ record: record(id), ...server.fake }) }
            }]
          })
        )
      }
      NodeFs.writeFileSync(NodePath.join(dir, "lsp-seam.json"), JSON.stringify(config))
      return { dir, runtimeDir, record, env: { XDG_RUNTIME_DIR: runtimeDir } }
    }),
    (workspace) =>
      Effect.sync(() => {
        killAll(processesWith(workspace.dir))
        for (const id of Object.keys(servers)) killAll(startedPids(workspace.record(id)).filter(alive))
        NodeFs.rmSync(workspace.dir, { recursive: true, force: true })
      })
  )

export interface Served {
  /** The process spawned: `serve` itself, or the `wrap` command that runs it. */
  readonly child: ChildProcess.ChildProcess
  /** The pid of the `serve` process (under `wrap`, the wrapper's child). */
  readonly pid: number
  /** What `serve` printed it listens on: `unix:PATH` or `ws://HOST:PORT/lsp-seam`. */
  readonly address: string
  readonly stderr: () => string
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  readonly exited: Effect.Effect<number | string>
}

/**
 * `lsp-seam serve …args` until it says where it listens; stopped (SIGTERM, then SIGKILL) with the scope.
 * `wrap` runs it under another command (`["strace", "-f", …]`), which must exit when `serve` does.
 */
export const serve = (
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: Record<string, string>; readonly wrap?: ReadonlyArray<string> }
): Effect.Effect<Served, never, Scope.Scope> =>
  Effect.gen(function*() {
    const command = [...(options.wrap ?? []), process.execPath, bin, "serve", ...args]
    let servePid: number | undefined = undefined
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        ChildProcess.spawn(command[0]!, command.slice(1), {
          cwd: options.cwd,
          env: { ...process.env, ...options.env },
          stdio: ["ignore", "ignore", "pipe"]
        })
      ),
      (child) =>
        Effect.gen(function*() {
          if (child.exitCode !== null || child.signalCode !== null) return
          if (servePid !== undefined && servePid !== child.pid && alive(servePid)) process.kill(servePid, "SIGTERM")
          else child.kill("SIGTERM")
          yield* waitFor("serve to stop", () => child.exitCode !== null || child.signalCode !== null, 10_000).pipe(
            Effect.catchAllDefect(() => Effect.sync(() => child.kill("SIGKILL")))
          )
        })
    )
    let stderr = ""
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    const exited = Effect.async<number | string>((resume) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        return resume(Effect.succeed(child.exitCode ?? child.signalCode!))
      }
      child.once("exit", (code, signal) => resume(Effect.succeed(code ?? signal!)))
    })
    yield* waitFor("serve to listen", () => /listening on \S+/.test(stderr) || child.exitCode !== null, 30_000)
    const address = /listening on (\S+)/.exec(stderr)?.[1]
    if (address === undefined) return yield* Effect.die(new Error(`serve did not start:\n${stderr}`))
    servePid = options.wrap === undefined ? child.pid! : descendantsOf(child.pid!)[0]
    if (servePid === undefined) return yield* Effect.die(new Error(`no serve process under ${command[0]}`))
    return { child, pid: servePid, address, stderr: () => stderr, exited }
  })
