import { assert, describe, it } from "@effect/vitest"
import { LspError } from "@lsp-seam/lsp"
import { Effect, Either, pipe, Schema } from "effect"

const reasons: ReadonlyArray<LspError.LspErrorReason> = [
  { _tag: "MethodNotFound", method: "textDocument/hover" },
  { _tag: "InitializeFailed" },
  { _tag: "PositionEncoding" },
  { _tag: "ServerExited" },
  { _tag: "TransportFailed" }
]

const encode = Schema.encodeSync(LspError.LspError)
const decode = Schema.decodeUnknownSync(LspError.LspError)

describe("LspError.reason", () => {
  it("is absent unless given", () => {
    const plain = LspError.serverError("boom", { jsonRpcCode: -32603 })
    assert.isFalse("reason" in plain)
    assert.isFalse("reason" in encode(plain))
    assert.isFalse("reason" in LspError.make("LSP_TIMEOUT", "late"))
  })

  it("is attached by withReason, data-first or in a pipe, keeping code, message and detail", () => {
    const reason = reasons[0]!
    const error = LspError.serverError("no hover", { jsonRpcCode: -32601 })
    const withIt = LspError.withReason(error, reason)
    assert.deepStrictEqual(
      withIt,
      new LspError.LspServerError({ code: error.code, message: error.message, detail: { jsonRpcCode: -32601 }, reason })
    )
    assert.deepStrictEqual(pipe(error, LspError.withReason(reason)), withIt)
    assert.deepStrictEqual(withIt.reason, reason)
    assert.strictEqual(withIt.code, "LSP_SERVER_ERROR")
    assert.deepStrictEqual(withIt.detail, { jsonRpcCode: -32601 })
    assert.isFalse("detail" in LspError.withReason(LspError.serverExited("gone"), reasons[3]!))
  })

  it("round-trips through the schema for every member", () => {
    for (const reason of reasons) {
      const error = LspError.withReason(LspError.serverStartFailed("failed", { stderr: "tail" }), reason)
      const encoded = encode(error)
      assert.deepStrictEqual(encoded.reason, reason)
      const decoded = decode(JSON.parse(JSON.stringify(encoded)))
      assert.deepStrictEqual(decoded, error)
      assert.isTrue(LspError.isLspError(decoded))
    }
  })

  it("rejects an unknown reason", () => {
    const encoded = { ...encode(LspError.transportFailed("closed")), reason: { _tag: "Elsewhere" } }
    assert.isTrue(Either.isLeft(Schema.decodeUnknownEither(LspError.LspError)(encoded)))
  })

  it.effect("is matched by tag after failing", () =>
    Effect.gen(function*() {
      const failure = yield* Effect.flip(
        Effect.fail(LspError.transportFailed("closed")).pipe(
          Effect.mapError(LspError.withReason({ _tag: "TransportFailed" }))
        )
      )
      assert.strictEqual(failure.reason?._tag, "TransportFailed")
    }))
})
