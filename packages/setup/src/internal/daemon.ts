/**
 * `--remote auto`: the per-user daemon of a configuration. It listens on a well-known socket in
 * `LspRemoteAddress.defaultSocketDirectory()` whose name carries the version and the configuration's
 * fingerprint (`daemonIdentity.ts`), so each configuration has its own. Nothing is written in that directory
 * before `LspRemoteDirectory.ensure` (the check `serve` makes too) finds it private: its name is
 * predictable, so another user may have made it. When nothing answers there, one client
 * takes an exclusive lock (`<socket>.lock`: a Unix socket it listens on, which the kernel closes when the client
 * dies; whoever connects is told it is lsp-seam and its pid), starts `lsp-seam serve --socket <socket> --idle-exit <d>` detached with its output in a log file
 * next to the socket (`lsp-seam` is the bin of the installed `@lsp-seam/cli`, `daemonProgram.ts`), and waits for the socket to answer `Hello`; every other client waits for the same
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
import * as Net from "node:net"
import * as Path from "node:path"
import * as DaemonIdentity from "./daemonIdentity.js"
import * as DaemonProgram from "./daemonProgram.js"
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

/** The daemon's socket; its lock, log and (for an inline configuration) configuration file sit next to it. */
export const socketPath = (
  identity: DaemonIdentity.Identity,
  environment: NodeJS.ProcessEnv = process.env
): Effect.Effect<string> =>
  Effect.map(
    RemoteModules.load,
    ({ Address }) => Path.join(Address.defaultSocketDirectory(environment), DaemonIdentity.socketName(identity))
  )

const sibling = (socket: string, suffix: string) => socket.replace(/\.sock$/, suffix)

type Probe =
  | { readonly _tag: "Ready"; readonly pid: number }
  | { readonly _tag: "Absent" }
  | { readonly _tag: "Failed"; readonly error: LspError.LspConfigurationError | LspError.LspRemoteError }

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

const incompatible = (
  error: LspError.LspConfigurationError | LspError.LspRemoteError
): LspError.LspConfigurationError | LspError.LspRemoteError => {
  const pid = typeof error.detail?.pid === "number" ? error.detail.pid : undefined
  return LspError.make(
    error.code,
    `${error.message} It is not used: another lsp-seam version or configuration would answer. ` +
      (pid === undefined ? "Stop it" : `Stop it (kill ${pid})`) + " and run the command again; it is not " +
      "stopped for you because other clients may be using it.",
    error.detail
  )
}

/** What the lock's holder says to whoever connects: it is lsp-seam, starting this daemon, in this process. */
const lockGreeting = (pid: number) => `lsp-seam daemon lock ${pid}\n`
const greetingPattern = /^lsp-seam daemon lock ([0-9]+)\n/

type Lock =
  | { readonly _tag: "Held"; readonly release: Effect.Effect<void> }
  | { readonly _tag: "Busy"; readonly holder: number }

const errnoOf = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
    ? cause.code
    : undefined

/** Listens on `lockPath`: the kernel closes the socket when this process dies, however it dies. */
const bindLock = (lockPath: string): Effect.Effect<Either.Either<Net.Server, string>> =>
  Effect.async((resume) => {
    const server = Net.createServer((connection) => {
      connection.on("error", () => {})
      connection.end(lockGreeting(process.pid))
    })
    server.once("error", (cause) => resume(Effect.succeed(Either.left(errnoOf(cause) ?? String(cause)))))
    server.listen({ path: lockPath, exclusive: true }, () => {
      server.unref()
      resume(Effect.succeed(Either.right(server)))
    })
  })

type Holder =
  | { readonly _tag: "LspSeam"; readonly pid: number }
  | { readonly _tag: "Gone" }
  | { readonly _tag: "Foreign"; readonly why: string }

/** Who holds the lock at `lockPath`: an lsp-seam client (it greets), nobody (nothing accepts), or something else. */
const holderOf = (lockPath: string): Effect.Effect<Holder> =>
  Effect.async<Holder>((resume) => {
    let stats: Fs.Stats
    try {
      stats = Fs.lstatSync(lockPath)
    } catch {
      return resume(Effect.succeed({ _tag: "Gone" }))
    }
    // A file of another kind (the pid file of older versions, or anything else) guards nothing.
    if (!stats.isSocket()) return resume(Effect.succeed({ _tag: "Gone" }))
    let received = ""
    const probe = Net.createConnection({ path: lockPath })
    const done = (holder: Holder) => {
      probe.destroy()
      resume(Effect.succeed(holder))
    }
    probe.on("data", (chunk) => {
      received += chunk.toString("utf8")
      const match = greetingPattern.exec(received)
      if (match !== null) done({ _tag: "LspSeam", pid: Number(match[1]) })
      else if (received.length > 64 || received.includes("\n")) {
        done({ _tag: "Foreign", why: "it answers as something else" })
      }
    })
    probe.once("end", () => done({ _tag: "Foreign", why: "it closed without saying it is lsp-seam" }))
    probe.once("error", (cause) => {
      const errno = errnoOf(cause)
      done(
        errno === "ECONNREFUSED" || errno === "ENOENT"
          ? { _tag: "Gone" }
          : { _tag: "Foreign", why: `it cannot be asked (${errno ?? String(cause)})` }
      )
    })
    return Effect.sync(() => probe.destroy())
  }).pipe(
    Effect.timeoutTo({
      duration: "1 second",
      onSuccess: (holder) => holder,
      onTimeout: (): Holder => ({ _tag: "Foreign", why: "it accepts but does not say it is lsp-seam" })
    })
  )

const foreignLock = (lockPath: string, why: string) =>
  LspError.remoteUnavailable(
    `Cannot start the lsp-seam daemon: its lock "${lockPath}" is held by something that is not lsp-seam (${why}). ` +
      "Stop whatever listens there, or remove the file, and run the command again.",
    { lock: lockPath }
  )

/** Removes a lock whose holder has gone, unless it was replaced meanwhile (by a new holder). */
const removeStale = (lockPath: string, before: Fs.Stats | undefined) => {
  try {
    const now = Fs.lstatSync(lockPath)
    if (before === undefined || now.ino === before.ino) Fs.unlinkSync(lockPath)
  } catch {
    // Already gone.
  }
}

const lstatOrUndefined = (path: string): Fs.Stats | undefined => {
  try {
    return Fs.lstatSync(path)
  } catch {
    return undefined
  }
}

/**
 * The lock that serialises starting the daemon: a Unix socket listening at `lockPath`, held for as long as
 * this process keeps it open, released by the kernel when the process dies. A socket nothing accepts on, or
 * a file of any other kind, is stale and replaced; a holder that does not greet as lsp-seam is never waited on.
 */
const takeLock = (lockPath: string): Effect.Effect<Lock, LspError.LspConfigurationError | LspError.LspRemoteError> =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 3; attempt++) {
      const bound = yield* bindLock(lockPath)
      if (Either.isRight(bound)) {
        const server = bound.right
        const inode = lstatOrUndefined(lockPath)?.ino
        return {
          _tag: "Held",
          release: Effect.sync(() => {
            if (inode !== undefined && lstatOrUndefined(lockPath)?.ino === inode) removeStale(lockPath, undefined)
            server.close()
          })
        }
      }
      if (bound.left !== "EADDRINUSE") {
        return yield* LspError.invalidConfig(`Cannot lock "${lockPath}": ${bound.left}.`, { lock: lockPath })
      }
      const before = lstatOrUndefined(lockPath)
      const holder = yield* holderOf(lockPath)
      switch (holder._tag) {
        case "LspSeam":
          return { _tag: "Busy", holder: holder.pid }
        case "Foreign":
          return yield* foreignLock(lockPath, holder.why)
        case "Gone":
          removeStale(lockPath, before)
      }
    }
    return yield* LspError.remoteUnavailable(
      `Cannot take the lsp-seam daemon's lock "${lockPath}": it keeps being replaced. Run the command again.`,
      { lock: lockPath }
    )
  })

/**
 * A new file at `path`, readable by this user alone. Whatever was there (a file, a link, a FIFO) is unlinked,
 * never opened, and the new one is created exclusively without following links: nothing planted there can
 * make this open, truncate or write another file, and an `open` cannot block on a FIFO.
 */
const createFresh = (path: string): number => {
  try {
    Fs.unlinkSync(path)
  } catch (cause) {
    if (errnoOf(cause) !== "ENOENT") throw cause
  }
  const { O_CREAT, O_EXCL, O_NOFOLLOW, O_WRONLY } = Fs.constants
  return Fs.openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
}

const logTail = (logPath: string): string => {
  try {
    const fd = Fs.openSync(logPath, Fs.constants.O_RDONLY | Fs.constants.O_NOFOLLOW | Fs.constants.O_NONBLOCK)
    let text: string
    try {
      text = Fs.readFileSync(fd, "utf8").trim()
    } finally {
      Fs.closeSync(fd)
    }
    return text.length === 0 ? "(the log is empty)" : text.slice(-2_000)
  } catch {
    return "(no log)"
  }
}

const spawnDaemon = (
  bin: string,
  path: string,
  configFile: string | undefined,
  environment: NodeJS.ProcessEnv
) => {
  const logPath = sibling(path, ".log")
  const log = createFresh(logPath)
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

/** Polls the socket until the daemon answers, `stop()` says to give up, or the budget runs out. */
const waitReady = <E>(
  path: string,
  identity: DaemonIdentity.Identity,
  budgetMs: number,
  stop: Effect.Effect<boolean, E>
): Effect.Effect<Probe, E> =>
  Effect.gen(function*() {
    const deadline = Date.now() + budgetMs
    while (true) {
      const result = yield* probe(path, identity)
      if (result._tag !== "Absent" || (yield* stop) || Date.now() > deadline) return result
      yield* Effect.sleep(Duration.millis(50))
    }
  })

/**
 * The daemon for `source`, started (and waited for) when none answers. Long on purpose (~90 lines): the
 * find-lock-start-wait protocol is one sequence whose steps share the socket, the lock and the deadline.
 */
export const ensure = (
  source: DaemonIdentity.ConfigSource,
  environment: NodeJS.ProcessEnv = process.env
): Effect.Effect<Daemon, LspError.LspConfigurationError | LspError.LspRemoteError> =>
  Effect.gen(function*() {
    const identity = yield* DaemonIdentity.identify(source, environment)
    const path = yield* socketPath(identity, environment)
    const lockPath = `${path}.lock`
    let lastHolder: number | undefined
    for (let attempt = 0; attempt < 3; attempt++) {
      const first = yield* probe(path, identity)
      if (first._tag === "Ready") return { path, identity }
      if (first._tag === "Failed") {
        return yield* Effect.fail(
          first.error.code === "LSP_REMOTE_INCOMPATIBLE" ? incompatible(first.error) : first.error
        )
      }
      // Before anything is written there: the directory's name is predictable, so another user may have made it.
      yield* Effect.flatMap(RemoteModules.load, ({ Directory }) => Directory.ensure(Path.dirname(path), environment))
      const lock = yield* takeLock(lockPath)
      if (lock._tag === "Busy") {
        // Another lsp-seam client is starting it: wait for its answer, or until that client gives up or dies
        // (its lock stops answering); one that answers as something else is not waited for.
        const holderGone = Effect.flatMap(holderOf(lockPath), (holder) =>
          holder._tag === "Foreign" ? foreignLock(lockPath, holder.why) : Effect.succeed(holder._tag === "Gone"))
        const waited = yield* waitReady(path, identity, readyBudgetMs + 2_000, holderGone)
        if (waited._tag === "Ready") {
          return { path, identity }
        }
        if (waited._tag === "Failed") {
          return yield* Effect.fail(waited.error)
        }
        lastHolder = lock.holder
        continue
      }
      const started = yield* Effect.gen(function*() {
        // Someone may have finished starting it between the probe and the lock.
        const again = yield* probe(path, identity)
        if (again._tag !== "Absent") {
          return again
        }
        const configFile = source._tag === "File"
          ? source.path
          : source._tag === "Inline"
          ? yield* writeInlineConfig(path, source.config)
          : undefined
        const program = yield* DaemonProgram.find()
        const child = yield* Effect.try({
          try: () =>
            spawnDaemon(program.bin, path, configFile, environment),
          catch: (cause) =>
            LspError.remoteUnavailable(`Cannot start the lsp-seam daemon: ${String(cause)}.`)
        })
        const ready = yield* waitReady(
          path,
          identity,
          readyBudgetMs,
          Effect.sync(() => child.exited() !== undefined)
        )
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
      }).pipe(Effect.ensuring(lock.release))
      if (started._tag === "Ready") return { path, identity }
      if (started._tag === "Failed") {
        return yield* Effect.fail(
          started.error.code === "LSP_REMOTE_INCOMPATIBLE" ? incompatible(started.error) : started.error
        )
      }
    }
    return yield* LspError.remoteUnavailable(
      `Could not reach or start the lsp-seam daemon at ${path}` +
        (lastHolder === undefined
          ? ` (its lock is "${lockPath}").`
          : `: the lsp-seam client holding its lock "${lockPath}" (pid ${lastHolder}) did not get it to answer.`),
      { address: path, lock: lockPath }
    )
  }).pipe(Effect.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer)))

const writeInlineConfig = (path: string, config: unknown) =>
  Effect.try({
    try: () => {
      const file = sibling(path, ".json")
      const temporary = `${file}.${process.pid}`
      const fd = createFresh(temporary)
      try {
        Fs.writeFileSync(fd, JSON.stringify(config))
      } finally {
        Fs.closeSync(fd)
      }
      // Replaces whatever has the name (a link included) without following it.
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
  Either.Either<
    Daemon,
    { readonly path: string; readonly error?: LspError.LspConfigurationError | LspError.LspRemoteError }
  >,
  LspError.LspConfigurationError | LspError.LspRemoteError
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
