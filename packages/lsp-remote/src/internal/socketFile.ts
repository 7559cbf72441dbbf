/**
 * The Unix socket's place on disk: a private parent directory, no stale socket in the way, mode 0600 once
 * listening, and removal on shutdown (only of the socket this server made).
 */
import { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
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

/** Creates the socket's directory (mode 0700) if missing and refuses one that others could reach. */
export const ensurePrivateDirectory = (directory: string): Effect.Effect<void, LspError.LspError> =>
  Effect.gen(function*() {
    yield* Effect.try({
      try: () => Fs.mkdirSync(directory, { recursive: true, mode: 0o700 }),
      catch: (cause) => refuse(`Cannot create the socket directory "${directory}": ${String(cause)}.`, directory)
    })
    const stats = yield* Effect.try({
      try: () => Fs.lstatSync(directory),
      catch: (cause) => refuse(`Cannot inspect the socket directory "${directory}": ${String(cause)}.`, directory)
    })
    if (stats.isSymbolicLink() || !stats.isDirectory()) {
      return yield* refuse(`The socket directory "${directory}" is not a directory (or is a symlink).`, directory)
    }
    if (process.getuid !== undefined && stats.uid !== process.getuid()) {
      return yield* refuse(`The socket directory "${directory}" belongs to another user.`, directory)
    }
    if ((stats.mode & 0o077) !== 0) {
      return yield* refuse(
        `The socket directory "${directory}" is accessible to other users (mode ${
          (stats.mode & 0o777).toString(8)
        }); it must be 700.`,
        directory
      )
    }
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
export const clearStaleSocket = (path: string): Effect.Effect<void, LspError.LspError> =>
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

/**
 * Restricts the listening socket to its owner and removes it when the scope closes, unless another file has
 * taken its place by then.
 */
export const ownSocket = (path: string) =>
  Effect.gen(function*() {
    const inode = yield* Effect.try({
      try: () => {
        Fs.chmodSync(path, 0o600)
        return Fs.lstatSync(path).ino
      },
      catch: (cause) => refuse(`Cannot restrict the socket "${path}" to its owner: ${String(cause)}.`, path)
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
