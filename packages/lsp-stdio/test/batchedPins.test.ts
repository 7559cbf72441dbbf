/**
 * Project files pinned a batch at a time (`documents/batchedPins`): against a connection that records what is
 * sent and answers a request only when the test says so, at most one batch is opened ahead of the server's
 * answer to it, the latest question's files go first, and one background loader runs per server at a time.
 */
import { NodePath as PlatformPath } from "@effect/platform-node"
import * as Path from "@effect/platform/Path"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Option, Queue, Schema } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as BatchedPins from "../src/internal/documents/batchedPins.js"
import * as RetainedDocuments from "../src/internal/documents/retainedDocuments.js"
import * as FileAccess from "../src/internal/files/fileAccess.js"
import { resolveWorkspaceWith } from "../src/internal/files/workspace.js"
import type * as JsonRpc from "../src/JsonRpc.js"

const DocumentParams = Schema.decodeUnknownSync(Schema.Struct({ textDocument: Schema.Struct({ uri: Schema.String }) }))

/** A request the fake server was sent, answered when the test completes `answer`. */
interface Request {
  readonly method: string
  readonly name: string
  readonly answer: Deferred.Deferred<void>
}

/** What the fake server was sent: the files opened (by name), and the requests, as they come. */
interface Wire {
  readonly opened: Array<string>
  readonly requests: Queue.Queue<Request>
}

const nameOf = (uri: string) => NodePath.basename(new URL(uri).pathname)

const fakeConnection = (wire: Wire): JsonRpc.Connection => {
  const unused = Effect.dieMessage("not used by batched pins")
  return {
    post: (method, params) =>
      Effect.sync(() => {
        if (method === "textDocument/didOpen") wire.opened.push(nameOf(DocumentParams(params).textDocument.uri))
      }),
    request: (method, params) =>
      Effect.gen(function*() {
        const answer = yield* Deferred.make<void>()
        yield* Queue.offer(wire.requests, { method, name: nameOf(DocumentParams(params).textDocument.uri), answer })
        yield* Deferred.await(answer)
        return Option.some(null)
      }),
    notify: () => unused,
    closeOutput: Effect.void,
    awaitCancelled: Effect.succeed(true),
    fail: () => Effect.void,
    failure: Effect.never,
    isOpen: Effect.succeed(true)
  }
}

const setup = (count: number) =>
  Effect.gen(function*() {
    const root = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "lsp-seam-batches-")))
    yield* Effect.addFinalizer(() => Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true })))
    const names = Array.from({ length: count }, (_, i) => `f${i}.ts`)
    for (const name of names) NodeFs.writeFileSync(NodePath.join(root, name), `export const v${name.length} = 1\n`)
    const services = { files: FileAccess.local, path: yield* Path.Path }
    const workspace = yield* resolveWorkspaceWith(services, root)
    const set = yield* RetainedDocuments.makeSet
    const wire: Wire = { opened: [], requests: yield* Queue.unbounded<Request>() }
    const pinning: BatchedPins.Pinning = {
      services,
      set,
      connection: fakeConnection(wire),
      workspace,
      languageOf: () => "typescript",
      maxDocumentBytes: 1_000,
      onSent: () => {},
      batchSize: 3,
      fork: (effect) => Effect.asVoid(Effect.forkDaemon(effect))
    }
    const entries = (...picked: ReadonlyArray<string>) =>
      picked.map((name) => ({ label: name, path: NodePath.join(root, name) }))
    const unloaded = () => [...BatchedPins.unloaded(set)].map((path) => NodePath.basename(path)).sort()
    return { names, set, wire, pinning, entries, unloaded }
  })

describe("batched pins", () => {
  it.scoped("opens one batch at a time, the next only once the server has answered a request sent after it", () =>
    Effect.gen(function*() {
      const { entries, names, pinning, set, unloaded, wire } = yield* setup(7)
      yield* BatchedPins.enqueue(set, entries(...names))
      assert.deepStrictEqual(unloaded(), [...names].sort())

      const first = yield* BatchedPins.next(pinning)
      assert.deepStrictEqual(wire.opened, ["f0.ts", "f1.ts", "f2.ts"])
      const confirming = yield* Queue.take(wire.requests)
      assert.strictEqual(confirming.method, "textDocument/documentSymbol")
      assert.include(["f0.ts", "f1.ts", "f2.ts"], confirming.name)
      // Asked again before the answer: the same batch, nothing more sent, still counted as loading.
      assert.strictEqual(yield* BatchedPins.next(pinning), first)
      assert.strictEqual(wire.opened.length, 3)
      assert.deepStrictEqual(unloaded(), [...names].sort())
      assert.strictEqual(yield* Queue.size(wire.requests), 0)

      yield* Deferred.succeed(confirming.answer, undefined)
      yield* Deferred.await(first!.done)
      assert.deepStrictEqual(unloaded(), ["f3.ts", "f4.ts", "f5.ts", "f6.ts"])
      const second = yield* BatchedPins.next(pinning)
      assert.notStrictEqual(second, first)
      assert.deepStrictEqual(wire.opened.slice(3), ["f3.ts", "f4.ts", "f5.ts"])
      yield* Deferred.succeed((yield* Queue.take(wire.requests)).answer, undefined)
      yield* Deferred.await(second!.done)
      const last = yield* BatchedPins.next(pinning)
      assert.deepStrictEqual(wire.opened.slice(6), ["f6.ts"])
      yield* Deferred.succeed((yield* Queue.take(wire.requests)).answer, undefined)
      yield* Deferred.await(last!.done)
      assert.isUndefined(yield* BatchedPins.next(pinning))
      assert.deepStrictEqual(unloaded(), [])
      assert.isFalse(BatchedPins.isBusy(set))
    }).pipe(Effect.provide(PlatformPath.layer)))

  it.scoped("the latest question's files go first; a batch in flight stays where it is", () =>
    Effect.gen(function*() {
      const { entries, pinning, set, wire } = yield* setup(7)
      yield* BatchedPins.enqueue(set, entries("f0.ts", "f1.ts", "f2.ts", "f3.ts", "f4.ts"))
      const first = yield* BatchedPins.next(pinning)
      yield* BatchedPins.enqueue(set, entries("f6.ts", "f1.ts", "f4.ts"))
      yield* Deferred.succeed((yield* Queue.take(wire.requests)).answer, undefined)
      yield* Deferred.await(first!.done)
      yield* BatchedPins.next(pinning)
      assert.deepStrictEqual(wire.opened, ["f0.ts", "f1.ts", "f2.ts", "f6.ts", "f4.ts", "f3.ts"])
    }).pipe(Effect.provide(PlatformPath.layer)))

  it.scoped("one background loader at a time, and none when nothing is left", () =>
    Effect.gen(function*() {
      const { entries, set } = yield* setup(2)
      assert.isUndefined(yield* BatchedPins.claimBackground(set))
      yield* BatchedPins.enqueue(set, entries("f0.ts", "f1.ts"))
      const claim = yield* BatchedPins.claimBackground(set)
      assert.isDefined(claim)
      assert.isUndefined(yield* BatchedPins.claimBackground(set))
      // A claim given back twice (an ended loader's) does not free the place another has taken since.
      yield* BatchedPins.releaseBackground(set, claim!)
      const next = yield* BatchedPins.claimBackground(set)
      assert.isDefined(next)
      yield* BatchedPins.releaseBackground(set, claim!)
      assert.isUndefined(yield* BatchedPins.claimBackground(set))
    }).pipe(Effect.provide(PlatformPath.layer)))
})
