import { assert, describe, it } from "@effect/vitest"
import { LspDecode, LspResult, LspResultCheck } from "@lsp-seam/lsp"
import { Arbitrary, Either, FastCheck, ParseResult } from "effect"

// Schema's own check throws on some JSON (an own `toString` that is no function, see LspDecode); the guarded
// one refuses it, as the seam's check must.
const viaSchema = LspDecode.validateEither(LspResult.LspQueryResult)

/** The fast check must give exactly what the schema gives: an equal value, or the same error. */
const sameAsSchema = (value: unknown) => {
  const ours = LspResultCheck.validate(value)
  const theirs = viaSchema(value)
  if (Either.isRight(theirs)) {
    assert.isTrue(Either.isRight(ours), "the schema accepts it")
    assert.deepStrictEqual(Either.getOrThrow(ours), theirs.right)
  } else {
    assert.isTrue(Either.isLeft(ours), "the schema refuses it")
    if (Either.isLeft(ours)) {
      const message = ParseResult.TreeFormatter.formatErrorSync
      assert.strictEqual(message(ours.left), message(theirs.left))
    }
  }
}

// Mostly valid, so that a value often has exactly one fault somewhere deep inside (a fast check that missed
// that one fault would accept what the schema refuses).

/** A record with every member (mostly), or with any of them missing, sometimes with one more. */
const record = <T extends Record<string, FastCheck.Arbitrary<unknown>>>(fields: T) =>
  FastCheck.oneof(
    { weight: 40, arbitrary: FastCheck.record(fields) },
    { weight: 1, arbitrary: FastCheck.record(fields, { requiredKeys: [] }) },
    { weight: 1, arbitrary: FastCheck.record({ ...fields, extra: FastCheck.jsonValue() }) }
  )

/** Values near the valid ones: valid, or of a nearby wrong kind. */
const near = <A>(valid: FastCheck.Arbitrary<A>) =>
  FastCheck.oneof(
    { weight: 40, arbitrary: valid },
    FastCheck.constantFrom(-1, 1.5, "1", null, undefined, Number.MAX_SAFE_INTEGER + 1, -0, Number.NaN, Infinity),
    FastCheck.constantFrom<ReadonlyArray<unknown>>(JSON.parse("{\"toString\":0}"), JSON.parse("[{\"toString\":{}}]")),
    FastCheck.jsonValue()
  )

const position = record({ line: near(FastCheck.nat()), character: near(FastCheck.nat()) })
const range = record({ start: near(position), end: near(position) })
const location = record({ uri: near(FastCheck.constantFrom("file:///w/a.ts", "", "x")), range: near(range) })
const locationsResult = record({
  kind: near(FastCheck.constantFrom("locations", "hover")),
  locations: near(FastCheck.array(near(location), { maxLength: 6 })),
  resolvedWorkspaceUri: near(FastCheck.constant("file:///w"))
})

describe("the seam's check of an answer", () => {
  it("takes a plain locations result without the schema, copied as the schema copies it", () => {
    const result = LspResult.locations([
      { uri: "file:///w/a.ts", range: { start: { line: 0, character: 1 }, end: { line: 0, character: 4 } } }
    ], "file:///w")
    assert.deepStrictEqual(Either.getOrThrow(LspResultCheck.validate(result)), result)
    // Whatever else the provider's objects hold is not carried over, as the schema does not carry it.
    const array = Object.assign([...result.locations], { note: 1 })
    const hidden = { ...result.locations[0]! }
    Object.defineProperty(hidden, "secret", { value: 1, enumerable: false })
    Object.assign(hidden, { [Symbol("x")]: 2 })
    const unusual = { ...result, locations: [...array, hidden] }
    assert.deepStrictEqual(
      Either.getOrThrow(LspResultCheck.validate(unusual)),
      LspResult.locations([result.locations[0]!, result.locations[0]!], "file:///w")
    )
    sameAsSchema(unusual)
  })

  it("leaves to the schema what is not exactly that shape, which drops extra members", () => {
    const at = { start: { line: 0, character: 1 }, end: { line: 0, character: 4 } }
    const extra = {
      kind: "locations",
      locations: [{ uri: "file:///w/a.ts", range: at, note: 1 }],
      resolvedWorkspaceUri: ""
    }
    assert.deepStrictEqual(
      Either.getOrThrow(LspResultCheck.validate(extra)),
      LspResult.locations([{ uri: "file:///w/a.ts", range: at }], "")
    )
    const symbol = { kind: "locations", locations: [], resolvedWorkspaceUri: "", [Symbol("x")]: 1 }
    assert.deepStrictEqual(Either.getOrThrow(LspResultCheck.validate(symbol)), LspResult.locations([], ""))
    const holes = { kind: "locations", locations: new Array(2), resolvedWorkspaceUri: "" }
    assert.isTrue(Either.isLeft(LspResultCheck.validate(holes)))
    sameAsSchema(holes)
    class Point {
      constructor(readonly line: number, readonly character: number) {}
    }
    const instance = {
      kind: "locations",
      locations: [{ uri: "", range: { start: new Point(0, 0), end: at.end } }],
      resolvedWorkspaceUri: ""
    }
    sameAsSchema(instance)
    sameAsSchema(LspResult.markIncomplete(LspResult.locations([], "file:///w")))
  })

  it.prop("a near-locations value gives what the schema gives", { value: near(locationsResult) }, ({ value }) => {
    sameAsSchema(value)
  }, { fastCheck: { numRuns: 3_000 } })

  it.prop("any result the schema describes gives what the schema gives", {
    value: Arbitrary.make(LspResult.LspQueryResult)
  }, ({ value }) => {
    sameAsSchema(value)
  }, { fastCheck: { numRuns: 1_000 } })
})

describe("bodies and edits (0.3.0)", () => {
  const range = { start: { line: 1, character: 0 }, end: { line: 3, character: 1 } }
  it("a location's body is kept, exactly as the schema keeps it", () => {
    const value: LspResult.LspQueryResult = {
      kind: "locations",
      locations: [{ uri: "file:///w/a.ts", range, body: { range, text: "function f() {\n}" } }],
      resolvedWorkspaceUri: "file:///w"
    }
    sameAsSchema(value)
    assert.deepStrictEqual(Either.getOrThrow(LspResultCheck.validate(value)), value)
  })
  it("an edits result is checked by the schema", () => {
    const value: LspResult.LspEditsResult = {
      kind: "edits",
      edits: [{ uri: "file:///w/a.ts", range, newText: "g", oldText: "f" }],
      resourceOperations: [{ kind: "rename", uri: "file:///w/a.ts", newUri: "file:///w/g.ts" }],
      resolvedWorkspaceUri: "file:///w"
    }
    assert.deepStrictEqual(Either.getOrThrow(LspResultCheck.validate(value)), value)
    sameAsSchema({ ...value, edits: [{ uri: "file:///w/a.ts", range, newText: 1 }] })
    assert.isTrue(
      Either.isLeft(LspResultCheck.validate({ ...value, resourceOperations: [{ kind: "move", uri: "x" }] }))
    )
  })
})
