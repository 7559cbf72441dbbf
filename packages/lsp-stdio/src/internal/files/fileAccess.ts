/**
 * The few file-system calls a query makes on its workspace and sources (realpath, stat, a bounded read),
 * in two flavours. Through the platform `FileSystem` each call is a round trip to libuv's thread pool;
 * on the local machine the same calls are made synchronously, which is 15–30× faster for the small,
 * local files a query reads (measured: ~20 µs against ~400–700 µs per source, 8 calls each). Synchronous
 * calls cannot block on a FIFO here: it is opened non-blocking and refused after `fstat`. What they cannot
 * survive is a file system that hangs (a dead network mount): that would stall the host, not one query.
 */
import type * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { LspError } from "@lsp-seam/lsp"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as NodeFs from "node:fs"

/** What `stat` says about a file. */
export interface FileInfo {
  readonly type: FileSystem.File.Type
  readonly size: number
  /** Modification time in milliseconds since the epoch; 0 when unknown. */
  readonly mtimeMs: number
  /**
   * Status change time (ctime) in milliseconds since the epoch; 0 when unknown (the platform `FileSystem`
   * does not report it). Unlike the mtime, local file systems give writers no way to set it back.
   */
  readonly ctimeMs: number
  /** The inode number; 0 when unknown. */
  readonly ino: number
  /**
   * For a file `read` has opened: the real path of what was opened, read from its descriptor (Linux's
   * /proc/self/fd), so a caller can check the file it reads is the one it checked; undefined where the
   * system does not tell.
   */
  readonly openedPath?: string | undefined
}

/** A failed call: the errno code when there is one (`ENOENT`, `ELOOP`, ...), and a message. */
export interface FileError {
  readonly _tag: "FileError"
  readonly code: string | undefined
  readonly message: string
}

export interface FileAccess {
  readonly realPath: (path: string) => Effect.Effect<string, FileError>
  readonly stat: (path: string) => Effect.Effect<FileInfo, FileError>
  /** The names of the entries of directory `path` (unsorted, without `.` and `..`). */
  readonly readDirectory: (path: string) => Effect.Effect<ReadonlyArray<string>, FileError>
  /** Whether this process may read `path` (permissions), without opening it. */
  readonly readable: (path: string) => Effect.Effect<boolean>
  /**
   * Opens `path` for reading, lets `check` refuse what was really opened (its `fstat`), then reads at most
   * `limit + 1` bytes: `None` when the file is larger than `limit`. The file is closed on every path.
   */
  readonly read: (
    path: string,
    limit: number,
    check: (info: FileInfo) => LspError.LspLocalError | undefined
  ) => Effect.Effect<Option.Option<Uint8Array>, FileError | LspError.LspLocalError>
}

/** The file access of the current query. */
export class Files extends Context.Tag("@lsp-seam/lsp-stdio/internal/Files")<Files, FileAccess>() {}

/**
 * The file services a query uses, passed by value on the query path: providing them as a context costs
 * more Effect operations per query than the query's own file work.
 */
export interface FileServices {
  readonly files: FileAccess
  readonly path: Path.Path
}

/** The file services of the context. */
export const fileServices: Effect.Effect<FileServices, never, Files | Path.Path> = Effect.zipWith(
  Files,
  Path.Path,
  (files, path) => ({ files, path })
)

const CHUNK_BYTES = 64 * 1024

export const isFileError = (u: unknown): u is FileError =>
  typeof u === "object" && u !== null && "_tag" in u && u._tag === "FileError"

// --- through the platform FileSystem -------------------------------------------------------------------

/** The errno code behind a platform error, when the platform kept it. */
const errnoOf = (error: PlatformError.PlatformError): string | undefined => {
  if (error._tag !== "SystemError") return undefined
  const cause: unknown = error.cause
  if (typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string") {
    return cause.code
  }
  return error.reason === "NotFound" ? "ENOENT" : undefined
}

const fromPlatform = (error: PlatformError.PlatformError): FileError => ({
  _tag: "FileError",
  code: errnoOf(error),
  message: error.message
})

const platformInfo = (info: FileSystem.File.Info): FileInfo => ({
  type: info.type,
  size: Number(info.size),
  mtimeMs: Option.getOrElse(Option.map(info.mtime, (date) => date.getTime()), () => 0),
  ctimeMs: 0,
  ino: Option.getOrElse(info.ino, () => 0)
})

/**
 * Reads `file` from its current position to the end, in chunks, and stops as soon as more than `limit`
 * bytes have been read: `None` then means "over the limit", and at most `limit + 1` bytes were read.
 * Given the size `fstat` reported, the first read asks for one byte more than that, and a read that
 * brings the total to exactly that size and no further ends the file, so a file that has not changed
 * takes one read, not two.
 */
export const readBounded = (
  file: FileSystem.File,
  limit: number,
  expectedBytes?: number
): Effect.Effect<Option.Option<Uint8Array>, PlatformError.PlatformError> =>
  Effect.gen(function*() {
    const chunks: Array<Uint8Array> = []
    let total = 0
    let request = Math.min(limit + 1, expectedBytes === undefined ? CHUNK_BYTES : expectedBytes + 1)
    while (true) {
      const chunk = yield* file.readAlloc(request)
      if (Option.isNone(chunk)) break
      chunks.push(chunk.value)
      total += chunk.value.length
      if (total > limit) return Option.none()
      if (total === expectedBytes && chunk.value.length < request) break
      request = Math.min(CHUNK_BYTES, limit + 1 - total)
    }
    return Option.some(concat(chunks, total))
  })

const concat = (chunks: ReadonlyArray<Uint8Array>, total: number): Uint8Array => {
  if (chunks.length === 1) return chunks[0]!
  const bytes = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.length
  }
  return bytes
}

/** Every call through `fs`: for servers (and so sources) that live wherever the platform says. */
export const platform = (fs: FileSystem.FileSystem): FileAccess => ({
  realPath: (path) => Effect.mapError(fs.realPath(path), fromPlatform),
  stat: (path) => fs.stat(path).pipe(Effect.map(platformInfo), Effect.mapError(fromPlatform)),
  readDirectory: (path) => Effect.mapError(fs.readDirectory(path), fromPlatform),
  readable: (path) => fs.access(path, { readable: true }).pipe(Effect.as(true), Effect.orElseSucceed(() => false)),
  read: (path, limit, check) =>
    Effect.scoped(Effect.gen(function*() {
      const file = yield* Effect.mapError(fs.open(path, { flag: "r" }), fromPlatform)
      const info = {
        ...platformInfo(yield* Effect.mapError(file.stat, fromPlatform)),
        openedPath: descriptorPath(file.fd)
      }
      const refused = check(info)
      if (refused !== undefined) return yield* refused
      return yield* Effect.mapError(readBounded(file, limit, info.size), fromPlatform)
    }))
})

/** `Files` through the platform `FileSystem` in context. */
export const layerPlatform: Layer.Layer<Files, never, FileSystem.FileSystem> = Layer.effect(
  Files,
  Effect.map(FileSystem.FileSystem, platform)
)

// --- synchronous, on this machine ----------------------------------------------------------------------

const fromNode = (error: unknown): FileError => ({
  _tag: "FileError",
  code: typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined,
  message: error instanceof Error ? error.message : String(error)
})

const typeOf = (stats: NodeFs.Stats): FileSystem.File.Type =>
  stats.isFile()
    ? "File"
    : stats.isDirectory()
    ? "Directory"
    : stats.isSymbolicLink()
    ? "SymbolicLink"
    : stats.isFIFO()
    ? "FIFO"
    : stats.isCharacterDevice()
    ? "CharacterDevice"
    : stats.isBlockDevice()
    ? "BlockDevice"
    : stats.isSocket()
    ? "Socket"
    : "Unknown"

const nodeInfo = (stats: NodeFs.Stats): FileInfo => ({
  type: typeOf(stats),
  size: stats.size,
  mtimeMs: stats.mtimeMs,
  ctimeMs: stats.ctimeMs,
  ino: stats.ino
})

const attempt = <A>(call: () => A): Effect.Effect<A, FileError> => Effect.try({ try: call, catch: fromNode })

// Non-blocking, so that opening a FIFO with no writer returns at once (and fstat then refuses it).
const READ_FLAGS = NodeFs.constants.O_RDONLY | NodeFs.constants.O_NONBLOCK | NodeFs.constants.O_NOCTTY

/** The real path of open descriptor `fd` (Linux), or undefined. */
const descriptorPath = (fd: number): string | undefined => {
  try {
    return NodeFs.readlinkSync(`/proc/self/fd/${fd}`)
  } catch {
    return undefined
  }
}

const readOpen = (
  fd: number,
  limit: number,
  check: (info: FileInfo) => LspError.LspLocalError | undefined
): Effect.Effect<Option.Option<Uint8Array>, LspError.LspLocalError> => {
  const info = { ...nodeInfo(NodeFs.fstatSync(fd)), openedPath: descriptorPath(fd) }
  const refused = check(info)
  if (refused !== undefined) return Effect.fail(refused)
  const chunks: Array<Uint8Array> = []
  let total = 0
  let request = Math.min(limit + 1, info.size + 1)
  while (true) {
    const buffer = Buffer.allocUnsafe(request)
    const read = NodeFs.readSync(fd, buffer, 0, request, null)
    if (read === 0) break
    chunks.push(buffer.subarray(0, read))
    total += read
    if (total > limit) return Effect.succeedNone
    if (total === info.size && read < request) break
    request = Math.min(CHUNK_BYTES, limit + 1 - total)
  }
  return Effect.succeedSome(concat(chunks, total))
}

/** Synchronous calls on this machine's file system. */
export const local: FileAccess = {
  // The C library's realpath: ~8 µs against ~18 µs for Node's JavaScript walk (an lstat per component).
  realPath: (path) => attempt(() => NodeFs.realpathSync.native(path)),
  stat: (path) => attempt(() => nodeInfo(NodeFs.statSync(path))),
  readDirectory: (path) => attempt(() => NodeFs.readdirSync(path)),
  readable: (path) =>
    Effect.sync(() => {
      try {
        NodeFs.accessSync(path, NodeFs.constants.R_OK)
        return true
      } catch {
        return false
      }
    }),
  // Open, read and close in one synchronous step: no interruption can fall between them and leak the file.
  read: (path, limit, check) =>
    Effect.suspend((): Effect.Effect<Option.Option<Uint8Array>, FileError | LspError.LspLocalError> => {
      let fd: number
      try {
        fd = NodeFs.openSync(path, READ_FLAGS)
      } catch (error) {
        return Effect.fail(fromNode(error))
      }
      try {
        return readOpen(fd, limit, check)
      } catch (error) {
        return Effect.fail(fromNode(error))
      } finally {
        NodeFs.closeSync(fd)
      }
    })
}

/** `Files` as synchronous calls on this machine. */
export const layerLocal: Layer.Layer<Files> = Layer.succeed(Files, local)

/** A failure as `LspError`: `LspError`s pass, file errors become `onFileError`'s. */
export const orLspError =
  (onFileError: (error: FileError) => LspError.LspLocalError) =>
  (error: FileError | LspError.LspLocalError): LspError.LspLocalError =>
    LspError.isLspLocalError(error) ? error : onFileError(error)
