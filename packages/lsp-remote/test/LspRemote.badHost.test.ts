import { assert, describe, it } from "@effect/vitest"
import { LspError } from "@lsp-seam/lsp"
import { LspRemoteClient } from "@lsp-seam/lsp-remote"
import { Duration, Effect, Fiber } from "effect"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"
import { clientOf, codeOf, listening, request, tempDir } from "./support.js"

// Generous, so a loaded machine does not flake; a hang (what these cases did before) never ends.
const eventBudget = Duration.seconds(5)

const within = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.timeoutFail(effect, { duration: eventBudget, onTimeout: () => new Error("the call did not end in time") })

/** JSON that Schema's own union check cannot turn into a string (see LspDecode). */
const unreadable = { toString: 0 }

/** What the host writes for a request with this id (a string as it is, else as JSON); nothing when undefined. */
type Reply = (requestId: string) => unknown

const answered: Reply = (requestId) => ({
  _tag: "Exit",
  requestId,
  exit: { _tag: "Success", value: { kind: "hover", hover: null } }
})

/**
 * A host that speaks the wire format by hand: the n-th request it reads gets `replies[n](id)` (nothing when
 * `replies` has run out).
 */
const rawHost = (replies: ReadonlyArray<Reply>, options: Partial<LspRemoteClient.ClientOptions> = {}) =>
  Effect.gen(function*() {
    const dir = yield* tempDir
    Fs.mkdirSync(Path.join(dir, "run"), { mode: 0o700 })
    const path = Path.join(dir, "run", "host.sock")
    let served = 0
    const server = Net.createServer((socket) => {
      let buffered = ""
      socket.on("data", (chunk) => {
        const lines = (buffered + chunk.toString("utf8")).split("\n")
        buffered = lines.pop()!
        for (const line of lines) {
          const message: { _tag: unknown; id: unknown } = JSON.parse(line)
          const id = message._tag === "Request" && typeof message.id === "string" ? message.id : undefined
          const reply = id === undefined ? undefined : replies[served++]?.(id)
          if (reply !== undefined) socket.write(typeof reply === "string" ? reply : `${JSON.stringify(reply)}\n`)
        }
      })
      socket.on("error", () => {})
    })
    yield* listening(server, path)
    return yield* clientOf(LspRemoteClient.socket(path), options)
  })

describe("LspRemote client, facing a host that breaks the protocol", () => {
  const answers: ReadonlyArray<[string, unknown]> = [
    ["an exit whose tag cannot be read", { _tag: unreadable }],
    ["a cause whose tag cannot be read", { _tag: "Failure", cause: { _tag: unreadable } }],
    ["a result whose kind cannot be read", { _tag: "Success", value: { kind: unreadable } }],
    ["an error whose tag cannot be read", { _tag: "Failure", cause: { _tag: "Fail", error: { _tag: unreadable } } }],
    ["an exit of no known kind", { _tag: "Maybe" }]
  ]
  for (const [name, exit] of answers) {
    it.scopedLive(`${name}: that call fails with LSP_PROTOCOL_ERROR, the next one is answered`, () =>
      Effect.gen(function*() {
        const client = yield* rawHost([(requestId) => ({ _tag: "Exit", requestId, exit }), answered])
        assert.strictEqual(yield* within(codeOf(client.query(request("a.ts", "hover")))), "LSP_PROTOCOL_ERROR")
        assert.deepStrictEqual(yield* within(client.query(request("a.ts", "hover"))), { kind: "hover", hover: null })
      }))
  }

  const messages: ReadonlyArray<[string, Reply]> = [
    ["an answer whose request id is no number", () => ({ _tag: "Exit", requestId: "x", exit: { _tag: "Maybe" } })],
    ["an answer whose request id cannot be read", () => ({ _tag: "Exit", requestId: unreadable, exit: {} })],
    ["a message whose tag cannot be read", () => ({ _tag: unreadable })]
  ]
  for (const [name, reply] of messages) {
    it.scopedLive(`${name}: every call in flight fails with LSP_PROTOCOL_ERROR`, () =>
      Effect.gen(function*() {
        // The first call gets no answer; the second's reply is the bad message.
        const client = yield* rawHost([() => undefined, reply])
        const first = yield* Effect.fork(codeOf(client.query(request("a.ts", "hover"))))
        const second = yield* Effect.fork(codeOf(client.query(request("b.ts", "hover"))))
        assert.strictEqual(yield* within(Fiber.join(first)), "LSP_PROTOCOL_ERROR")
        assert.strictEqual(yield* within(Fiber.join(second)), "LSP_PROTOCOL_ERROR")
      }))
  }

  const lines: ReadonlyArray<[string, string, Partial<LspRemoteClient.ClientOptions>]> = [
    ["a line that is not JSON", "{not json}\n", {}],
    // Over the client's limit, which its reader enforces.
    ["a line longer than maxResponseBytes", `{"_tag":"Pong","pad":"${"x".repeat(4_000)}"}\n`, {
      maxResponseBytes: 2_048
    }]
  ]
  for (const [name, line, options] of lines) {
    it.scopedLive(`${name}: every call in flight fails with LSP_PROTOCOL_ERROR, the next one is answered`, () =>
      Effect.gen(function*() {
        // The ndjson reader throws on such a line, and used to throw on it again with every later chunk.
        const client = yield* rawHost([() => undefined, () => line, answered], options)
        const first = yield* Effect.fork(codeOf(client.query(request("a.ts", "hover"))))
        const second = yield* Effect.fork(codeOf(client.query(request("b.ts", "hover"))))
        assert.strictEqual(yield* within(Fiber.join(first)), "LSP_PROTOCOL_ERROR")
        assert.strictEqual(yield* within(Fiber.join(second)), "LSP_PROTOCOL_ERROR")
        assert.deepStrictEqual(yield* within(client.query(request("a.ts", "hover"))), { kind: "hover", hover: null })
      }))
  }
})

describe("LspRemote client, facing a host that fails the greeting", () => {
  const refused: Reply = (requestId) => ({
    _tag: "Exit",
    requestId,
    exit: {
      _tag: "Failure",
      cause: { _tag: "Fail", error: { _tag: "LspArgumentsError", code: "LSP_INVALID_ARGUMENTS", message: "no" } }
    }
  })

  it.scopedLive("hello fails with LSP_REMOTE_INCOMPATIBLE naming what the host said, as its type says", () =>
    Effect.gen(function*() {
      const client = yield* rawHost([refused])
      const error = yield* within(Effect.flip(client.hello))
      assert.strictEqual(error._tag, "LspRemoteError")
      assert.strictEqual(error.code, "LSP_REMOTE_INCOMPATIBLE")
      assert.include(error.message, "LSP_INVALID_ARGUMENTS: no")
    }))

  it.scopedLive("a client that greets while it is built fails to build the same way", () =>
    Effect.gen(function*() {
      const error = yield* within(Effect.flip(rawHost([refused], { expect: {} })))
      assert.strictEqual(LspError.isLspError(error) ? error.code : String(error), "LSP_REMOTE_INCOMPATIBLE")
    }))
})
