import { assert, describe, it } from "@effect/vitest"
import { LspError } from "@lsp-seam/lsp"
import { Deferred, Effect, Exit, Fiber, Option, Ref, Scope, TestClock } from "effect"
import * as Framing from "../src/Framing.js"
import * as JsonRpc from "../src/JsonRpc.js"
import * as Testing from "../src/testing.js"

type Overrides = { -readonly [K in keyof JsonRpc.ConnectionOptions]?: JsonRpc.ConnectionOptions[K] }

/** A connection over a memory transport, living in the test's scope. */
const connect = (overrides: Overrides = {}) =>
  Effect.gen(function*() {
    const { server, transport } = yield* Testing.makeMemoryTransport
    const connection = yield* JsonRpc.make(transport, {
      maxMessageBytes: 1_000_000,
      cancelGrace: "2 seconds",
      ...overrides
    })
    return { server, connection }
  })

const errorOf = <A>(effect: Effect.Effect<A, LspError.LspError>) => Effect.flip(effect)

/**
 * Effect may wrap a failure to carry its span, so the "same reason" is compared by value, not identity.
 */
const assertSameError = (actual: LspError.LspError, expected: LspError.LspError) =>
  assert.deepStrictEqual(
    { code: actual.code, message: actual.message, detail: actual.detail },
    { code: expected.code, message: expected.message, detail: expected.detail }
  )

/**
 * What a fiber has returned so far, without waiting: `TestClock.adjust` lets every fiber settle first, so
 * a timing bug shows up as a wrong value instead of a hang.
 */
const outcome = <A, E>(fiber: Fiber.Fiber<A, E>) =>
  Effect.map(
    Fiber.poll(fiber),
    Option.flatMap((exit) => Exit.isSuccess(exit) ? Option.some(exit.value) : Option.none())
  )

/** Collects calls of a hook so a test can assert on them. */
const recorder = <A>() =>
  Effect.map(Ref.make<ReadonlyArray<A>>([]), (ref) => ({
    record: (value: A) => Ref.update(ref, (all) => [...all, value]),
    get: Ref.get(ref)
  }))

const request = (id: number | string, method: string, params?: unknown) =>
  params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params }

describe("JsonRpc requests and notifications", () => {
  it.scoped("numbers requests from 1 and always sends jsonrpc 2.0", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      const first = yield* Effect.fork(connection.request("a/first", { x: 1 }))
      assert.deepStrictEqual(yield* server.take, { jsonrpc: "2.0", id: 1, method: "a/first", params: { x: 1 } })
      yield* connection.notify("a/note", { y: "é" })
      assert.deepStrictEqual(yield* server.take, { jsonrpc: "2.0", method: "a/note", params: { y: "é" } })
      yield* connection.notify("exit")
      assert.deepStrictEqual(yield* server.take, { jsonrpc: "2.0", method: "exit" })
      const second = yield* Effect.fork(connection.request("a/second", null))
      assert.deepStrictEqual(yield* server.take, { jsonrpc: "2.0", id: 2, method: "a/second", params: null })
      yield* server.send({ jsonrpc: "2.0", id: 2, result: "two" })
      yield* server.send({ jsonrpc: "2.0", id: 1, result: "one" })
      assert.deepStrictEqual(yield* Fiber.join(second), Option.some("two"))
      assert.deepStrictEqual(yield* Fiber.join(first), Option.some("one"))
    }))

  it.scoped("tells a missing result (None) from result: null (Some(null))", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      const fibers = yield* Effect.forEach([1, 2, 3], () => Effect.fork(connection.request("m", {})))
      yield* server.send({ jsonrpc: "2.0", id: 1 })
      yield* server.send({ jsonrpc: "2.0", id: 2, result: null })
      yield* server.send({ jsonrpc: "2.0", id: 3, result: [{ uri: "file:///a" }] })
      const results = yield* Effect.forEach(fibers, Fiber.join)
      assert.deepStrictEqual(results, [Option.none(), Option.some(null), Option.some([{ uri: "file:///a" }])])
    }))

  it.scoped("turns an error response into LSP_SERVER_ERROR and stays usable", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      const failing = yield* Effect.fork(errorOf(connection.request("textDocument/hover", {})))
      yield* server.send({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "bad position", data: { at: 3 } } })
      const error = yield* Fiber.join(failing)
      assert.strictEqual(error.code, "LSP_SERVER_ERROR")
      assert.include(error.message, "bad position")
      assert.include(error.message, "-32602")
      assert.deepStrictEqual(error.detail, {
        method: "textDocument/hover",
        code: -32602,
        message: "bad position",
        data: { at: 3 }
      })

      const withoutData = yield* Effect.fork(errorOf(connection.request("other", {})))
      yield* server.send({ jsonrpc: "2.0", id: 2, error: { code: 1, message: "no" } })
      assert.deepStrictEqual((yield* Fiber.join(withoutData)).detail, { method: "other", code: 1, message: "no" })

      // A response carrying both members is an error: an error is never silently dropped.
      const both = yield* Effect.fork(errorOf(connection.request("both", {})))
      yield* server.send({ jsonrpc: "2.0", id: 3, result: 1, error: { code: 2, message: "both" } })
      assert.strictEqual((yield* Fiber.join(both)).code, "LSP_SERVER_ERROR")

      const next = yield* Effect.fork(connection.request("again", {}))
      yield* server.send({ jsonrpc: "2.0", id: 4, result: "fine" })
      assert.deepStrictEqual(yield* Fiber.join(next), Option.some("fine"))
      assert.isTrue(yield* connection.isOpen)
    }))

  it.scoped("drops responses to unknown ids", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      const fiber = yield* Effect.fork(connection.request("m", {}))
      yield* server.send({ jsonrpc: "2.0", id: 99, result: "stray" })
      yield* server.send({ jsonrpc: "2.0", id: "1", result: "string id" })
      yield* server.send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } })
      yield* server.send({ jsonrpc: "2.0", id: 1, result: "mine" })
      yield* server.send({ jsonrpc: "2.0", id: 1, result: "duplicate" })
      assert.deepStrictEqual(yield* Fiber.join(fiber), Option.some("mine"))
      const next = yield* Effect.fork(connection.request("m", {}))
      yield* server.send({ jsonrpc: "2.0", id: 2, result: "next" })
      assert.deepStrictEqual(yield* Fiber.join(next), Option.some("next"))
      assert.isTrue(yield* connection.isOpen)
    }))

  it.scoped("writes frames in call order and resolves notify only once its frame is written", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      yield* server.holdWrites
      const notified = yield* Effect.fork(connection.notify("first"))
      const requested = yield* Effect.fork(connection.request("second", {}))
      const last = yield* Effect.fork(connection.notify("third"))
      yield* Effect.yieldNow()
      assert.isTrue(Option.isNone(yield* Fiber.poll(notified)))
      yield* server.releaseWrites
      yield* Fiber.join(notified)
      yield* Fiber.join(last)
      const written = yield* Effect.forEach([1, 2, 3], () => server.take)
      assert.deepStrictEqual(written, [
        { jsonrpc: "2.0", method: "first" },
        { jsonrpc: "2.0", id: 1, method: "second", params: {} },
        { jsonrpc: "2.0", method: "third" }
      ])
      yield* Fiber.interrupt(requested)
    }))

  it.scoped("post returns without waiting for the write, and its frame keeps its place among the others", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      yield* server.holdWrites
      // Returns while every write is held: nothing waits on a server that does not read.
      yield* connection.post("first", { n: 1 })
      const requested = yield* Effect.fork(connection.request("second", {}))
      yield* Effect.yieldNow()
      yield* connection.post("third")
      yield* server.releaseWrites
      const written = yield* Effect.forEach([1, 2, 3], () => server.take)
      assert.deepStrictEqual(written, [
        { jsonrpc: "2.0", method: "first", params: { n: 1 } },
        { jsonrpc: "2.0", id: 1, method: "second", params: {} },
        { jsonrpc: "2.0", method: "third" }
      ])
      yield* Fiber.interrupt(requested)
    }))

  it.scoped("post fails with the connection's reason once it has failed, and with LSP_DISPOSED once closed", () =>
    Effect.gen(function*() {
      const closing = yield* connect()
      yield* closing.connection.closeOutput
      assert.strictEqual((yield* errorOf(closing.connection.post("late"))).code, "LSP_DISPOSED")
      const { connection } = yield* connect()
      const reason = LspError.serverExited("The server exited.")
      yield* connection.fail(reason)
      assertSameError(yield* errorOf(connection.post("later")), reason)
    }))

  it.scoped("closeOutput writes what is queued first, then ends the output; later messages are refused", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      yield* server.holdWrites
      const exited = yield* Effect.fork(connection.notify("exit"))
      const closing = yield* Effect.fork(connection.closeOutput)
      yield* Effect.yieldNow()
      assert.isTrue(Option.isNone(yield* Fiber.poll(closing)), "waits for the queued frame to be written")
      yield* server.releaseWrites
      yield* Fiber.join(closing)
      yield* Fiber.join(exited)
      assert.deepStrictEqual(yield* server.take, { jsonrpc: "2.0", method: "exit" })
      assert.strictEqual((yield* errorOf(connection.notify("late"))).code, "LSP_DISPOSED")
      assert.strictEqual((yield* errorOf(connection.request("late", {}))).code, "LSP_DISPOSED")
      // Closing again returns at once.
      yield* connection.closeOutput
    }))

  it.live("closeOutput returns when the connection fails, even called from an uninterruptible region", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      yield* server.holdWrites
      yield* Effect.fork(connection.notify("stuck"))
      // Let the writer take the frame and block in the held write.
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow()
      const closing = yield* Effect.fork(Effect.uninterruptible(connection.closeOutput))
      yield* connection.fail(LspError.serverExited("The server exited."))
      const joined = yield* Fiber.join(closing).pipe(Effect.timeout("2 seconds"), Effect.option)
      assert.isTrue(Option.isSome(joined), "closeOutput hung")
    }).pipe(Effect.scoped))

  it.scoped("delivers notifications to the hook, in order, between responses", () =>
    Effect.gen(function*() {
      const seen = yield* recorder<[string, unknown]>()
      const { connection, server } = yield* connect({
        onNotification: (method, params) => seen.record([method, params])
      })
      const fiber = yield* Effect.fork(connection.request("m", {}))
      yield* server.send({ jsonrpc: "2.0", method: "window/logMessage", params: { type: 3, message: "hi" } })
      yield* server.send({ jsonrpc: "2.0", method: "$/progress", params: { token: 1, value: { kind: "begin" } } })
      yield* server.send({ jsonrpc: "2.0", method: "custom/noParams" })
      yield* server.send({ jsonrpc: "2.0", id: 1, result: null })
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(yield* seen.get, [
        ["window/logMessage", { type: 3, message: "hi" }],
        ["$/progress", { token: 1, value: { kind: "begin" } }],
        ["custom/noParams", undefined]
      ])
    }))

  it.scoped("ignores notifications by default", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      const fiber = yield* Effect.fork(connection.request("m", {}))
      yield* server.send({ jsonrpc: "2.0", method: "window/logMessage", params: { type: 3, message: "hi" } })
      yield* server.send({ jsonrpc: "2.0", id: 1, result: 1 })
      assert.deepStrictEqual(yield* Fiber.join(fiber), Option.some(1))
    }))
})

describe("JsonRpc server→client requests", () => {
  const answerTo = (message: unknown, overrides: Overrides = {}) =>
    Effect.gen(function*() {
      const { server } = yield* connect(overrides)
      yield* server.send(message)
      return yield* server.take
    })

  it.scoped("answers workspace/configuration with one copy of the configured value per item", () =>
    Effect.gen(function*() {
      const configuration = { python: { analysis: { typeCheckingMode: "strict" } } }
      const params = { items: [{ section: "python" }, { scopeUri: "file:///w" }, {}] }
      assert.deepStrictEqual(yield* answerTo(request(7, "workspace/configuration", params), { configuration }), {
        jsonrpc: "2.0",
        id: 7,
        result: [configuration, configuration, configuration]
      })
      assert.deepStrictEqual(yield* answerTo(request(8, "workspace/configuration", { items: [{}, {}] })), {
        jsonrpc: "2.0",
        id: 8,
        result: [null, null]
      })
      assert.deepStrictEqual(yield* answerTo(request(9, "workspace/configuration", { items: [] })), {
        jsonrpc: "2.0",
        id: 9,
        result: []
      })
    }))

  it.scoped("refuses a workspace/configuration request without items", () =>
    Effect.gen(function*() {
      const answer = yield* answerTo(request(1, "workspace/configuration", { section: "x" }))
      assert.deepStrictEqual(answer, {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32602, message: "workspace/configuration needs params.items to be an array." }
      })
    }))

  it.scoped("acknowledges progress creation, capability (un)registration and diagnostics refresh with null", () =>
    Effect.gen(function*() {
      for (
        const method of [
          "window/workDoneProgress/create",
          "client/registerCapability",
          "client/unregisterCapability",
          // pyright exits (code 1) when this is refused.
          "workspace/diagnostic/refresh"
        ]
      ) {
        assert.deepStrictEqual(yield* answerTo(request(3, method, {})), { jsonrpc: "2.0", id: 3, result: null })
      }
    }))

  it.scoped("refuses workspace/applyEdit with -32601: edits are never applied", () =>
    Effect.gen(function*() {
      const answer = yield* answerTo(request(4, "workspace/applyEdit", { edit: { changes: {} } }))
      assert.deepStrictEqual(answer, {
        jsonrpc: "2.0",
        id: 4,
        error: { code: -32601, message: "lsp-seam is read-only: it never applies workspace edits." }
      })
    }))

  it.scoped("refuses any other request with -32601 naming the method", () =>
    Effect.gen(function*() {
      const answer = yield* answerTo(request(5, "workspace/executeCommand"))
      assert.deepStrictEqual(answer, {
        jsonrpc: "2.0",
        id: 5,
        error: { code: -32601, message: "lsp-seam does not handle the \"workspace/executeCommand\" request." }
      })
    }))

  it.scoped("answers with the server's own id, string or number", () =>
    Effect.gen(function*() {
      const { server } = yield* connect()
      yield* server.send(request("req-α", "client/registerCapability", { registrations: [] }))
      yield* server.send(request(0, "window/workDoneProgress/create", { token: "t" }))
      assert.deepStrictEqual(yield* server.take, { jsonrpc: "2.0", id: "req-α", result: null })
      assert.deepStrictEqual(yield* server.take, { jsonrpc: "2.0", id: 0, result: null })
    }))

  it.scoped("keeps reading while an answer cannot be written yet", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      const fiber = yield* Effect.fork(connection.request("m", {}))
      yield* server.take
      yield* server.holdWrites
      yield* server.send(request(1, "window/workDoneProgress/create", { token: "t" }))
      yield* server.send({ jsonrpc: "2.0", id: 1, result: "done" })
      assert.deepStrictEqual(yield* Fiber.join(fiber), Option.some("done"))
      yield* server.releaseWrites
      assert.deepStrictEqual(yield* server.take, { jsonrpc: "2.0", id: 1, result: null })
    }))

  it.scoped("makes the connection fatal when an answer cannot be written", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      const pending = yield* Effect.fork(errorOf(connection.request("m", {})))
      yield* server.take
      const broken = LspError.transportFailed("write EPIPE")
      yield* server.failWrites(broken)
      yield* server.send(request(1, "workspace/configuration", { items: [{}] }))
      assertSameError(yield* connection.failure, broken)
      assertSameError(yield* Fiber.join(pending), broken)
      assert.isFalse(yield* connection.isOpen)
    }))
})

describe("JsonRpc fatal failures", () => {
  /** Starts a pending request, breaks the connection with `breakIt`, and returns what the request got. */
  const breakWhilePending = (
    breakIt: (server: Testing.MemoryServer, connection: JsonRpc.Connection) => Effect.Effect<void>,
    overrides: Overrides = {}
  ) =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect(overrides)
      const pending = yield* Effect.fork(errorOf(connection.request("m", {})))
      yield* server.take
      yield* breakIt(server, connection)
      const reason = yield* connection.failure
      assertSameError(yield* Fiber.join(pending), reason)
      // Every later call fails at once with the same reason, and nothing more is written.
      assertSameError(yield* errorOf(connection.request("later", {})), reason)
      assertSameError(yield* errorOf(connection.notify("later")), reason)
      assert.isFalse(yield* connection.isOpen)
      assert.isTrue(
        Option.isNone(yield* server.take.pipe(Effect.timeoutOption("1 second"), TestClock.adjustWith("1 second")))
      )
      return reason
    })

  it.scoped("fails pending and later calls when the server's output ends", () =>
    Effect.gen(function*() {
      const reason = yield* breakWhilePending((server) => server.end)
      assert.strictEqual(reason.code, "LSP_TRANSPORT_FAILED")
    }))

  it.scoped("describes the end with describeEnd when given", () =>
    Effect.gen(function*() {
      const exited = LspError.serverExited("The server exited with code 3: boom")
      const reason = yield* breakWhilePending((server) => server.end, { describeEnd: Effect.succeed(exited) })
      assertSameError(reason, exited)
    }))

  it.scoped("fails with the input's own error", () =>
    Effect.gen(function*() {
      const broken = LspError.transportFailed("read ECONNRESET")
      assertSameError(yield* breakWhilePending((server) => server.failInput(broken)), broken)
    }))

  it.scoped("fails on a framing error", () =>
    Effect.gen(function*() {
      const reason = yield* breakWhilePending((server) =>
        server.sendBytes(new TextEncoder().encode("Content-Length: nope\r\n\r\n"))
      )
      assert.strictEqual(reason.code, "LSP_PROTOCOL_ERROR")
      assert.strictEqual(reason.detail?.reason, "InvalidContentLength")
    }))

  it.scoped("fails on a message whose length is over 1 GiB, past anything it would wait for", () =>
    Effect.gen(function*() {
      const reason = yield* breakWhilePending(
        (server) => server.sendBytes(new TextEncoder().encode("Content-Length: 2000000000\r\n\r\n{")),
        { maxMessageBytes: 100 }
      )
      assert.strictEqual(reason.detail?.reason, "MessageTooLarge")
    }))

  it.scoped("an answer over maxMessageBytes fails its request alone; the connection reads on", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({ maxMessageBytes: 100 })
      const big = yield* Effect.fork(errorOf(connection.request("big", {})))
      const small = yield* Effect.fork(connection.request("small", {}))
      const [first, second] = [yield* server.take, yield* server.take] as Array<{ id: number }>
      // The id is read from the skipped body's start, or from its end when the server writes it last.
      yield* server.sendBytes(new TextEncoder().encode(
        `Content-Length: 219\r\n\r\n{"jsonrpc":"2.0","result":"${"x".repeat(180)}","id":${first!.id}}`.padEnd(242, " ")
      ))
      yield* server.send({ jsonrpc: "2.0", id: second!.id, result: "fine" })
      const error = yield* Fiber.join(big)
      assert.strictEqual(error.code, "LSP_RESPONSE_TOO_LARGE")
      assert.include(error.message, "over the limit of 100 bytes (maxMessageBytes)")
      assert.deepStrictEqual(error.detail, { method: "big", bytes: 219, limit: 100 })
      assert.deepStrictEqual(yield* Fiber.join(small), Option.some("fine"))
      assert.isTrue(yield* connection.isOpen)
    }))

  it.scoped("an oversized message whose id cannot be read fails every pending request; others are skipped", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({ maxMessageBytes: 50 })
      // A notification, and a late answer to an id nobody waits for, over the limit: logged and passed over.
      yield* server.send({ jsonrpc: "2.0", method: "window/logMessage", params: { message: "y".repeat(100) } })
      yield* server.send({ jsonrpc: "2.0", id: 999_999, result: "z".repeat(100) })
      const pending = yield* Effect.fork(errorOf(connection.request("m", {})))
      yield* server.take
      const still = yield* Effect.fork(connection.request("n", {}))
      const { id } = (yield* server.take) as { id: number }
      yield* server.send({ jsonrpc: "2.0", id, result: "answered" })
      assert.deepStrictEqual(yield* Fiber.join(still), Option.some("answered"), "not failed by the skipped ones")
      // Its id between two nested values, near neither end: any pending request may be the one it answers.
      yield* server.send({ jsonrpc: "2.0", result: [["z".repeat(100)]], id: 1, more: ["z".repeat(100)] })
      const error = yield* Fiber.join(pending)
      assert.strictEqual(error.code, "LSP_RESPONSE_TOO_LARGE")
      assert.isTrue(yield* connection.isOpen)
    }))

  it.scoped("fails when a request cannot be written", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      const broken = LspError.transportFailed("write EPIPE")
      yield* server.failWrites(broken)
      assertSameError(yield* errorOf(connection.request("m", {})), broken)
      assertSameError(yield* errorOf(connection.notify("n")), broken)
      assertSameError(yield* connection.failure, broken)
    }))

  it.scoped("fails when a notification cannot be written, and reports it to the notifier", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      const pending = yield* Effect.fork(errorOf(connection.request("m", {})))
      yield* server.take
      const broken = LspError.transportFailed("write EPIPE")
      yield* server.failWrites(broken)
      assertSameError(yield* errorOf(connection.notify("textDocument/didClose", {})), broken)
      assertSameError(yield* Fiber.join(pending), broken)
    }))

  // Valid JSON that is not a valid JSON-RPC message is not fatal: see jsonRpcMalformed.test.ts.
  it.scoped("fails on a frame whose body is not JSON", () =>
    Effect.gen(function*() {
      const reason = yield* breakWhilePending((server) =>
        server.sendBytes(new TextEncoder().encode("Content-Length: 5\r\n\r\n{oops"))
      )
      assert.strictEqual(reason.code, "LSP_PROTOCOL_ERROR")
      assert.strictEqual(reason.detail?.reason, "InvalidJson")
    }))

  it.scoped("fails when told to, and keeps the first reason", () =>
    Effect.gen(function*() {
      const exited = LspError.serverExited("The server exited with signal SIGKILL.")
      const reason = yield* breakWhilePending((_, connection) =>
        connection.fail(exited).pipe(Effect.zipRight(connection.fail(LspError.transportFailed("second"))))
      )
      assertSameError(reason, exited)
    }))
})

describe("JsonRpc scope", () => {
  it.effect("closing the scope fails pending requests and unwritten notifications with LSP_DISPOSED", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { connection, server } = yield* connect().pipe(Scope.extend(scope))
      yield* server.holdWrites
      const inFlight = yield* Effect.fork(errorOf(connection.notify("first")))
      yield* Effect.yieldNow()
      const queued = yield* Effect.fork(errorOf(connection.notify("second")))
      const pending = yield* Effect.fork(errorOf(connection.request("m", {})))
      yield* Effect.yieldNow()
      yield* Scope.close(scope, Exit.void)
      const errors = yield* Effect.all([Fiber.join(inFlight), Fiber.join(queued), Fiber.join(pending)])
      assert.deepStrictEqual(errors.map((error) => error.code), ["LSP_DISPOSED", "LSP_DISPOSED", "LSP_DISPOSED"])
      assert.strictEqual((yield* errorOf(connection.request("later", {}))).code, "LSP_DISPOSED")
      assert.strictEqual((yield* connection.failure).code, "LSP_DISPOSED")
      assert.isFalse(yield* connection.isOpen)
    }))
})

describe("JsonRpc cancellation", () => {
  /** A fake server whose "slow" handler signals when it starts and when it sees its cancellation. */
  const slowServer = (onCancelled: (request: Testing.FakeRequest) => Effect.Effect<Testing.FakeReply>) =>
    Effect.gen(function*() {
      const expired = yield* recorder<number>()
      const { connection, server } = yield* connect({ onCancelExpired: expired.record })
      const started = yield* Deferred.make<void>()
      const sawCancel = yield* Deferred.make<void>()
      const fake = yield* Testing.runFakeServer(server, {
        slow: (request) =>
          Deferred.succeed(started, void 0).pipe(
            Effect.zipRight(request.cancelled),
            Effect.zipRight(Deferred.succeed(sawCancel, void 0)),
            Effect.zipRight(onCancelled(request))
          ),
        fast: () => Effect.succeed(Testing.result("fast"))
      })
      const caller = yield* Effect.fork(connection.request("slow", {}))
      yield* Deferred.await(started)
      return { connection, fake, caller, sawCancel, expired: expired.get }
    })

  it.scoped("sends $/cancelRequest at once and releases the caller at once", () =>
    Effect.gen(function*() {
      const { caller, connection, fake, sawCancel } = yield* slowServer(() => Effect.never)
      // No clock time passes and the server never answers: the interruption alone releases the caller.
      const exit = yield* Fiber.interrupt(caller)
      assert.isTrue(Exit.isInterrupted(exit))
      yield* Deferred.await(sawCancel)
      assert.deepStrictEqual(yield* fake.notifications, [{ method: "$/cancelRequest", params: { id: 1 } }])
      assert.isTrue(yield* connection.isOpen)
    }))

  it.scoped("reports true when the server settles the cancelled request within the grace", () =>
    Effect.gen(function*() {
      const { caller, connection, expired, sawCancel } = yield* slowServer(() =>
        Effect.succeed(Testing.error(-32800, "Request cancelled")).pipe(Effect.delay("1999 millis"))
      )
      yield* Fiber.interrupt(caller)
      yield* Deferred.await(sawCancel)
      const verdict = yield* Effect.fork(connection.awaitCancelled)
      yield* TestClock.adjust("1999 millis")
      assert.deepStrictEqual(yield* outcome(verdict), Option.some(true))
      yield* TestClock.adjust("1 minute")
      assert.deepStrictEqual(yield* expired, [])
      assert.isTrue(yield* connection.awaitCancelled)
    }))

  it.scoped("counts a late success as settled too", () =>
    Effect.gen(function*() {
      const { caller, connection, sawCancel } = yield* slowServer(() =>
        Effect.succeed(Testing.result([])).pipe(Effect.delay("1 second"))
      )
      yield* Fiber.interrupt(caller)
      yield* Deferred.await(sawCancel)
      yield* TestClock.adjust("1 second")
      assert.isTrue(yield* connection.awaitCancelled)
    }))

  it.scoped("reports false and calls onCancelExpired when the grace passes first", () =>
    Effect.gen(function*() {
      const { caller, connection, expired, sawCancel } = yield* slowServer(() =>
        Effect.succeed(Testing.result("too late")).pipe(Effect.delay("3 seconds"))
      )
      yield* Fiber.interrupt(caller)
      yield* Deferred.await(sawCancel)
      const verdict = yield* Effect.fork(connection.awaitCancelled)
      yield* TestClock.adjust("1999 millis")
      assert.deepStrictEqual(yield* outcome(verdict), Option.none())
      assert.deepStrictEqual(yield* expired, [])
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(yield* outcome(verdict), Option.some(false))
      assert.deepStrictEqual(yield* expired, [1])
      // The late answer is dropped; the connection still works, and the verdict stays false.
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(yield* connection.request("fast", {}), Option.some("fast"))
      assert.isFalse(yield* connection.awaitCancelled)
    }))

  it.scoped("waits for every interrupted request", () =>
    Effect.gen(function*() {
      const expired = yield* recorder<number>()
      const { connection, server } = yield* connect({ onCancelExpired: expired.record })
      const first = yield* Effect.fork(connection.request("a", {}))
      const second = yield* Effect.fork(connection.request("b", {}))
      yield* server.take
      yield* server.take
      yield* Fiber.interrupt(first)
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(second)
      const cancels = [yield* server.take, yield* server.take]
      assert.deepStrictEqual(cancels, [
        { jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 1 } },
        { jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 2 } }
      ])
      const verdict = yield* Effect.fork(connection.awaitCancelled)
      yield* server.send({ jsonrpc: "2.0", id: 1, error: { code: -32800, message: "cancelled" } })
      yield* TestClock.adjust("1 second") // the first is settled; the second still has a second of grace
      assert.deepStrictEqual(yield* outcome(verdict), Option.none())
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(yield* outcome(verdict), Option.some(false))
      assert.deepStrictEqual(yield* expired.get, [2])
    }))

  it.scoped("also waits for a request interrupted while it waits", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      const first = yield* Effect.fork(connection.request("a", {}))
      const second = yield* Effect.fork(connection.request("b", {}))
      yield* server.take
      yield* server.take
      yield* Fiber.interrupt(first)
      const verdict = yield* Effect.fork(connection.awaitCancelled)
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(second)
      yield* server.send({ jsonrpc: "2.0", id: 1, error: { code: -32800, message: "cancelled" } })
      yield* TestClock.adjust("1 second") // the first has settled; the second is in its grace for a second
      assert.deepStrictEqual(yield* outcome(verdict), Option.none())
      yield* server.send({ jsonrpc: "2.0", id: 2, error: { code: -32800, message: "cancelled" } })
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(yield* outcome(verdict), Option.some(true))
    }))

  it.effect("reports true at once when nothing was interrupted", () =>
    Effect.gen(function*() {
      const { connection } = yield* connect()
      assert.isTrue(yield* connection.awaitCancelled)
    }).pipe(Effect.scoped))

  it.scoped("treats a request failed by the connection's failure as settled", () =>
    Effect.gen(function*() {
      const expired = yield* recorder<number>()
      const { connection, server } = yield* connect({ onCancelExpired: expired.record })
      const caller = yield* Effect.fork(connection.request("m", {}))
      yield* server.take
      yield* Fiber.interrupt(caller)
      yield* server.end
      yield* connection.failure
      assert.isTrue(yield* connection.awaitCancelled)
      yield* TestClock.adjust("1 minute")
      assert.deepStrictEqual(yield* expired.get, [])
    }))

  it.effect("closing the connection during a grace ends the wait without reporting an expiry", () =>
    Effect.gen(function*() {
      const expired = yield* recorder<number>()
      const scope = yield* Scope.make()
      const { connection, server } = yield* connect({ onCancelExpired: expired.record }).pipe(Scope.extend(scope))
      const caller = yield* Effect.fork(connection.request("m", {}))
      yield* server.take
      yield* Fiber.interrupt(caller)
      const verdict = yield* Effect.fork(connection.awaitCancelled)
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(yield* outcome(verdict), Option.none())
      yield* Scope.close(scope, Exit.void)
      yield* TestClock.adjust("1 millis") // lets every fiber settle; the grace is still far from over
      assert.deepStrictEqual(yield* outcome(verdict), Option.some(true))
      yield* TestClock.adjust("1 minute")
      assert.deepStrictEqual(yield* expired.get, [])
    }))

  it.scoped("sends nothing when the interrupted request had already been answered", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      const caller = yield* Effect.fork(connection.request("m", {}))
      yield* server.take
      yield* server.send({ jsonrpc: "2.0", id: 1, result: 1 })
      yield* Fiber.await(caller)
      yield* Fiber.interrupt(caller)
      assert.isTrue(yield* connection.awaitCancelled)
      yield* connection.notify("marker")
      assert.deepStrictEqual(yield* server.take, { jsonrpc: "2.0", method: "marker" })
    }))
})

describe("Framing and JsonRpc together", () => {
  it.scoped("reads messages split across arbitrary chunks", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      const fiber = yield* Effect.fork(connection.request("m", {}))
      yield* server.take
      const frame = Framing.encode({ jsonrpc: "2.0", id: 1, result: { text: "naïve 😀" } })
      for (let i = 0; i < frame.length; i += 3) yield* server.sendBytes(frame.subarray(i, i + 3))
      assert.deepStrictEqual(yield* Fiber.join(fiber), Option.some({ text: "naïve 😀" }))
    }))
})
