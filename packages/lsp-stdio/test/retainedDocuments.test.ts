import { NodePath as PlatformPath } from "@effect/platform-node"
import * as Path from "@effect/platform/Path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Ref, Schema, TestClock } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as RetainedDocuments from "../src/internal/documents/retainedDocuments.js"
import { locateSourceWith, readLocatedWith, type Source } from "../src/internal/documents/source.js"
import * as FileAccess from "../src/internal/files/fileAccess.js"
import { resolveWorkspaceWith } from "../src/internal/files/workspace.js"
import type * as JsonRpc from "../src/JsonRpc.js"
import { interruptAtOp } from "./support/interruptAtOp.js"

/** What a server holds after the notifications it was sent: version by URI. */
const replay = (start: ReadonlyMap<string, number>, sent: ReadonlyArray<readonly [string, string, number]>) => {
  const open = new Map(start)
  for (const [method, uri, version] of sent) {
    if (method === "didOpen") {
      assert.isFalse(open.has(uri), `didOpen of ${uri}, which the server already holds`)
      open.set(uri, version)
    } else if (method === "didChange") {
      assert.isTrue((open.get(uri) ?? Infinity) < version, `didChange of ${uri} without a newer version`)
      open.set(uri, version)
    } else {
      assert.isTrue(open.delete(uri), `didClose of ${uri}, which the server does not hold`)
    }
  }
  return open
}

const DocumentParams = Schema.decodeUnknownSync(
  Schema.Struct({ textDocument: Schema.Struct({ uri: Schema.String, version: Schema.optional(Schema.Number) }) })
)

/** A connection that only records the document notifications queued on it. */
const recordingConnection = (sent: Array<readonly [string, string, number]>): JsonRpc.Connection => {
  const unused = Effect.dieMessage("not used by retained documents")
  return {
    post: (method, params) =>
      Effect.sync(() => {
        const document = DocumentParams(params).textDocument
        sent.push([method.slice("textDocument/".length), document.uri, document.version ?? 0])
      }),
    request: () => unused,
    notify: () => unused,
    closeOutput: Effect.void,
    awaitCancelled: Effect.succeed(true),
    fail: () => Effect.void,
    failure: Effect.never,
    isOpen: Effect.succeed(true)
  }
}

/**
 * The local file access, with the `stat` and `fstat` of some paths showing other times and inodes, counting
 * the reads of each path.
 */
const withTimes = (
  overrides: Map<string, Partial<FileAccess.FileInfo>>,
  reads: Map<string, number>
): FileAccess.FileAccess => ({
  ...FileAccess.local,
  stat: (path) => Effect.map(FileAccess.local.stat(path), (info) => ({ ...info, ...overrides.get(path) })),
  read: (path, limit, check) =>
    Effect.suspend(() => {
      reads.set(path, (reads.get(path) ?? 0) + 1)
      return FileAccess.local.read(path, limit, (info) => check({ ...info, ...overrides.get(path) }))
    })
})

/**
 * A temporary workspace with these files, and `prepare` against a recording connection. `times` sets what
 * `stat` says of a file (by name) instead of the disk.
 */
const setup = (files: Record<string, string>, times: Map<string, Partial<FileAccess.FileInfo>> = new Map()) =>
  Effect.gen(function*() {
    const root = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "lsp-seam-retained-")))
    yield* Effect.addFinalizer(() => Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true })))
    for (const [name, text] of Object.entries(files)) NodeFs.writeFileSync(NodePath.join(root, name), text)
    const overrides = new Map([...times].map(([name, info]) => [NodePath.join(root, name), info]))
    const reads = new Map<string, number>()
    const services = { files: withTimes(overrides, reads), path: yield* Path.Path }
    const workspace = yield* resolveWorkspaceWith(services, root)
    const locate = (name: string) => locateSourceWith(services, workspace, name, 1_000)
    const set = yield* RetainedDocuments.makeSet
    const sent: Array<readonly [string, string, number]> = []
    const connection = recordingConnection(sent)
    /** Prepares a query on `name`; `source` as if the caller had read the file already. */
    const prepare = (name: string, source?: Source) =>
      Effect.flatMap(locate(name), (location) =>
        RetainedDocuments.prepare(services, set, connection, {
          workspace,
          location,
          source,
          read: readLocatedWith(services, location, 1_000),
          languageId: "fake",
          maxDocumentBytes: 1_000,
          maxDocuments: 2,
          sync: 1
        }))
    /** Changes what `stat` says of a file from now on. */
    const setTimes = (name: string, info: Partial<FileAccess.FileInfo>) =>
      overrides.set(NodePath.join(root, name), { ...overrides.get(NodePath.join(root, name)), ...info })
    const readsOf = (name: string) => reads.get(NodePath.join(root, name)) ?? 0
    return { root, services, workspace, locate, set, sent, prepare, setTimes, readsOf }
  })

const versions = (map: ReadonlyMap<string, RetainedDocuments.RetainedDocument>) =>
  new Map([...map.values()].map((document) => [document.uri, document.version]))

describe("RetainedDocuments.prepare", () => {
  it.scoped("interrupted at any operation, the set still says exactly what the server was sent", () =>
    Effect.gen(function*() {
      // Read well after the files' last change, so that a held and unchanged document is trusted by its stat.
      yield* TestClock.setTime(Date.now() + 60_000)
      let k = 1
      for (;; k++) {
        // c and b are held at version 1 with text that is no longer on disk: querying a sends both their new
        // text, opens a and, with room for two documents, closes c (the least recently queried). Then a query
        // on b takes the path of a document held unchanged.
        const { locate, prepare, readsOf, sent, set } = yield* setup({
          "a.fake": "a\n",
          "b.fake": "b, edited\n",
          "c.fake": "c\n"
        })
        const held = new Map<string, number>()
        for (const name of ["c.fake", "b.fake"]) {
          const location = yield* locate(name)
          yield* Ref.update(set, (map) =>
            new Map(map).set(location.uri, {
              path: location.path,
              uri: location.uri,
              languageId: "fake",
              version: 1,
              size: 2,
              mtimeMs: 0,
              ctimeMs: 0,
              ino: 0,
              readAt: 0,
              hash: "stale",
              lines: ["stale"]
            }))
          held.set(location.uri, 1)
        }
        const probe = interruptAtOp(k)
        const fiber = yield* Effect.fork(
          Effect.zipRight(prepare("a.fake"), prepare("b.fake")).pipe(Effect.withScheduler(probe.scheduler))
        )
        yield* probe.target(fiber)
        yield* Fiber.await(fiber)
        assert.deepStrictEqual(
          versions(yield* Ref.get(set)),
          replay(held, sent),
          `interrupted at operation ${k}, the set and the server disagree`
        )
        // The next query on the same set goes on from whatever was recorded, without a protocol error.
        yield* prepare("b.fake")
        assert.deepStrictEqual(versions(yield* Ref.get(set)), replay(held, sent))
        if (!probe.fired()) {
          // Uninterrupted, b was read once, by the query on a; the queries on b found it held unchanged.
          assert.strictEqual(readsOf("b.fake"), 1)
          break
        }
      }
      // Every operation of both queries was a point of interruption.
      assert.isAbove(k, 100)
    }).pipe(Effect.provide(PlatformPath.layer)))

  it.scoped("a same-size rewrite with its mtime put back is found by its status change time", () =>
    Effect.gen(function*() {
      const { prepare, root, sent } = yield* setup({ "a.fake": "aaaa\n" })
      const file = NodePath.join(root, "a.fake")
      // An mtime in whole seconds, which utimes can put back exactly.
      const mtime = new Date(Math.floor(Date.now() / 1_000) * 1_000 - 60_000)
      NodeFs.utimesSync(file, mtime, mtime)
      // Long after the last change (the clock is the Effect Clock): only size and times can tell.
      yield* TestClock.setTime(Date.now() + 60_000)
      yield* prepare("a.fake")
      yield* prepare("a.fake")
      NodeFs.writeFileSync(file, "bbbb\n")
      NodeFs.utimesSync(file, mtime, mtime)
      assert.strictEqual(NodeFs.statSync(file).mtimeMs, mtime.getTime())
      yield* prepare("a.fake")
      assert.deepStrictEqual(sent.map(([method, , version]) => [method, version]), [["didOpen", 1], ["didChange", 2]])
    }).pipe(Effect.provide(PlatformPath.layer)))

  it.scoped("a text the caller has read is compared, even when the held copy looks unchanged by its stat", () =>
    Effect.gen(function*() {
      const { locate, prepare, sent, services } = yield* setup({ "a.fake": "aaaa\n" })
      yield* TestClock.setTime(Date.now() + 60_000)
      yield* prepare("a.fake")
      // The caller read newer bytes than the disk's stat shows (a rewrite it saw, the stat not yet).
      const read = yield* readLocatedWith(services, yield* locate("a.fake"), 1_000)
      yield* prepare("a.fake", { ...read, text: "bbbb\n" })
      assert.deepStrictEqual(sent.map(([method, , version]) => [method, version]), [["didOpen", 1], ["didChange", 2]])
    }).pipe(Effect.provide(PlatformPath.layer)))

  // Times a file system reports that the disk here cannot be made to show: coarse ticks, missing fields.
  const T = 1_800_000_000_000
  const timed = (name: string, info: Partial<FileAccess.FileInfo>) => new Map([[name, info]])
  const sentOf = (sent: ReadonlyArray<readonly [string, string, number]>) =>
    sent.map(([method, , version]) => [method, version])

  it.scoped("a text read soon after the file's last status change is compared again, even with no time changed", () =>
    Effect.gen(function*() {
      const { prepare, root, sent } = yield* setup(
        { "a.fake": "aaaa\n" },
        timed("a.fake", { mtimeMs: T - 60_000, ctimeMs: T, ino: 7 })
      )
      yield* TestClock.setTime(T + 500)
      yield* prepare("a.fake")
      // A same-size rewrite in the same tick of a coarse ctime: size, times and inode all stay the same.
      NodeFs.writeFileSync(NodePath.join(root, "a.fake"), "bbbb\n")
      yield* TestClock.setTime(T + 10_000)
      yield* prepare("a.fake")
      assert.deepStrictEqual(sentOf(sent), [["didOpen", 1], ["didChange", 2]])
    }).pipe(Effect.provide(PlatformPath.layer)))

  it.scoped("a file replaced by one of the same size and times is found by its inode", () =>
    Effect.gen(function*() {
      const { prepare, root, sent, setTimes } = yield* setup(
        { "a.fake": "aaaa\n" },
        timed("a.fake", { mtimeMs: T - 60_000, ctimeMs: T - 60_000, ino: 1 })
      )
      yield* TestClock.setTime(T)
      yield* prepare("a.fake")
      yield* prepare("a.fake")
      NodeFs.writeFileSync(NodePath.join(root, "a.fake"), "bbbb\n")
      setTimes("a.fake", { ino: 2 })
      yield* prepare("a.fake")
      assert.deepStrictEqual(sentOf(sent), [["didOpen", 1], ["didChange", 2]])
    }).pipe(Effect.provide(PlatformPath.layer)))

  it.scoped("a file system that reports no times is never trusted by its stat", () =>
    Effect.gen(function*() {
      const { prepare, root, sent } = yield* setup(
        { "a.fake": "aaaa\n" },
        timed("a.fake", { mtimeMs: 0, ctimeMs: 0, ino: 0 })
      )
      yield* TestClock.setTime(T)
      yield* prepare("a.fake")
      NodeFs.writeFileSync(NodePath.join(root, "a.fake"), "bbbb\n")
      yield* prepare("a.fake")
      assert.deepStrictEqual(sentOf(sent), [["didOpen", 1], ["didChange", 2]])
    }).pipe(Effect.provide(PlatformPath.layer)))

  it.scoped("a held document unchanged on disk is not read when another file is queried", () =>
    Effect.gen(function*() {
      const old = { mtimeMs: T - 60_000, ctimeMs: T - 60_000 }
      const { prepare, readsOf, sent } = yield* setup(
        { "a.fake": "a\n", "b.fake": "b\n" },
        new Map([["a.fake", old], ["b.fake", old]])
      )
      yield* TestClock.setTime(T)
      yield* prepare("a.fake")
      yield* prepare("b.fake")
      yield* prepare("b.fake")
      assert.strictEqual(readsOf("a.fake"), 1)
      assert.deepStrictEqual(sentOf(sent), [["didOpen", 1], ["didOpen", 1]])
    }).pipe(Effect.provide(PlatformPath.layer)))
})
