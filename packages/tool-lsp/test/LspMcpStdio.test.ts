import * as McpSchema from "@effect/ai/McpSchema"
import * as McpServer from "@effect/ai/McpServer"
import { assert, describe, it } from "@effect/vitest"
import { LspMcpStdio } from "@lsp-seam/tool-lsp"
import { Context, Deferred, Duration, Effect, Exit, Fiber, Layer, Mailbox, Queue, Sink } from "effect"

// Generous, so a loaded machine does not flake; a session that stopped reading (what these lines did
// before) never answers.
const eventBudget = Duration.seconds(5)

const within = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.timeoutFail(effect, { duration: eventBudget, onTimeout: () => new Error("no answer in time") })

const encoder = new TextEncoder()

/** A session over in-memory stdio; `send` writes raw text, `next` reads the next line written back. */
const session = Effect.gen(function*() {
  const stdin = yield* Mailbox.make<Uint8Array>()
  const written = yield* Queue.unbounded<string>()
  let pending = ""
  const stdout = Sink.forEach((chunk: Uint8Array | string) => {
    const lines = (pending + (typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk))).split("\n")
    pending = lines.pop()!
    return Queue.offerAll(written, lines)
  })
  const layer = LspMcpStdio.layer({ name: "test", version: "0", stdin: Mailbox.toStream(stdin), stdout })
  const built = yield* Deferred.make<McpServer.McpServer["Type"]>()
  // Built in a fiber of its own: the end of stdin interrupts the fiber that built the layer.
  const serving = yield* Effect.forkScoped(Effect.scoped(
    Layer.build(layer).pipe(
      Effect.flatMap((context) => Deferred.succeed(built, Context.get(context, McpServer.McpServer))),
      Effect.zipRight(Effect.never)
    )
  ))
  const sendBytes = (bytes: Uint8Array) => stdin.offer(bytes)
  const send = (text: string) => sendBytes(encoder.encode(text))
  const next: Effect.Effect<unknown, Error> = within(Queue.take(written)).pipe(Effect.map((line) => JSON.parse(line)))
  const ping = (id: number) =>
    Effect.gen(function*() {
      yield* send(`${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\n`)
      assert.deepStrictEqual(yield* next, { jsonrpc: "2.0", id, result: {} })
    })
  return { send, sendBytes, next, ping, end: stdin.end, serving, server: Deferred.await(built) }
})

const error = (id: string | number | null, code: number) => ({ jsonrpc: "2.0", id, error: { code } })

/** The reply without its message text (checked apart), for a strict comparison of the rest. */
const withoutMessage = (reply: unknown) => {
  const { error, ...rest } = reply as { error: { code: number; message: unknown } }
  assert.isString(error.message)
  return { ...rest, error: { code: error.code } }
}

describe("LspMcpStdio", () => {
  const lines: ReadonlyArray<[string, string, ReturnType<typeof error> | undefined]> = [
    ["a line that is not JSON", "{not json}", error(null, -32700)],
    ["a JSON string", "\"str\"", error(null, -32600)],
    ["an empty batch", "[]", error(null, -32600)],
    ["a method that is no string", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":7}", error(2, -32600)],
    ["a method that cannot be read", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":{\"toString\":0}}", error(2, -32600)],
    [
      "an id that cannot be read",
      "{\"jsonrpc\":\"2.0\",\"id\":{\"toString\":0},\"method\":\"ping\"}",
      error(null, -32600)
    ],
    ["a JSON-RPC 1.0 request", "{\"jsonrpc\":\"1.0\",\"id\":2,\"method\":\"ping\"}", error(2, -32600)],
    ["an unknown method", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"nope\"}", error(2, -32601)],
    [
      "one of @effect/rpc's control methods",
      "{\"jsonrpc\":\"2.0\",\"method\":\"@effect/rpc/Interrupt\",\"id\":2,\"params\":{\"requestId\":{\"toString\":0}}}",
      error(2, -32601)
    ],
    [
      "params Schema's union check throws on",
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":{\"toString\":0}}," +
      "\"argument\":{\"name\":\"a\",\"value\":\"b\"}}}",
      error(2, -32602)
    ],
    [
      "invalid params",
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":1}}",
      error(2, -32602)
    ],
    // Notifications are never answered, not even with an error.
    ["an unknown notification", "{\"jsonrpc\":\"2.0\",\"method\":\"nope\"}", undefined],
    [
      "a notification with params that cannot be read",
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":{\"toString\":0}}}",
      undefined
    ],
    ["an answer to no request of the server's", "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}", undefined]
  ]
  for (const [name, line, expected] of lines) {
    it.scopedLive(`${name}: ${expected === undefined ? "no answer" : `error ${expected.error.code}`}, and the session goes on`, () =>
      Effect.gen(function*() {
        const { next, ping, send } = yield* session
        yield* send(`${line}\n`)
        if (expected !== undefined) assert.deepStrictEqual(withoutMessage(yield* next), expected)
        yield* ping(3)
      }))
  }

  it.scopedLive("a batch: each valid member is answered, each invalid one refused", () =>
    Effect.gen(function*() {
      const { next, ping, send } = yield* session
      yield* send("[{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":7}]\n")
      const replies = [yield* next, yield* next]
      assert.sameDeepMembers(replies.map((reply) => "error" in (reply as object) ? withoutMessage(reply) : reply), [
        { jsonrpc: "2.0", id: 5, result: {} },
        error(6, -32600)
      ])
      yield* ping(3)
    }))

  it.scopedLive("reads lines across chunks, several per chunk, with CRLF endings and blank lines", () =>
    Effect.gen(function*() {
      const { next, send, sendBytes } = yield* session
      const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })
      yield* send(ping(1).slice(0, 10))
      yield* send(`${ping(1).slice(10)}\r\n\n${ping(2)}\n`)
      const euro = encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", id: "€", method: "ping" })}\n`)
      // The euro sign's three bytes split over two chunks.
      const cut = euro.indexOf(0xe2) + 1
      yield* sendBytes(euro.slice(0, cut))
      yield* sendBytes(euro.slice(cut))
      assert.deepStrictEqual(yield* next, { jsonrpc: "2.0", id: 1, result: {} })
      assert.deepStrictEqual(yield* next, { jsonrpc: "2.0", id: 2, result: {} })
      assert.deepStrictEqual(yield* next, { jsonrpc: "2.0", id: "€", result: {} })
    }))

  it.scopedLive("answers every request with its own id, of its own type", () =>
    Effect.gen(function*() {
      const { next, send } = yield* session
      // @effect/rpc reads ids with BigInt (which throws on "abc" and 1.5) and writes them with Number ("17"
      // came back as 17).
      const ids = ["abc", "17", 17, 1.5, -4, "", 0]
      for (const id of ids) {
        yield* send(`${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\n`)
        assert.deepStrictEqual(yield* next, { jsonrpc: "2.0", id, result: {} })
      }
    }))

  it.scopedLive("a cancellation names its request by the client's id, and interrupts it", () =>
    Effect.gen(function*() {
      const { ping, send, server: built } = yield* session
      const server = yield* built
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      yield* server.addTool({
        tool: new McpSchema.Tool({ name: "slow", inputSchema: { type: "object" } }),
        handle: () =>
          Deferred.succeed(started, undefined).pipe(
            Effect.zipRight(Effect.never),
            Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
          )
      })
      const call = (id: string | number) =>
        send(
          `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "slow", arguments: {} } })}\n`
        )
      yield* call("call-1")
      yield* within(Deferred.await(started))
      // A cancellation of an id never sent, then of the same id as a number: neither is that call.
      for (const requestId of ["call-2", 1]) {
        yield* send(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } })}\n`)
      }
      yield* ping(3)
      assert.isFalse(yield* Deferred.isDone(interrupted))
      yield* send(
        `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "call-1" } })}\n`
      )
      yield* within(Deferred.await(interrupted))
      yield* ping(4)
    }))

  it.scopedLive("ends the session when stdin ends", () =>
    Effect.gen(function*() {
      const { end, ping, serving } = yield* session
      yield* ping(1)
      yield* end
      const exit = yield* within(Fiber.await(serving))
      assert.isTrue(Exit.isInterrupted(exit))
    }))

  it.scopedLive("drops nothing valid: fifty pings in one write are all answered", () =>
    Effect.gen(function*() {
      const { next, send } = yield* session
      const ids = Array.from({ length: 50 }, (_, i) => i)
      yield* send(ids.map((id) => `${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\n`).join(""))
      const answered: Array<unknown> = []
      for (const _ of ids) answered.push(yield* next)
      assert.sameDeepMembers(answered, ids.map((id) => ({ jsonrpc: "2.0", id, result: {} })))
    }))
})
