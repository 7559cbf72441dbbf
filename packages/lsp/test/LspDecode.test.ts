import { assert, describe, it } from "@effect/vitest"
import { LspDecode } from "@lsp-seam/lsp"
import { Either, ParseResult, Schema } from "effect"

// A union the parser narrows by its `kind` member: the shape that throws on the values below.
const Shape = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("circle"), radius: Schema.Number }),
  Schema.Struct({ kind: Schema.Literal("square"), side: Schema.Number })
)

// JSON a peer can send whose `kind` cannot be turned into a string.
const unreadable = [
  JSON.parse("{\"kind\":{\"toString\":0}}"),
  JSON.parse("{\"kind\":[{\"toString\":0}],\"side\":1}"),
  JSON.parse("{\"kind\":{\"toString\":{},\"valueOf\":{}}}")
]

describe("LspDecode", () => {
  it("the plain Schema checks throw on these values (the reason this module exists)", () => {
    for (const value of unreadable) {
      assert.throws(() => Schema.decodeUnknownEither(Shape)(value), TypeError)
      assert.throws(() => Schema.is(Shape)(value), TypeError)
    }
  })

  it("refuses them with a ParseError on the value instead", () => {
    for (const value of unreadable) {
      const decoded = LspDecode.decodeUnknownEither(Shape)(value)
      assert.isTrue(Either.isLeft(decoded))
      if (Either.isRight(decoded)) return
      assert.strictEqual(decoded.left.issue.actual, value)
      assert.match(ParseResult.TreeFormatter.formatErrorSync(decoded.left), /cannot be checked \(.+\)/)
      assert.isTrue(Either.isLeft(LspDecode.validateEither(Shape)(value)))
      assert.isFalse(LspDecode.is(Shape)(value))
    }
  })

  it("otherwise gives exactly what Schema gives", () => {
    const inputs: ReadonlyArray<unknown> = [
      { kind: "circle", radius: 1 },
      { kind: "square", side: 2, extra: true },
      { kind: "triangle" },
      { kind: "circle", radius: "1" },
      null,
      [1]
    ]
    for (const input of inputs) {
      assert.deepStrictEqual(LspDecode.decodeUnknownEither(Shape)(input), Schema.decodeUnknownEither(Shape)(input))
      assert.deepStrictEqual(LspDecode.validateEither(Shape)(input), Schema.validateEither(Shape)(input))
      assert.strictEqual(LspDecode.is(Shape)(input), Schema.is(Shape)(input))
    }
    // Options pass through: here, excess members are errors.
    const strict = LspDecode.decodeUnknownEither(Shape, { onExcessProperty: "error" })
    assert.isTrue(Either.isLeft(strict({ kind: "square", side: 2, extra: true })))
  })
})
