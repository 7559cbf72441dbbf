import { NodePath as PlatformPath } from "@effect/platform-node"
import * as Path from "@effect/platform/Path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Ref, Schema } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as FileAccess from "../src/internal/fileAccess.js"
import * as RetainedDocuments from "../src/internal/retainedDocuments.js"
import { locateSourceWith, readLocatedWith } from "../src/internal/source.js"
import { resolveWorkspaceWith } from "../src/internal/workspace.js"
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

describe("RetainedDocuments.prepare", () => {
  it.live("interrupted at any operation, the set still says exactly what the server was sent", () =>
    Effect.gen(function*() {
      const root = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "lsp-seam-retained-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true })))
      const services = { files: FileAccess.local, path: yield* Path.Path }
      let fired = 0
      for (let k = 1; k <= 80; k++) {
        // c and b are held at version 1 with text that is no longer on disk: querying a sends both their new
        // text, opens a and, with room for two documents, closes c (the least recently queried).
        NodeFs.writeFileSync(NodePath.join(root, "a.fake"), "a\n")
        NodeFs.writeFileSync(NodePath.join(root, "b.fake"), "b, edited\n")
        NodeFs.writeFileSync(NodePath.join(root, "c.fake"), "c\n")
        const workspace = yield* resolveWorkspaceWith(services, root)
        const locate = (name: string) => locateSourceWith(services, workspace, name, 1_000)
        const set = yield* RetainedDocuments.makeSet
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
              hash: "stale"
            }))
          held.set(location.uri, 1)
        }
        const sent: Array<readonly [string, string, number]> = []
        const connection = recordingConnection(sent)
        const prepare = (name: string) =>
          Effect.flatMap(locate(name), (location) =>
            RetainedDocuments.prepare(services, set, connection, {
              workspace,
              location,
              source: undefined,
              read: readLocatedWith(services, location, 1_000),
              languageId: "fake",
              maxDocumentBytes: 1_000,
              maxDocuments: 2,
              sync: 1
            }))
        const probe = interruptAtOp(k)
        const fiber = yield* Effect.fork(prepare("a.fake").pipe(Effect.withScheduler(probe.scheduler)))
        yield* probe.target(fiber)
        yield* Fiber.await(fiber)
        if (probe.fired()) fired += 1
        const versions = (map: ReadonlyMap<string, RetainedDocuments.RetainedDocument>) =>
          new Map([...map.values()].map((document) => [document.uri, document.version]))
        assert.deepStrictEqual(
          versions(yield* Ref.get(set)),
          replay(held, sent),
          `interrupted at operation ${k}, the set and the server disagree`
        )
        // The next query on the same set goes on from whatever was recorded, without a protocol error.
        yield* prepare("b.fake")
        assert.deepStrictEqual(versions(yield* Ref.get(set)), replay(held, sent))
      }
      assert.isAbove(fired, 10)
    }).pipe(Effect.scoped, Effect.provide(PlatformPath.layer)))
})
