import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as LspToolConfig from "../src/LspToolConfig.js"
import * as LspToolInput from "../src/LspToolInput.js"

const rejected = (input: unknown) => {
  const result = LspToolConfig.decode(input)
  if (Either.isRight(result)) return assert.fail(`expected ${JSON.stringify(input)} to be rejected`)
  assert.strictEqual(result.left.code, "LSP_INVALID_CONFIG")
  return result.left.message
}

describe("LspToolConfig", () => {
  it("defaults to 100 locations, 16 000 characters and 60 s", () => {
    const expected = {
      maxLocations: 100,
      maxResultChars: 16_000,
      timeoutMs: 60_000,
      maxBodyLines: 150,
      maxBodyBytes: 12_000,
      operations: LspToolConfig.allOperations
    }
    assert.deepStrictEqual(LspToolConfig.defaults, expected)
    assert.deepStrictEqual(LspToolConfig.decode(undefined), Either.right(expected))
    assert.deepStrictEqual(LspToolConfig.decode({}), Either.right(expected))
  })

  it("fills in only the missing keys", () => {
    assert.deepStrictEqual(
      LspToolConfig.decode({ maxLocations: 5 }),
      Either.right({ ...LspToolConfig.defaults, maxLocations: 5 })
    )
  })

  it("accepts the timer bounds", () => {
    assert.isTrue(Either.isRight(LspToolConfig.decode({ timeoutMs: 1 })))
    assert.isTrue(Either.isRight(LspToolConfig.decode({ timeoutMs: 2_147_483_647 })))
  })

  it("rejects timers outside 1..2_147_483_647 and non-integers", () => {
    for (const timeoutMs of [0, -1, 2_147_483_648, 1.5, Number.NaN, "60000"]) {
      assert.isTrue(rejected({ timeoutMs }).includes("timeoutMs"))
    }
  })

  it("rejects caps below 1 and non-integers", () => {
    for (const value of [0, -3, 2.5, null]) {
      assert.isTrue(rejected({ maxLocations: value }).includes("maxLocations"))
      assert.isTrue(rejected({ maxResultChars: value }).includes("maxResultChars"))
    }
  })

  it("rejects unknown keys so a typo does not fall back to a default", () => {
    assert.isTrue(rejected({ maxLocation: 5 }).includes("maxLocation"))
  })

  it("rejects values that are not objects", () => {
    rejected("fast")
    rejected(null)
  })

  it("offers every operation by default, and accepts a non-empty subset in any order", () => {
    assert.deepStrictEqual(LspToolConfig.defaults.operations, LspToolInput.ToolOperation.literals)
    assert.deepStrictEqual(
      LspToolConfig.decode({ operations: ["hover", "documentSymbol"] }),
      Either.right({ ...LspToolConfig.defaults, operations: ["hover", "documentSymbol"] })
    )
  })

  it("rejects an empty operations list, an unknown operation and a repeated one", () => {
    assert.include(rejected({ operations: [] }), "operations")
    assert.include(rejected({ operations: ["hover", "rename"] }), "rename")
    assert.include(rejected({ operations: ["hover", "hover"] }), "operations must not name an operation twice")
  })

  it.effect("make fails in the error channel", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(LspToolConfig.make({ maxResultChars: 0 }))
      assert.strictEqual(error.code, "LSP_INVALID_CONFIG")
    }))
})
