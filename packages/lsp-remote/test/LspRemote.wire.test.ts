import { assert, describe, it } from "@effect/vitest"
import { LspDeadline, LspError, LspQuery, LspResult, LspService } from "@lsp-seam/lsp"
import { LspRemoteClient, LspRemoteServer, LspRpc } from "@lsp-seam/lsp-remote"
import { Arbitrary, Context, Deferred, Effect, FastCheck, Fiber, Layer, Ref } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { tempDir } from "./support.js"

type Answer = Effect.Effect<LspResult.LspQueryResult, LspError.LspError>

/** Any LspService can be served: here a bare stub that records requests and answers as told. */
const makeStub = Effect.gen(function*() {
  const received = yield* Ref.make<ReadonlyArray<LspQuery.LspQueryRequest>>([])
  const answer = yield* Ref.make<Answer>(Effect.succeed(LspResult.hover(null)))
  const service: LspService.LspServiceShape = {
    registerProvider: () => LspError.invalidProvider("stub"),
    query: (request) =>
      Ref.update(received, (all) => [...all, request]).pipe(
        Effect.zipRight(Ref.get(answer)),
        Effect.flatten
      )
  }
  return { service, received, answer }
})

/** The stub served on a Unix socket in a fresh directory, and a client of it; all within the test's scope. */
const served = Effect.gen(function*() {
  const dir = yield* tempDir
  const path = Path.join(dir, "s", "wire.sock")
  const stub = yield* makeStub
  yield* Layer.build(LspRemoteServer.layerSocket({ path })).pipe(
    Effect.provide(Context.make(LspService.LspService, stub.service))
  )
  const client = yield* LspRemoteClient.make({ transport: LspRemoteClient.socket(path) })
  return { client, stub }
})

/** A query at the start of `a.ts` in `/ws`. */
const queryAt = <O extends "findReferences" | "hover">(operation: O) => ({
  operation,
  filePath: "a.ts",
  position: { line: 0, character: 0 },
  workspaceRoot: "/ws"
})

const requests = Arbitrary.make(LspQuery.LspQueryRequest)
const results = Arbitrary.make(LspResult.LspQueryResult)
// Error details are JSON on the wire: draw them from JSON values.
const errors = FastCheck.record({
  code: FastCheck.constantFrom(...LspError.LspErrorCode.literals),
  message: FastCheck.string(),
  detail: FastCheck.option(
    FastCheck.dictionary(FastCheck.stringMatching(/^[a-z]{1,8}$/), FastCheck.jsonValue({ maxDepth: 2 })),
    { nil: undefined }
  )
}).map(({ code, detail, message }) => LspError.make(code, message, detail))

// Optional fields drawn as explicitly `undefined` are absent on the wire, as in JSON: compare as JSON.
const asJson = (u: unknown): unknown => JSON.parse(JSON.stringify(u))

describe("LspRpc wire contract", () => {
  it.scopedLive("every request, result and coded error the seam's Schemas allow crosses unchanged", () =>
    Effect.gen(function*() {
      const { client, stub } = yield* served
      // Every operation, then a random mix.
      const sampled = [
        ...LspQuery.LspOperation.literals.flatMap((operation) =>
          FastCheck.sample(requests.filter((r) => r.operation === operation), 5)
        ),
        ...FastCheck.sample(requests, 50)
      ]
      const answers = FastCheck.sample(results, sampled.length)
      for (const [i, request] of sampled.entries()) {
        yield* Ref.set(stub.answer, Effect.succeed(answers[i]!))
        const result = yield* client.query(request)
        assert.deepStrictEqual(result, asJson(answers[i]))
      }
      assert.deepStrictEqual(yield* Ref.get(stub.received), asJson(sampled))
      assert.sameMembers([...new Set(sampled.map((r) => r.operation))], [...LspQuery.LspOperation.literals])
      for (const error of FastCheck.sample(errors, 60)) {
        yield* Ref.set(stub.answer, Effect.fail(error))
        const remote = yield* Effect.flip(client.query(sampled[0]!))
        assert.isTrue(LspError.isLspError(remote))
        assert.deepStrictEqual(asJson({ ...remote }), asJson({ ...error }))
        assert.strictEqual(remote.message, error.message)
      }
    }))

  it.scopedLive("a long list of locations crosses unchanged; an answer the schema refuses fails that query only", () =>
    Effect.gen(function*() {
      const { client, stub } = yield* served
      const query = queryAt("findReferences")
      const many = LspResult.locations(
        Array.from({ length: 500 }, (_, i) => ({
          uri: `file:///ws/src/f${i % 7}.ts`,
          range: { start: { line: i, character: 2 }, end: { line: i, character: 9 } }
        })),
        "file:///ws"
      )
      yield* Ref.set(stub.answer, Effect.succeed(many))
      assert.deepStrictEqual(yield* client.query(query), many)
      // Not an LspQueryResult (a provider that bypassed the seam): the host cannot send it.
      const malformed = { kind: "locations", locations: [{ uri: 1 }], resolvedWorkspaceUri: "" }
      yield* Ref.set(stub.answer, Effect.succeed(malformed as unknown as LspResult.LspQueryResult))
      const refused = yield* Effect.flip(client.query(query))
      assert.isTrue(LspError.isLspError(refused))
      assert.strictEqual(refused.code, "LSP_PROTOCOL_ERROR")
      yield* Ref.set(stub.answer, Effect.succeed(many))
      assert.deepStrictEqual(yield* client.query(query), many)
    }))

  it.scopedLive("the caller's deadline travels with the query; without one none is set", () =>
    Effect.gen(function*() {
      const { client, stub } = yield* served
      yield* Ref.set(
        stub.answer,
        Effect.map(LspDeadline.remaining, (remaining) => LspResult.hover({ contents: JSON.stringify(remaining) }))
      )
      const query = queryAt("hover")
      const seen = (result: LspResult.LspQueryResult) =>
        result.kind === "hover" && result.hover !== null ? JSON.parse(result.hover.contents) : undefined
      const withBudget = seen(yield* LspDeadline.within(5_000)(client.query(query)))
      assert.strictEqual(withBudget._tag, "Some")
      assert.isAtMost(withBudget.value, 5_000)
      assert.isAbove(withBudget.value, 4_000)
      assert.deepStrictEqual(seen(yield* client.query(query)), { _id: "Option", _tag: "None" })
    }))

  it.scopedLive("a defect in one query fails that query only (LSP_PROTOCOL_ERROR), not the others in flight", () =>
    Effect.gen(function*() {
      const { client, stub } = yield* served
      const query = queryAt("hover")
      const entered = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      yield* Ref.set(
        stub.answer,
        Deferred.succeed(entered, undefined).pipe(
          Effect.zipRight(Deferred.await(gate)),
          Effect.as(LspResult.hover(null))
        )
      )
      const first = yield* Effect.fork(client.query(query))
      yield* Deferred.await(entered)
      yield* Ref.set(stub.answer, Effect.die(new Error("boom")))
      const failed = yield* Effect.flip(client.query(query))
      assert.strictEqual(failed.code, "LSP_PROTOCOL_ERROR")
      assert.include(failed.message, "boom")
      yield* Deferred.succeed(gate, undefined)
      assert.deepStrictEqual(yield* Fiber.join(first), LspResult.hover(null))
    }))

  // Read the stdio host's interfaces as text (this package must not depend on it) and compare field names.
  const stdioFields = (name: string) => {
    const src = Path.join(import.meta.dirname, "..", "..", "lsp-stdio", "src")
    const bodies = Fs.readdirSync(src).filter((f) => f.endsWith(".ts")).flatMap((f) => {
      const match = new RegExp(`export interface ${name} \\{([\\s\\S]*?)\\n\\}`).exec(
        Fs.readFileSync(Path.join(src, f), "utf8")
      )
      return match === null ? [] : [match[1]!]
    })
    assert.lengthOf(bodies, 1, name)
    const fields = [...bodies[0]!.matchAll(/readonly (\w+):/g)].map((m) => m[1])
    assert.isAbove(fields.length, 0, name)
    return fields
  }

  it("ServerStatus mirrors the stdio host's status view field by field", () => {
    assert.sameMembers(stdioFields("ServerStatus"), Object.keys(LspRpc.ServerStatus.fields))
  })

  it("MemoryStatus and MemoryEviction mirror the stdio host's memory view field by field", () => {
    assert.sameMembers(stdioFields("MemoryStatus"), Object.keys(LspRpc.MemoryStatus.fields))
    assert.sameMembers(stdioFields("MemoryEviction"), Object.keys(LspRpc.MemoryEviction.fields))
  })

  it("the version constant is the package's", () => {
    const pkg: unknown = JSON.parse(Fs.readFileSync(Path.join(import.meta.dirname, "..", "package.json"), "utf8"))
    assert.deepInclude(pkg, { version: LspRpc.version })
  })
})
