/**
 * The Unix socket's place on disk (its directory is checked by `LspRemoteDirectory.ensure`, as the
 * `--remote auto` client checks it): no stale socket in the way, mode 0600 from the moment it is reachable, and
 * removal on shutdown (only of the socket this server made).
 */
import { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"

const errnoOf = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
    ? cause.code
    : undefined

const lstat = (path: string): Fs.Stats | undefined => {
  try {
    return Fs.lstatSync(path)
  } catch (cause) {
    if (errnoOf(cause) === "ENOENT") return undefined
    throw cause
  }
}

const refuse = (message: string, path: string) => LspError.invalidConfig(message, { path })

/**
 * Binds the socket at `path` already restricted to its owner: it is made in a fresh private directory next to
 * `path` (mode 0700), made 0600, then hard-linked into place — so no one ever sees it with a wider mode, and
 * a file that appeared at `path` meanwhile is never replaced (`LSP_CONFLICT`).
 */
export const bindPrivately = <A, E, R>(
  path: string,
  bind: (temporary: string) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | LspError.LspConfigurationError, R | Scope.Scope> =>
  Effect.gen(function*() {
    const staging = yield* Effect.acquireRelease(
      Effect.try({
        try: () => Fs.mkdtempSync(Path.join(Path.dirname(path), ".ls")),
        catch: (cause) => refuse(`Cannot create a private directory next to "${path}": ${String(cause)}.`, path)
      }),
      (staging) => Effect.sync(() => Fs.rmSync(staging, { recursive: true, force: true }))
    )
    const temporary = Path.join(staging, "s")
    const bound = yield* bind(temporary)
    yield* Effect.try({
      try: () => {
        Fs.chmodSync(temporary, 0o600)
        Fs.linkSync(temporary, path)
        Fs.unlinkSync(temporary)
        Fs.rmdirSync(staging)
      },
      catch: (cause) =>
        errnoOf(cause) === "EEXIST"
          ? LspError.conflict(`Another file appeared at "${path}" while this host started; not replacing it.`, {
            path
          })
          : refuse(`Cannot put the socket in place at "${path}": ${String(cause)}.`, path)
    })
    return bound
  })

/** Resolves with whether something accepts connections on `path`. */
const answers = (path: string): Effect.Effect<boolean> =>
  Effect.async<boolean>((resume) => {
    const probe = Net.createConnection({ path })
    probe.once("connect", () => {
      probe.destroy()
      resume(Effect.succeed(true))
    })
    probe.once("error", () => {
      probe.destroy()
      resume(Effect.succeed(false))
    })
    return Effect.sync(() => probe.destroy())
  }).pipe(Effect.timeoutTo({ duration: "2 seconds", onSuccess: (up) => up, onTimeout: () => true }))

/** Makes way for a new socket at `path`: removes a stale one, refuses a live one or any other file. */
export const clearStaleSocket = (path: string): Effect.Effect<void, LspError.LspConfigurationError> =>
  Effect.gen(function*() {
    const stats = yield* Effect.try({
      try: () => lstat(path),
      catch: (cause) => refuse(`Cannot inspect the socket path "${path}": ${String(cause)}.`, path)
    })
    if (stats === undefined) return
    if (!stats.isSocket()) {
      return yield* refuse(`"${path}" exists and is not a socket; refusing to replace it.`, path)
    }
    if (yield* answers(path)) {
      return yield* LspError.conflict(`Another lsp-seam host already listens on "${path}".`, { path })
    }
    yield* Effect.try({
      try: () => Fs.unlinkSync(path),
      catch: (cause) => refuse(`Cannot remove the stale socket "${path}": ${String(cause)}.`, path)
    })
  })

/** Removes the socket at `path` when the scope closes, unless another file has taken its place by then. */
export const removeOnClose = (path: string) =>
  Effect.gen(function*() {
    const inode = yield* Effect.try({
      try: () => Fs.lstatSync(path).ino,
      catch: (cause) => refuse(`Cannot inspect the socket "${path}": ${String(cause)}.`, path)
    })
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        try {
          const current = lstat(path)
          if (current !== undefined && current.isSocket() && current.ino === inode) Fs.unlinkSync(path)
        } catch {
          // Best effort: a socket left behind is removed as stale by the next server.
        }
      })
    )
  })

/** The directory of a socket path. */
export const directoryOf = (path: string): string => Path.dirname(Path.resolve(path))

/**
 * Fails unless the socket at `path` (when there is one) belongs to this user or to root: a socket of another
 * user is someone else's host, and queries (paths, file names) are not sent to it.
 */
export const checkOwner = (
  path: string
): Effect.Effect<void, { readonly socketOwner: number; readonly message: string }> =>
  Effect.suspend(() => {
    const uid = process.getuid?.()
    const stats = uid === undefined ? undefined : lstat(path)
    return stats === undefined || stats.uid === uid || stats.uid === 0
      ? Effect.void
      : Effect.fail({ socketOwner: stats.uid, message: `the socket belongs to uid ${stats.uid}` })
  })
