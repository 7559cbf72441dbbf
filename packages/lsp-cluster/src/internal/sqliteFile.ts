/**
 * The SQLite store's files before SQLite opens them. The store lists the runners' addresses, which every runner
 * and client dials, so whoever can write it (or its `-wal`, `-shm`, `-journal`, or the directory they live in)
 * can steer the cluster's traffic. A new store is created 0600, exclusively and without following a symlink
 * (SQLite gives its side files the store's mode); a store, side file or directory that another user may write
 * is refused with `LSP_INVALID_CONFIG`, unless the caller accepts it explicitly, which is logged as a warning.
 */
import { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

/** The files SQLite keeps next to a database. */
const sideFiles = ["-wal", "-shm", "-journal"]

/** Why `stats` lets a user other than this one (or root) write the file or directory; undefined when none can. */
const looseness = (stats: NodeFs.Stats): string | undefined => {
  const uid = process.getuid?.()
  if (uid !== undefined && stats.uid !== uid && stats.uid !== 0) return `owned by another user (uid ${stats.uid})`
  if ((stats.mode & 0o002) !== 0) return `world-writable (mode ${(stats.mode & 0o7777).toString(8)})`
  if ((stats.mode & 0o020) !== 0) return `group-writable (mode ${(stats.mode & 0o7777).toString(8)})`
  return undefined
}

const lstat = (path: string): NodeFs.Stats | undefined => {
  try {
    return NodeFs.lstatSync(path)
  } catch {
    return undefined
  }
}

/** Every path among the store's directory, the store and its side files that others may write, and why. */
const loosePaths = (filename: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  const directory = NodePath.dirname(filename)
  const directoryStats = (() => {
    try {
      return NodeFs.statSync(directory)
    } catch {
      return undefined
    }
  })()
  const directoryWhy = directoryStats === undefined ? undefined : looseness(directoryStats)
  if (directoryWhy !== undefined) found.push(`the directory ${directory} is ${directoryWhy}`)
  for (const path of [filename, ...sideFiles.map((suffix) => filename + suffix)]) {
    const stats = lstat(path)
    if (stats === undefined) continue
    const why = stats.isSymbolicLink() ? "a symbolic link" : looseness(stats)
    if (why !== undefined) found.push(`${path} is ${why}`)
  }
  return found
}

/**
 * Checks the store at `filename` and its directory, and creates the store 0600 when it is missing. Fails with
 * `LSP_INVALID_CONFIG` when another user may write any of them, unless `allowWritableByOthers`, which warns.
 */
export const prepare = (
  filename: string,
  options: { readonly allowWritableByOthers: boolean }
): Effect.Effect<void, LspError.LspConfigurationError> =>
  Effect.gen(function*() {
    const loose = loosePaths(filename)
    if (loose.length > 0 && !options.allowWritableByOthers) {
      return yield* LspError.invalidConfig(
        `Refusing the cluster storage sqlite:${filename}: ${loose.join("; ")}. Whoever can write it can list a ` +
          "runner address that every runner and client dials. Keep the store in a directory only you can write " +
          `(chmod go-w ${NodePath.dirname(filename)}; chmod 600 ${filename}), or pass --allow-writable-storage ` +
          "to accept it.",
        { storage: `sqlite:${filename}`, loose }
      )
    }
    if (loose.length > 0) {
      yield* Effect.logWarning(
        `lsp-seam: WARNING: --allow-writable-storage: other users may write the cluster storage (${
          loose.join("; ")
        }); they can redirect the cluster's traffic.`
      )
    }
    yield* Effect.try({
      try: () => {
        const fd = NodeFs.openSync(
          filename,
          NodeFs.constants.O_CREAT | NodeFs.constants.O_EXCL | NodeFs.constants.O_WRONLY |
            NodeFs.constants.O_NOFOLLOW,
          0o600
        )
        NodeFs.closeSync(fd)
      },
      catch: (cause) => cause
    }).pipe(
      // EEXIST: the store is there already (checked above); anything else is SQLite's to report when it opens.
      Effect.ignore
    )
  })
