import { assert, describe, it } from "@effect/vitest"
import type { LspError } from "@lsp-seam/lsp"
import { Effect, Fiber, HashMap, Logger, LogLevel, Option, Ref } from "effect"
import * as Framing from "../src/Framing.js"
import * as JsonRpc from "../src/JsonRpc.js"
import * as Testing from "../src/testing.js"

/** A connection over a memory transport, living in the test's scope. */
const connect = Effect.gen(function*() {
  const { server, transport } = yield* Testing.makeMemoryTransport
  const connection = yield* JsonRpc.make(transport, { maxMessageBytes: 1_000_000, cancelGrace: "2 seconds" })
  return { server, connection }
})

const malformedFrames = (connection: JsonRpc.Connection) =>
  connection.malformedFrames ?? Effect.dieMessage("the connection does not count malformed frames")

const errorOf = <A>(effect: Effect.Effect<A, LspError.LspError>) => Effect.flip(effect)

/** Sends a request and returns its fiber once the server has read it. */
const pendingRequest = (connection: JsonRpc.Connection, server: Testing.MemoryServer, method = "m") =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(connection.request(method, {}))
    const written = yield* server.take
    return { fiber, id: (written as { readonly id: number }).id }
  })

/** A request sent after the bad frame is read, written and answered: the connection still works. */
const assertStillWorks = (connection: JsonRpc.Connection, server: Testing.MemoryServer) =>
  Effect.gen(function*() {
    const { fiber, id } = yield* pendingRequest(connection, server, "later")
    yield* server.send({ jsonrpc: "2.0", id, result: "later" })
    assert.deepStrictEqual(yield* Fiber.join(fiber), Option.some("later"))
    assert.isTrue(yield* connection.isOpen)
  })

describe("JsonRpc frames that are JSON but not JSON-RPC", () => {
  for (
    const [name, frame] of [
      ["an object of no known shape", { foo: 1 }],
      ["an array", [1, 2]],
      ["a string", "str"],
      ["a number", 42],
      ["null", null],
      ["a notification with a non-string method", { jsonrpc: "2.0", method: 5 }],
      ["a request with a fractional id", { jsonrpc: "2.0", id: 1.5, method: "workspace/configuration" }],
      ["a request with an object id", { jsonrpc: "2.0", id: { n: 1 }, method: "client/registerCapability" }],
      ["a notification with a null id", { jsonrpc: "2.0", id: null, method: "window/logMessage" }],
      // It names the pending request, but it has a method: it is no answer.
      ["a request with the pending id and a non-string method", { jsonrpc: "2.0", id: 1, method: 5 }],
      ["neither id nor method", { jsonrpc: "2.0", result: 1 }],
      ["a response to an id never sent, in JSON-RPC 1.0", { jsonrpc: "1.0", id: 99, result: 1 }],
      // Members Schema's union check cannot turn into a string (it threw on them): see LspDecode.
      ["a notification whose jsonrpc cannot be read as a string", { jsonrpc: { toString: 0 }, method: "m" }],
      ["a request whose jsonrpc is an array of such objects", { jsonrpc: [{ toString: 0 }], id: 4, method: "m" }]
    ] as const
  ) {
    it.scoped(`skips ${name}, counts it, and leaves the pending request and the connection alone`, () =>
      Effect.gen(function*() {
        const { connection, server } = yield* connect
        const { fiber, id } = yield* pendingRequest(connection, server)
        assert.strictEqual(id, 1)
        yield* server.send(frame)
        yield* server.send({ jsonrpc: "2.0", id, result: "mine" })
        assert.deepStrictEqual(yield* Fiber.join(fiber), Option.some("mine"))
        assert.strictEqual(yield* malformedFrames(connection), 1)
        // Nothing was answered to a request without a usable id: the next frame the server reads is ours.
        yield* assertStillWorks(connection, server)
      }))
  }

  it.scoped("keeps dispatching the rest of a chunk after a bad frame", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect
      const first = yield* pendingRequest(connection, server)
      const second = yield* pendingRequest(connection, server)
      const frames = [{ foo: 1 }, { jsonrpc: "2.0", id: first.id, result: 1 }, [3], {
        jsonrpc: "2.0",
        id: second.id,
        result: 2
      }, "end"].map(Framing.encode)
      const chunk = new Uint8Array(frames.reduce((total, frame) => total + frame.length, 0))
      frames.reduce((offset, frame) => (chunk.set(frame, offset), offset + frame.length), 0)
      yield* server.sendBytes(chunk)
      assert.deepStrictEqual(yield* Fiber.join(first.fiber), Option.some(1))
      assert.deepStrictEqual(yield* Fiber.join(second.fiber), Option.some(2))
      assert.strictEqual(yield* malformedFrames(connection), 3)
      yield* assertStillWorks(connection, server)
    }))

  it.scoped("counts nothing while every frame is valid", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect
      const { fiber, id } = yield* pendingRequest(connection, server)
      yield* server.send({ jsonrpc: "2.0", method: "window/logMessage", params: { type: 3, message: "hi" } })
      yield* server.send({ jsonrpc: "2.0", id, error: { code: 1, message: "no" } })
      assert.strictEqual((yield* errorOf(Fiber.join(fiber))).code, "LSP_SERVER_ERROR")
      assert.strictEqual(yield* malformedFrames(connection), 0)
    }))

  it.effect("logs a warning with a short description, not the whole frame", () =>
    Effect.gen(function*() {
      const logs = yield* Ref.make<ReadonlyArray<{ level: string; message: string; issue: string }>>([])
      const logger = Logger.make(({ annotations, logLevel, message }) =>
        Effect.runSync(Ref.update(logs, (all) => [...all, {
          level: logLevel.label,
          message: String(Array.isArray(message) ? message.join(" ") : message),
          issue: String(Option.getOrElse(HashMap.get(annotations, "jsonrpc.issue"), () => ""))
        }]))
      )
      yield* Effect.gen(function*() {
        const { connection, server } = yield* connect
        yield* server.send({ foo: "x".repeat(100_000) })
        yield* assertStillWorks(connection, server)
      }).pipe(Effect.scoped, Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
      const warnings = (yield* Ref.get(logs)).filter((entry) => entry.level === "WARN")
      assert.strictEqual(warnings.length, 1)
      assert.include(warnings[0]!.message, "not JSON-RPC")
      assert.isAbove(warnings[0]!.issue.length, 0)
      assert.isBelow(warnings[0]!.issue.length + warnings[0]!.message.length, 1_000)
    }).pipe(Logger.withMinimumLogLevel(LogLevel.Debug)))
})

describe("JsonRpc error responses missing parts", () => {
  for (
    const [name, error, expected] of [
      ["an empty error object", {}, { code: -32603, message: "(no message)" }],
      ["a code that is not a number", { code: "x", message: "m" }, { code: -32603, message: "m" }],
      ["a fractional code", { code: 1.5, message: "m" }, { code: -32603, message: "m" }],
      ["no message", { code: 7 }, { code: 7, message: "(no message)" }],
      ["a message that is not a string", { code: 7, message: { text: "m" } }, { code: 7, message: "(no message)" }],
      ["no code, with data", { message: "boom", data: { at: 3 } }, { code: -32603, message: "boom", data: { at: 3 } }]
    ] as const
  ) {
    it.scoped(`delivers ${name} as LSP_SERVER_ERROR and counts it`, () =>
      Effect.gen(function*() {
        const { connection, server } = yield* connect
        const { fiber, id } = yield* pendingRequest(connection, server, "textDocument/hover")
        yield* server.send({ jsonrpc: "2.0", id, error })
        const failure = yield* errorOf(Fiber.join(fiber))
        assert.strictEqual(failure.code, "LSP_SERVER_ERROR")
        assert.deepStrictEqual(failure.detail, { method: "textDocument/hover", ...expected })
        assert.include(failure.message, expected.message)
        assert.strictEqual(yield* malformedFrames(connection), 1)
        yield* assertStillWorks(connection, server)
      }))
  }
})

describe("JsonRpc malformed responses to a pending request", () => {
  for (
    const [name, response] of [
      ["a wrong jsonrpc version", { jsonrpc: "1.0", id: 1, result: 1 }],
      ["no jsonrpc member", { id: 1, result: 1 }],
      ["an error that is not an object", { jsonrpc: "2.0", id: 1, error: "boom" }],
      ["a null error", { jsonrpc: "2.0", id: 1, result: 1, error: null }],
      ["a jsonrpc member that cannot be read as a string", { jsonrpc: { toString: 0 }, id: 1, result: 1 }]
    ] as const
  ) {
    it.scoped(`fails that request with LSP_MALFORMED_RESPONSE on ${name}, and only that request`, () =>
      Effect.gen(function*() {
        const { connection, server } = yield* connect
        const first = yield* pendingRequest(connection, server, "textDocument/definition")
        const other = yield* pendingRequest(connection, server, "textDocument/hover")
        assert.strictEqual(first.id, 1)
        yield* server.send(response)
        const failure = yield* errorOf(Fiber.join(first.fiber))
        assert.strictEqual(failure.code, "LSP_MALFORMED_RESPONSE")
        assert.strictEqual(failure.detail?.method, "textDocument/definition")
        assert.strictEqual(yield* malformedFrames(connection), 1)
        yield* server.send({ jsonrpc: "2.0", id: other.id, result: "other" })
        assert.deepStrictEqual(yield* Fiber.join(other.fiber), Option.some("other"))
        // A later well-formed answer to the failed id is dropped like any unknown id.
        yield* server.send({ jsonrpc: "2.0", id: 1, result: "late" })
        yield* assertStillWorks(connection, server)
        assert.strictEqual(yield* malformedFrames(connection), 1)
      }))
  }

  it.scoped("a response with neither result nor error is valid: the request gets None, nothing is counted", () =>
    Effect.gen(function*() {
      // Kept from the connection's contract: queries turn `None` into LSP_MALFORMED_RESPONSE (normalize.ts),
      // `shutdown` may be answered so.
      const { connection, server } = yield* connect
      const { fiber, id } = yield* pendingRequest(connection, server)
      yield* server.send({ jsonrpc: "2.0", id })
      assert.deepStrictEqual(yield* Fiber.join(fiber), Option.none())
      assert.strictEqual(yield* malformedFrames(connection), 0)
      yield* assertStillWorks(connection, server)
    }))
})
