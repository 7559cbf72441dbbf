import { assert, describe, it } from "@effect/vitest"
import { LspDecode } from "@lsp-seam/lsp"
import { Either, FastCheck } from "effect"
import * as Message from "../src/internal/wire/jsonRpcMessage.js"

// The union as one schema: what `decodeIncoming` must agree with, message for message. Schema's own check
// throws on some JSON (`unreadable` below); the guarded one refuses it.
const viaUnion = LspDecode.decodeUnknownEither(Message.Incoming)

/** JSON that Schema's union check cannot turn into a string: an own `toString` that is no function. */
const unreadable = FastCheck.constantFrom<ReadonlyArray<unknown>>(
  JSON.parse("{\"toString\":0}"),
  JSON.parse("[{\"toString\":{}}]")
)

/** Objects shaped like messages, valid and not: every member present, absent, of another type or unreadable. */
const member = <A>(arbitrary: FastCheck.Arbitrary<A>) =>
  FastCheck.option(FastCheck.oneof(arbitrary, FastCheck.jsonValue(), unreadable), { nil: undefined })

const messageLike = FastCheck.record({
  jsonrpc: member(FastCheck.constantFrom("2.0", "1.0")),
  id: member(FastCheck.oneof(FastCheck.integer(), FastCheck.string(), FastCheck.double(), FastCheck.constant(null))),
  method: member(FastCheck.string()),
  params: member(FastCheck.jsonValue()),
  result: member(FastCheck.jsonValue()),
  error: member(FastCheck.record({ code: member(FastCheck.integer()), message: member(FastCheck.string()) })),
  extra: member(FastCheck.jsonValue())
}).map((fields) => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)))

describe("decodeIncoming", () => {
  it.prop(
    "gives what the Incoming union gives, for any message-like value or JSON value",
    { value: FastCheck.oneof(messageLike, FastCheck.jsonValue()) },
    ({ value }) => {
      const expected = viaUnion(value)
      const actual = Message.decodeIncoming(value)
      assert.strictEqual(actual._tag, expected._tag)
      if (Either.isRight(expected) && Either.isRight(actual)) assert.deepStrictEqual(actual.right, expected.right)
    },
    { fastCheck: { numRuns: 2_000 } }
  )

  it("decodes a plain answer, a server request and a notification", () => {
    const answer = Message.decodeIncoming({ jsonrpc: "2.0", id: 7, result: null, extra: 1 })
    assert.deepStrictEqual(
      Either.getOrThrow(answer),
      Either.getOrThrow(viaUnion({ jsonrpc: "2.0", id: 7, result: null }))
    )
    assert.deepStrictEqual(
      Either.getOrThrow(Message.decodeIncoming({ jsonrpc: "2.0", id: "a", method: "m" })).kind,
      "request"
    )
    assert.deepStrictEqual(
      Either.getOrThrow(Message.decodeIncoming({ jsonrpc: "2.0", method: "m", params: [] })).kind,
      "notification"
    )
    assert.isTrue(Either.isLeft(Message.decodeIncoming({ jsonrpc: "2.0", id: 1.5, result: 1 })))
  })

  it("refuses a message whose members Schema's union check throws on, and still finds its id", () => {
    const message = JSON.parse("{\"jsonrpc\":{\"toString\":0},\"id\":3,\"result\":1}")
    const decoded = Message.decodeIncoming(message)
    assert.isTrue(Either.isLeft(decoded))
    assert.include(Either.isLeft(decoded) ? decoded.left : "", "cannot be checked")
    assert.strictEqual(Message.responseId(message), 3)
  })
})
