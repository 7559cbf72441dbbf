/**
 * `--remote auto`: the per-user daemon of a configuration. It listens on a well-known socket in
 * `LspRemoteAddress.defaultSocketDirectory()` whose name carries the version and the configuration's
 * fingerprint (`daemonIdentity.ts`), so each configuration has its own. When nothing answers there, one client
 * takes an exclusive lock (`<socket>.lock`, created with `wx`, holding its pid: a lock whose pid is gone is
 * stale), starts `lsp-seam serve --socket <socket> --idle-exit <d>` detached with its output in a log file
 * next to the socket, and waits for the socket to answer `Hello`; every other client waits for the same
 * answer. A daemon that answers with another version or fingerprint is never used.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { LspError } from "@lsp-seam/lsp"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as DaemonIdentity from "./daemonIdentity.js"
import * as RemoteModules from "./remoteModules.js"

/** The idle time of a daemon started by `--remote auto`, unless `LSP_SEAM_IDLE_EXIT` says otherwise. */
export const defaultIdleExit = "10m"

/** The environment variable that sets the idle time of a daemon started by `--remote auto`. */
export const idleExitVariable = "LSP_SEAM_IDLE_EXIT"

/** How long a started daemon has to answer `Hello`. */
export const readyBudgetMs = 10_000

export interface Daemon {
  readonly path: string
  readonly identity: DaemonIdentity.Identity
}

const here = import.meta.url
// From the sources (tests), the daemon is still the compiled command; the bundle sits next to bin.js.
const bin = fileURLToPath(
  new URL(here.endsWith(".ts") ? "../../dist/bin.js" : here.endsWith(".bundle.cjs") ? "./bin.js" : "../bin.js", here)
)

/** The daemon's socket; its lock, log and (for an inline configuration) configuration file sit next to it. */
export const socketPath = (
  identity: DaemonIdentity.Identity,
  environment: NodeJS.ProcessEnv = process.env
): Effect.Effect<string> =>
  Effect.map(
    RemoteModules.load,
    ({ Address }) =>
      Path.join(Address.defaultSocketDirectory(environment), `daemon-${identity.version}-${identity.fingerprint}.sock`)
  )

const sibling = (socket: string, suffix: string) => socket.replace(/\.sock$/, suffix)

type Probe =
  | { readonly _tag: "Ready"; readonly pid: number }
  | { readonly _tag: "Absent" }
  | { readonly _tag: "Failed"; readonly error: LspError.LspError }

/** Greets whatever listens on the socket, expecting this identity. */
export const probe = (path: string, identity: DaemonIdentity.Identity): Effect.Effect<Probe> =>
  Effect.scoped(
    Effect.flatMap(RemoteModules.load, ({ Client }) =>
      Effect.flatMap(
        Client.make({
          transport: Client.socket(path),
          connectTimeoutMs: 1_000,
          expect: { version: identity.version, fingerprint: identity.fingerprint }
        }),
        (client) => client.hello
      ))
  ).pipe(
    Effect.map((hello): Probe => ({ _tag: "Ready", pid: hello.pid })),
    Effect.catchAll((error): Effect.Effect<Probe> =>
      Effect.succeed(error.code === "LSP_REMOTE_UNAVAILABLE" ? { _tag: "Absent" } : { _tag: "Failed", error })
    )
  )

const incompatible = (error: LspError.LspError): LspError.LspError => {
  const pid = typeof error.detail?.pid === "number" ? error.detail.pid : undefined
  return LspError.make(
    error.code,
    `${error.message} It is not used: another lsp-seam version or configuration would answer. ` +
      (pid === undefined ? "Stop it" : `Stop it (kill ${pid})`) + " and run the command again; it is not " +
      "stopped for you because other clients may be using it.",
    error.detail
  )
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (cause) {
    return (cause as NodeJS.ErrnoException).code === "EPERM"
  }
}

type Lock = { readonly _tag: "Held"; readonly release: () => void } | { readonly _tag: "Busy" }

const takeLock = (lockPath: string): Lock => {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = Fs.openSync(lockPath, "wx", 0o600)
      Fs.writeSync(fd, String(process.pid))
      Fs.closeSync(fd)
      return {
        _tag: "Held",
        release: () => {
          try {
            if (Fs.readFileSync(lockPath, "utf8") === String(process.pid)) Fs.unlinkSync(lockPath)
          } catch {
            // already gone
          }
        }
      }
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== "EEXIST") throw cause
    }
    if (!isStale(lockPath)) return { _tag: "Busy" }
    try {
      Fs.unlinkSync(lockPath)
    } catch {
      // another client removed it first
    }
  }
  return { _tag: "Busy" }
}

const isStale = (lockPath: string): boolean => {
  try {
    const text = Fs.readFileSync(lockPath, "utf8").trim()
    const pid = Number(text)
    if (/^[0-9]+$/.test(text) && pid > 0) return !alive(pid)
    // Created but not written yet, or written by something else: stale once it is old.
    return Date.now() - Fs.statSync(lockPath).mtimeMs > 2_000
  } catch {
    return false
  }
}

const lockExists = (lockPath: string) => Fs.existsSync(lockPath)

const logTail = (logPath: string): string => {
  try {
    const text = Fs.readFileSync(logPath, "utf8").trim()
    return text.length === 0 ? "(the log is empty)" : text.slice(-2_000)
  } catch {
    return "(no log)"
  }
}

const spawnDaemon = (path: string, configFile: string | undefined, environment: NodeJS.ProcessEnv) => {
  const logPath = sibling(path, ".log")
  const log = Fs.openSync(logPath, "w", 0o600)
  try {
    const idle = environment[idleExitVariable] ?? defaultIdleExit
    const args = [bin, "serve", "--socket", path, "--idle-exit", idle]
    if (configFile !== undefined) args.push("--config", configFile)
    const child = ChildProcess.spawn(process.execPath, args, {
      detached: true,
      stdio: ["ignore", log, log],
      cwd: Path.dirname(path),
      env: environment
    })
    let exited: string | undefined
    child.once("exit", (code, signal) => {
      exited = signal === null ? `exit code ${code}` : `signal ${signal}`
    })
    child.once("error", (error) => {
      exited = String(error)
    })
    child.unref()
    return { logPath, exited: () => exited }
  } finally {
    Fs.closeSync(log)
  }
}

const ensureDirectory = (directory: string) =>
  Effect.try({
    try: () => Fs.mkdirSync(directory, { recursive: true, mode: 0o700 }),
    catch: (cause) =>
      LspError.invalidConfig(`Cannot create the daemon directory "${directory}": ${String(cause)}.`, { directory })
  })

/** Polls the socket until the daemon answers, `stop()` says to give up, or the budget runs out. */
const waitReady = (
  path: string,
  identity: DaemonIdentity.Identity,
  budgetMs: number,
  stop: () => boolean
): Effect.Effect<Probe> =>
  Effect.gen(function*() {
    const deadline = Date.now() + budgetMs
    while (true) {
      const result = yield* probe(path, identity)
      if (result._tag !== "Absent" || stop() || Date.now() > deadline) return result
      yield* Effect.sleep(Duration.millis(50))
    }
  })

/** The daemon for `source`, started (and waited for) when none answers. */
export const ensure = (
  source: DaemonIdentity.ConfigSource,
  environment: NodeJS.ProcessEnv = process.env
): Effect.Effect<Daemon, LspError.LspError> =>
  Effect.gen(function*() {
    const identity = yield* DaemonIdentity.identify(source, environment)
    const path = yield* socketPath(identity, environment)
    const lockPath = `${path}.lock`
    for (let attempt = 0; attempt < 3; attempt++) {
      const first = yield* probe(path, identity)
      if (first._tag === "Ready") return { path, identity }
      if (first._tag === "Failed") {
        return yield* Effect.fail(
          first.error.code === "LSP_REMOTE_INCOMPATIBLE" ? incompatible(first.error) : first.error
        )
      }
      yield* ensureDirectory(Path.dirname(path))
      const lock = yield* Effect.try({
        try: () => takeLock(lockPath),
        catch: (cause) => LspError.invalidConfig(`Cannot lock "${lockPath}": ${String(cause)}.`, { path: lockPath })
      })
      if (lock._tag === "Busy") {
        // Another client is starting it: wait for its answer (or for that client to give up).
        const waited = yield* waitReady(path, identity, readyBudgetMs + 2_000, () => !lockExists(lockPath))
        if (waited._tag === "Ready") return { path, identity }
        if (waited._tag === "Failed") return yield* Effect.fail(waited.error)
        continue
      }
      const started = yield* Effect.gen(function*() {
        // Someone may have finished starting it between the probe and the lock.
        const again = yield* probe(path, identity)
        if (again._tag !== "Absent") return again
        const configFile = source._tag === "File"
          ? source.path
          : source._tag === "Inline"
          ? yield* writeInlineConfig(path, source.config)
          : undefined
        const child = yield* Effect.try({
          try: () => spawnDaemon(path, configFile, environment),
          catch: (cause) => LspError.remoteUnavailable(`Cannot start the lsp-seam daemon: ${String(cause)}.`)
        })
        const ready = yield* waitReady(path, identity, readyBudgetMs, () => child.exited() !== undefined)
        if (ready._tag === "Absent") {
          const why = child.exited() === undefined
            ? `did not answer within ${readyBudgetMs / 1000} s`
            : `ended (${child.exited()}) before answering`
          return {
            _tag: "Failed",
            error: LspError.remoteUnavailable(
              `The lsp-seam daemon started for ${path} ${why}. The end of its log (${child.logPath}):\n${
                logTail(child.logPath)
              }`,
              { address: path, log: child.logPath }
            )
          } satisfies Probe
        }
        return ready
      }).pipe(Effect.ensuring(Effect.sync(lock.release)))
      if (started._tag === "Ready") return { path, identity }
      if (started._tag === "Failed") {
        return yield* Effect.fail(
          started.error.code === "LSP_REMOTE_INCOMPATIBLE" ? incompatible(started.error) : started.error
        )
      }
    }
    return yield* LspError.remoteUnavailable(`Could not reach or start the lsp-seam daemon at ${path}.`, {
      address: path
    })
  }).pipe(Effect.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer)))

const writeInlineConfig = (path: string, config: unknown) =>
  Effect.try({
    try: () => {
      const file = sibling(path, ".json")
      const temporary = `${file}.${process.pid}`
      Fs.writeFileSync(temporary, JSON.stringify(config), { mode: 0o600 })
      Fs.renameSync(temporary, file)
      return file
    },
    catch: (cause) => LspError.invalidConfig(`Cannot write the daemon's configuration: ${String(cause)}.`)
  })

/** Whether a daemon answers for `source` now (never starts one): for `doctor --remote auto`. */
export const find = (
  source: DaemonIdentity.ConfigSource,
  environment: NodeJS.ProcessEnv = process.env
): Effect.Effect<
  Either.Either<Daemon, { readonly path: string; readonly error?: LspError.LspError }>,
  LspError.LspError
> =>
  Effect.gen(function*() {
    const identity = yield* DaemonIdentity.identify(source, environment)
    const path = yield* socketPath(identity, environment)
    const result = yield* probe(path, identity)
    return result._tag === "Ready"
      ? Either.right({ path, identity })
      : Either.left(
        result._tag === "Failed"
          ? { path, error: result.error.code === "LSP_REMOTE_INCOMPATIBLE" ? incompatible(result.error) : result.error }
          : { path }
      )
  }).pipe(Effect.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer)))
