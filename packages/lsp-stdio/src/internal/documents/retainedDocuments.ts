/**
 * The warm path: documents stay open in the server between queries, and before every query each of them
 * is made disk-true again, so answers reflect the bytes on disk exactly as with transient open, without a
 * re-parse per query. The set is per server instance (a restarted server starts empty: nothing stale is
 * replayed) and bounded: the least recently queried document is closed when it overflows.
 */
import type { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as NodeCrypto from "node:crypto"
import type * as JsonRpc from "../../JsonRpc.js"
import type { FileServices } from "../files/fileAccess.js"
import type { Workspace } from "../files/workspace.js"
import { acceptsChanges } from "../wire/capabilities.js"
import {
  linesOf,
  locateSourceWith,
  readLocatedWith,
  readSourceWith,
  type Source,
  type SourceLocation
} from "./source.js"

/** What the disk looked like: size, modification and status change times, inode (0 when unknown). */
interface DiskState {
  readonly size: number
  readonly mtimeMs: number
  readonly ctimeMs: number
  readonly ino: number
}

/** What the server holds of one document, and what the disk looked like when its text was read. */
export interface RetainedDocument extends DiskState {
  readonly path: string
  readonly uri: string
  readonly languageId: string
  readonly version: number
  readonly hash: string
  /** When the text was read (the Effect Clock): how far after its last modification. */
  readonly readAt: number
  /**
   * The text's lines, as the server holds them: a query on a held file checks its position and resolves
   * its symbol against them without reading the file.
   */
  readonly lines: ReadonlyArray<string>
  /**
   * Opened to give a server without a project model the workspace's files (`pin`), not because it was
   * queried: kept open whatever the least-recently-used bound, still brought up to date before every query.
   */
  readonly pinned?: true
}

/** Documents an instance holds open, least recently queried first. */
export type RetainedSet = Ref.Ref<ReadonlyMap<string, RetainedDocument>>

export const makeSet: Effect.Effect<RetainedSet> = Ref.make<ReadonlyMap<string, RetainedDocument>>(new Map())

/**
 * A file system records times in ticks (a second on some). A text read within the same tick as a write can
 * be followed by a same-size rewrite in that tick that leaves every time as it was, so a text is trusted by
 * its stat only if it was read this long after the file's last change.
 */
const RACY_MS = 2_000

/**
 * Whether the disk still holds the text recorded in `document`: same size, times and inode, and the text
 * was read well after the file's last change (see `RACY_MS`). Otherwise only the bytes can tell. A file
 * system that reports no mtime is never trusted; a ctime or inode it does not report (0) is not compared.
 * Assumes the file system stamps times with the host's clock (to within a second), as on a local disk.
 */
const unchangedOnDisk = (document: RetainedDocument, disk: DiskState) =>
  document.mtimeMs > 0 && disk.size === document.size && disk.mtimeMs === document.mtimeMs &&
  disk.ctimeMs === document.ctimeMs && disk.ino === document.ino &&
  document.readAt - Math.max(document.mtimeMs, document.ctimeMs) >= RACY_MS

/**
 * What the disk looked like when `source` was read (its open file's own stat, never a later one), and the
 * lines of the text read.
 */
const readState = (source: Source) => ({
  size: source.bytes,
  mtimeMs: source.mtimeMs,
  ctimeMs: source.ctimeMs,
  ino: source.ino,
  readAt: source.readAt,
  lines: linesOf(source)
})

const hashOf = (text: string) => NodeCrypto.createHash("sha256").update(text).digest("base64")

const diskState = (services: FileServices, path: string) =>
  services.files.stat(path).pipe(
    Effect.map((info): Option.Option<DiskState> => info.type === "File" ? Option.some(info) : Option.none()),
    Effect.orElseSucceed(() => Option.none<DiskState>())
  )

const close = (connection: JsonRpc.Connection, document: RetainedDocument) =>
  connection.post("textDocument/didClose", { textDocument: { uri: document.uri } })

/**
 * Sends the whole new text. A server that takes no didChange at all (sync kind None) gets the document
 * closed and opened again instead.
 */
const change = (connection: JsonRpc.Connection, document: RetainedDocument, text: string, canChange: boolean) =>
  canChange
    ? connection.post("textDocument/didChange", {
      textDocument: { uri: document.uri, version: document.version },
      contentChanges: [{ text }]
    })
    : Effect.zipRight(
      close(connection, document),
      connection.post("textDocument/didOpen", {
        textDocument: { uri: document.uri, languageId: document.languageId, version: document.version, text }
      })
    )

/**
 * Brings every retained document other than `except` up to date with the disk: unchanged by `stat` (see
 * `unchangedOnDisk`) means unchanged; otherwise the file is read again and, when
 * its bytes differ, sent whole with the next version. A file that is gone, or no longer acceptable as a
 * source, is closed and forgotten.
 */
const refreshOthers = (
  services: FileServices,
  set: RetainedSet,
  connection: JsonRpc.Connection,
  workspace: Workspace,
  maxDocumentBytes: number,
  except: string,
  canChange: boolean,
  onSent: (uri: string) => void
): Effect.Effect<void, LspError.LspLocalError> =>
  Effect.gen(function*() {
    for (const document of (yield* Ref.get(set)).values()) {
      if (document.uri === except) continue
      const disk = yield* diskState(services, document.path)
      if (Option.isSome(disk) && unchangedOnDisk(document, disk.value)) continue
      const source = Option.isSome(disk)
        ? yield* Effect.option(readSourceWith(services, workspace, document.path, maxDocumentBytes))
        : Option.none<Source>()
      if (Option.isNone(source) || Option.isNone(disk)) {
        yield* sendAndRecord(close(connection, document), Ref.update(set, (map) => without(map, document.uri)))
        continue
      }
      const hash = hashOf(source.value.text)
      const updated = hash === document.hash
        ? { ...document, ...readState(source.value) }
        : { ...document, ...readState(source.value), hash, version: document.version + 1 }
      const changed = updated.version !== document.version
      yield* sendAndRecord(
        changed ? change(connection, updated, source.value.text, canChange) : Effect.void,
        Effect.zipRight(
          Ref.update(set, (map) => new Map(map).set(document.uri, updated)),
          Effect.sync(() => changed && onSent(document.uri))
        )
      )
    }
  })

/**
 * Queues what the server must be told and records what it then holds, with no interruption in between:
 * otherwise the set and the server could disagree (a second didOpen, a version sent twice). Queuing does
 * not wait for the server, so this cannot block.
 */
const sendAndRecord = (
  send: Effect.Effect<void, LspError.LspLocalError>,
  record: Effect.Effect<void>
): Effect.Effect<void, LspError.LspLocalError> => Effect.uninterruptible(Effect.zipRight(send, record))

const without = (map: ReadonlyMap<string, RetainedDocument>, uri: string) => {
  const next = new Map(map)
  next.delete(uri)
  return next
}

/**
 * Whether the set holds the located file as the disk has it now, by `stat` (see `unchangedOnDisk`): then
 * a query on it needs no read at all.
 */
export const holdsUnchanged = (set: RetainedSet, location: SourceLocation): Effect.Effect<boolean> =>
  Effect.map(heldLines(set, location), (lines) => lines !== undefined)

/** The lines of the located file when the set holds it as the disk has it now (see `holdsUnchanged`). */
export const heldLines = (
  set: RetainedSet,
  location: SourceLocation
): Effect.Effect<ReadonlyArray<string> | undefined> =>
  Effect.map(Ref.get(set), (documents) => {
    const held = documents.get(location.uri)
    return held !== undefined && unchangedOnDisk(held, location) ? held.lines : undefined
  })

/**
 * Makes the server's view disk-true for a query on the located file: refreshes the other retained
 * documents, then opens the file or sends its new text, marks it most recently used, and closes the least
 * recently used documents beyond `maxDocuments`. The file's text is needed only when the set does not
 * hold it unchanged: `source` when the caller has read it already, otherwise `read` reads it.
 */
export const prepare = (
  services: FileServices,
  set: RetainedSet,
  connection: JsonRpc.Connection,
  options: {
    readonly workspace: Workspace
    readonly location: SourceLocation
    readonly source: Source | undefined
    readonly read: Effect.Effect<Source, LspError.LspLocalError>
    readonly languageId: string
    readonly maxDocumentBytes: number
    readonly maxDocuments: number
    /** The server's textDocumentSync capability. */
    readonly sync: unknown
    /** Told the URI of every document whose text this call sends (opened or changed), as it is queued. */
    readonly onSent?: (uri: string) => void
  }
): Effect.Effect<void, LspError.LspLocalError> =>
  Effect.gen(function*() {
    const { location } = options
    const canChange = acceptsChanges(options.sync)
    const onSent = options.onSent ?? (() => {})
    yield* refreshOthers(
      services,
      set,
      connection,
      options.workspace,
      options.maxDocumentBytes,
      location.uri,
      canChange,
      onSent
    )
    const held = (yield* Ref.get(set)).get(location.uri)
    let current: RetainedDocument
    let send: Effect.Effect<void, LspError.LspLocalError> = Effect.void
    let sent = false
    // A text the caller has read is never ignored: it may be newer than what its stat shows.
    if (options.source === undefined && held !== undefined && unchangedOnDisk(held, location)) {
      current = held
    } else {
      const source = options.source ?? (yield* options.read)
      const disk = readState(source)
      const hash = hashOf(source.text)
      if (held === undefined) {
        current = { path: source.path, uri: source.uri, languageId: options.languageId, version: 1, hash, ...disk }
        send = connection.post("textDocument/didOpen", {
          textDocument: { uri: source.uri, languageId: options.languageId, version: 1, text: source.text }
        })
        sent = true
      } else if (held.hash !== hash) {
        current = { ...held, ...disk, hash, version: held.version + 1 }
        send = change(connection, current, source.text, canChange)
        sent = true
      } else {
        current = { ...held, ...disk }
      }
    }
    // Re-inserting moves the document to the most recently used end.
    const ordered = new Map(without(yield* Ref.get(set), location.uri)).set(location.uri, current)
    // Only documents kept because they were queried count against the bound; pinned ones stay.
    const queried = [...ordered.values()].filter((document) => document.pinned !== true)
    const overflow = queried.slice(0, Math.max(0, queried.length - options.maxDocuments))
    for (const document of overflow) ordered.delete(document.uri)
    yield* sendAndRecord(
      Effect.zipRight(send, Effect.forEach(overflow, (document) => close(connection, document), { discard: true })),
      Effect.zipRight(Ref.set(set, ordered), Effect.sync(() => sent && onSent(location.uri)))
    )
  })

/**
 * Opens every file of `paths` (absolute) the set does not hold yet, and marks it pinned: kept open for the
 * server's life and brought up to date before every query like the others (a file gone or no longer readable
 * as a source is closed then). Files that are not acceptable sources (binary, too large, …) are passed over.
 */
export const pin = (
  services: FileServices,
  set: RetainedSet,
  connection: JsonRpc.Connection,
  options: {
    readonly workspace: Workspace
    readonly paths: ReadonlyArray<string>
    readonly languageOf: (path: string) => string
    readonly maxDocumentBytes: number
    readonly onSent?: (uri: string) => void
  }
): Effect.Effect<void, LspError.LspLocalError> =>
  Effect.gen(function*() {
    const onSent = options.onSent ?? (() => {})
    for (const path of options.paths) {
      const location = yield* Effect.option(
        locateSourceWith(services, options.workspace, path, options.maxDocumentBytes)
      )
      if (Option.isNone(location) || (yield* Ref.get(set)).has(location.value.uri)) continue
      const source = yield* Effect.option(readLocatedWith(services, location.value, options.maxDocumentBytes))
      if (Option.isNone(source)) continue
      const { uri } = source.value
      const languageId = options.languageOf(path)
      const document: RetainedDocument = {
        path: source.value.path,
        uri,
        languageId,
        version: 1,
        hash: hashOf(source.value.text),
        ...readState(source.value),
        pinned: true
      }
      yield* sendAndRecord(
        connection.post("textDocument/didOpen", {
          textDocument: { uri, languageId, version: 1, text: source.value.text }
        }),
        Effect.zipRight(Ref.update(set, (map) => new Map(map).set(uri, document)), Effect.sync(() => onSent(uri)))
      )
    }
  })
