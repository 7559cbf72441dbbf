/**
 * Reading the source file a query is about. Every check happens before a byte is sent to a server, and a
 * hostile path (a FIFO, a device, a huge file, a symlink out of the workspace) can neither block the host
 * nor make it read more than the configured limit.
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import { LspError, LspIdentifiers } from "@lsp-seam/lsp"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type FileInfo, type Files, type FileServices, fileServices, orLspError } from "../files/fileAccess.js"
import { fileUriWith } from "../files/fileUri.js"
import { describeRealPathFailure, isInside, isInsideUri, type Workspace } from "../files/workspace.js"

/** A source file that passed every check, with its text as sent in `didOpen`. */
export interface Source {
  /** The canonical absolute path. */
  readonly path: string
  /** The `file:` URI of `path`. */
  readonly uri: string
  /** The decoded text, without a leading UTF-8 byte order mark. */
  readonly text: string
  /** The size of the file in bytes, as read (a byte order mark included). */
  readonly bytes: number
  /** The modification time of the file as opened (its `fstat`), in epoch milliseconds; 0 when unknown. */
  readonly mtimeMs: number
  /** The status change time and inode of the file as opened (its `fstat`); 0 when unknown. */
  readonly ctimeMs: number
  readonly ino: number
  /** The Effect Clock's time just before the file was opened. */
  readonly readAt: number
}

const linesMemo = new WeakMap<Source, ReadonlyArray<string>>()

/**
 * The source's lines (LSP line terminators), split once per source however many steps of a query ask: the
 * position checks, symbol resolution and retained documents all need them.
 */
export const linesOf = (source: Source): ReadonlyArray<string> => {
  let lines = linesMemo.get(source)
  if (lines === undefined) {
    lines = LspIdentifiers.splitLines(source.text)
    linesMemo.set(source, lines)
  }
  return lines
}

/** Only this much of a file is searched for NUL bytes when deciding whether it is binary. */
export const BINARY_PROBE_BYTES = 8 * 1024

const kindOf = (type: FileSystem.File.Type): string => {
  switch (type) {
    case "Directory":
      return "a directory"
    case "FIFO":
      return "a FIFO (named pipe)"
    case "CharacterDevice":
      return "a character device"
    case "BlockDevice":
      return "a block device"
    case "Socket":
      return "a socket"
    case "SymbolicLink":
      return "a symbolic link"
    default:
      return "not a regular file"
  }
}

/**
 * Reads and checks the source `filePath` of a query in `workspace` (which must come from
 * `resolveWorkspace`). In order:
 *
 * 1. an empty path or a NUL character is `LSP_INVALID_ARGUMENTS`;
 * 2. a relative path is resolved against the canonical workspace, an absolute one is taken as is, then
 *    `realpath`'d: missing (or a dangling link, or a loop of links) is `LSP_SOURCE_NOT_FOUND`;
 * 3. the real path must lie inside the workspace (whole path segments), else `LSP_SOURCE_OUTSIDE_WORKSPACE`;
 * 4. it must be a regular file, checked with `stat` *before* opening so a FIFO or device never blocks,
 *    and again on the open handle, else `LSP_SOURCE_NOT_A_FILE` (also when it cannot be read);
 * 5. more than `maxDocumentBytes` bytes is `LSP_SOURCE_TOO_LARGE`; reading stops one byte past the limit;
 * 6. a NUL byte in the first 8 KiB is `LSP_SOURCE_BINARY`;
 * 7. anything but strict UTF-8 is `LSP_SOURCE_INVALID_UTF8` (a literal U+FFFD is fine). A leading byte
 *    order mark is removed from the text, as editors and servers reading from disk do, so positions
 *    match theirs.
 *
 * The file is closed on success, failure and interruption.
 */
export const readSource = (
  workspace: Workspace,
  filePath: string,
  maxDocumentBytes: number
): Effect.Effect<Source, LspError.LspLocalError, Files | Path.Path> =>
  Effect.flatMap(fileServices, (services) => readSourceWith(services, workspace, filePath, maxDocumentBytes))

/** `readSource` with the file services given. */
export const readSourceWith = (
  services: FileServices,
  workspace: Workspace,
  filePath: string,
  maxDocumentBytes: number
): Effect.Effect<Source, LspError.LspLocalError> =>
  Effect.flatMap(
    locateSourceWith(services, workspace, filePath, maxDocumentBytes),
    (location) => readLocatedWith(services, location, maxDocumentBytes)
  )

/**
 * A source path that passed the checks made without reading it (steps 1–4 and the size bound of 5 by
 * `stat`): enough to tell whether a copy already held is still what the disk holds.
 */
export interface SourceLocation {
  /** The canonical absolute path. */
  readonly path: string
  /** The `file:` URI of `path`. */
  readonly uri: string
  /** Size, modification time, status change time and inode by `stat` of the path (not of an open file). */
  readonly size: number
  readonly mtimeMs: number
  readonly ctimeMs: number
  readonly ino: number
  /** The path as the query gave it, and the workspace, for messages. */
  readonly filePath: string
  readonly workspacePath: string
}

const describe = (location: Pick<SourceLocation, "filePath" | "workspacePath">) => ({
  shown: JSON.stringify(location.filePath),
  detail: { filePath: location.filePath, workspace: location.workspacePath }
})

const notAFileError = (location: SourceLocation, what: string) => {
  const { detail, shown } = describe(location)
  return LspError.sourceNotAFile(
    `The source path ${shown} (${location.path}) is ${what}. Give the path of a regular text file.`,
    { ...detail, realPath: location.path }
  )
}

const tooLargeError = (location: SourceLocation, size: string, maxDocumentBytes: number) => {
  const { detail, shown } = describe(location)
  return LspError.sourceTooLarge(
    `The source file ${shown} is ${size}, over the limit of ${maxDocumentBytes} bytes (maxDocumentBytes).`,
    { ...detail, realPath: location.path, maxDocumentBytes }
  )
}

/**
 * An opened file that is not the checked one: its path was swapped (a directory replaced by a link, say)
 * between the check and the open. Decided on the descriptor, so there is no window left.
 */
const swapped = (location: SourceLocation, openedPath: string) =>
  openedPath === location.path ? undefined : LspError.sourceOutsideWorkspace(
    `The source file ${JSON.stringify(location.filePath)} changed while it was being opened: the file opened is ` +
      `${openedPath}, not the checked ${location.path}. Nothing was read; ask again if the change was expected.`,
    { filePath: location.filePath, workspaceRoot: location.workspacePath, realPath: location.path, openedPath }
  )

const refusal = (location: SourceLocation, info: FileInfo, maxDocumentBytes: number) =>
  (info.openedPath === undefined ? undefined : swapped(location, info.openedPath)) ??
    (info.type !== "File" ?
      notAFileError(location, kindOf(info.type)) :
      info.size > maxDocumentBytes ?
      tooLargeError(location, `${info.size} bytes`, maxDocumentBytes) :
      undefined)

/** The checks of `readSource` that need no read: steps 1 to 4, and the size by `stat`. */
export const locateSourceWith = (
  { files: fs, path }: FileServices,
  workspace: Workspace,
  filePath: string,
  maxDocumentBytes: number
): Effect.Effect<SourceLocation, LspError.LspLocalError> =>
  Effect.gen(function*() {
    const { detail, shown } = describe({ filePath, workspacePath: workspace.path })
    if (filePath.length === 0) {
      return yield* LspError.invalidArguments(
        "The file path is empty. Give a path relative to the workspace or absolute."
      )
    }
    if (filePath.includes("\0")) {
      return yield* LspError.invalidArguments(`The file path ${shown} contains a NUL character.`)
    }
    const requested = path.resolve(workspace.path, filePath)
    const real = yield* fs.realPath(requested).pipe(
      Effect.mapError((error) => {
        const { reason } = describeRealPathFailure(error)
        return LspError.sourceNotFound(
          `The source file ${shown} ${reason} (resolved to ${requested}; relative paths are taken from the ` +
            `workspace ${workspace.path}). Check the path.`,
          detail
        )
      })
    )
    if (!isInside(path, workspace.path, real)) {
      return yield* LspError.sourceOutsideWorkspace(
        `The source file ${shown} resolves to ${real}, outside the workspace ${workspace.path}. ` +
          "Only files inside the workspace can be queried.",
        { ...detail, realPath: real }
      )
    }
    const unstatted = {
      path: real,
      uri: "",
      size: 0,
      mtimeMs: 0,
      ctimeMs: 0,
      ino: 0,
      filePath,
      workspacePath: workspace.path
    }
    // Inspect the path before opening it: opening a FIFO without a writer would block.
    const info = yield* fs.stat(real).pipe(
      Effect.mapError((error) =>
        describeRealPathFailure(error).missing ?
          LspError.sourceNotFound(`The source file ${shown} (${real}) disappeared while it was being read.`, detail) :
          notAFileError(unstatted, `not readable (${error.message})`)
      )
    )
    const refused = refusal(unstatted, info, maxDocumentBytes)
    if (refused !== undefined) return yield* refused
    const uri = yield* fileUriWith(path, real)
    return { ...unstatted, uri, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, ino: info.ino }
  })

/** The rest of `readSource` for a located path: open, check again, read (steps 4 to 7). */
export const readLocatedWith = (
  { files: fs }: FileServices,
  location: SourceLocation,
  maxDocumentBytes: number
): Effect.Effect<Source, LspError.LspLocalError> =>
  Effect.gen(function*() {
    const { detail, shown } = describe(location)
    // The path may have been replaced between stat and open; the open file's own stat is checked again,
    // and its modification time is the one the text goes with.
    let opened: FileInfo | undefined
    const checkOpened = (info: FileInfo) => {
      opened = info
      return refusal(location, info, maxDocumentBytes)
    }
    const readAt = yield* Clock.currentTimeMillis
    const content = yield* fs.read(location.path, maxDocumentBytes, checkOpened).pipe(
      Effect.mapError(orLspError((error) => notAFileError(location, `not readable (${error.message})`)))
    )
    if (Option.isNone(content)) {
      return yield* tooLargeError(location, `larger than ${maxDocumentBytes} bytes`, maxDocumentBytes)
    }
    const bytes = content.value
    if (bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) {
      return yield* LspError.sourceBinary(
        `The source file ${shown} looks binary (it has a NUL byte in its first ${BINARY_PROBE_BYTES} bytes). ` +
          "Only text files can be queried.",
        { ...detail, realPath: location.path }
      )
    }
    const text = yield* Effect.try({
      try: () => new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes),
      catch: () =>
        LspError.sourceInvalidUtf8(
          `The source file ${shown} is not valid UTF-8. Language servers need UTF-8 text.`,
          { ...detail, realPath: location.path }
        )
    })
    return {
      path: location.path,
      uri: location.uri,
      text,
      bytes: bytes.length,
      mtimeMs: opened?.mtimeMs ?? 0,
      ctimeMs: opened?.ctimeMs ?? 0,
      ino: opened?.ino ?? 0,
      readAt
    }
  })

/**
 * The workspace file at `uri` (a file an answer points into), read with every check of `readSource`; undefined
 * when it cannot be: not a `file:` URI inside the workspace, gone, not a text file, or too large.
 */
export const readUriWith = (
  services: FileServices,
  workspace: Workspace,
  uri: string,
  maxDocumentBytes: number
): Effect.Effect<Source | undefined> =>
  Effect.gen(function*() {
    if (!isInsideUri(services.path, workspace, uri)) return undefined
    const path = yield* Effect.option(services.path.fromFileUrl(new URL(uri)))
    if (Option.isNone(path)) return undefined
    return yield* readSourceWith(services, workspace, path.value, maxDocumentBytes).pipe(
      Effect.orElseSucceed(() => undefined)
    )
  })
