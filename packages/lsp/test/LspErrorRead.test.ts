import { assert, describe, it } from "@effect/vitest"
import { LspError, LspErrorRead } from "@lsp-seam/lsp"
import { Arbitrary, Either, FastCheck, Schema } from "effect"

const encode = Schema.encodeSync(LspError.LspError)
const decode = Schema.decodeUnknownEither(LspError.LspError)

// As a client receives a host's error: the JSON of its encoding, parsed.
const overTheWire = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

const encoded = Arbitrary.make(LspError.LspError).map((error) => overTheWire(encode(error)))

/** Encoded errors, some a little off: another code or tag (another family's), a message or detail of the wrong kind, a bad reason. */
const nearErrors = FastCheck.oneof(
  { weight: 4, arbitrary: encoded },
  {
    weight: 3,
    arbitrary: FastCheck.tuple(
      encoded,
      FastCheck.constantFrom("code", "message", "detail", "reason", "_tag"),
      FastCheck.oneof(
        FastCheck.jsonValue(),
        FastCheck.constantFrom(
          "LSP_NOPE",
          "LspError",
          "LspTimeoutError",
          "LspSourceError",
          "LSP_TIMEOUT",
          "LSP_SOURCE_BINARY",
          { _tag: "MethodNotFound" },
          { _tag: "ServerExited" },
          [1]
        )
      )
    ).map(([error, key, value]) => typeof error === "object" && error !== null ? { ...error, [key]: value } : error)
  }
)

describe("LspErrorRead", () => {
  it("lists the codes of LspError.LspErrorCode", () => {
    assert.deepStrictEqual(LspError.LspErrorCode.literals, LspErrorRead.codes)
  })

  it("takes every error LspError encodes", () => {
    for (const error of FastCheck.sample(encoded, 300)) assert.isDefined(LspErrorRead.plainError(error))
  })

  it.prop("plainError accepts only what the schema decodes, with its code and message", {
    value: nearErrors
  }, ({ value }) => {
    const plain = LspErrorRead.plainError(value)
    if (plain === undefined) return
    const schema = decode(value)
    assert.isTrue(Either.isRight(schema), "the schema accepts it")
    const error = Either.getOrThrow(schema)
    assert.deepStrictEqual(plain, { code: error.code, message: error.message })
  }, { fastCheck: { numRuns: 2_000 } })
})
