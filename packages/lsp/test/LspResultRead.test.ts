import { assert, describe, it } from "@effect/vitest"
import { LspDecode, LspIdentifiers, LspResult, LspResultRead } from "@lsp-seam/lsp"
import { Arbitrary, Either, FastCheck } from "effect"

const viaSchema = LspDecode.validateEither(LspResult.LspQueryResult)

// As the remote query's edge receives an answer: the JSON of what the host sent, parsed.
const overTheWire = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

/** A plain locations result: what the hosts build, and the edge takes. */
const plainLocations = FastCheck.record({
  kind: FastCheck.constant("locations"),
  locations: FastCheck.array(Arbitrary.make(LspResult.LspLocation).map(({ range, uri }) => ({ uri, range }))),
  resolvedWorkspaceUri: FastCheck.string()
})

/** A plain hover result. */
const plainHover = FastCheck.record({
  kind: FastCheck.constant("hover"),
  hover: FastCheck.option(
    FastCheck.record(
      { contents: FastCheck.string(), range: Arbitrary.make(LspResult.LspLocation).map(({ range }) => range) },
      { requiredKeys: ["contents"] }
    ),
    { nil: null }
  )
})

/** Hover results, some a little off: an extra member, a malformed range, contents that are no string. */
const nearHover = FastCheck.oneof(
  { weight: 4, arbitrary: plainHover },
  { weight: 2, arbitrary: Arbitrary.make(LspResult.LspHoverResult) },
  { weight: 1, arbitrary: plainHover.map((result) => ({ ...result, resolvedWorkspaceUri: "" })) },
  {
    weight: 1,
    arbitrary: FastCheck.tuple(FastCheck.jsonValue(), FastCheck.jsonValue()).map(([contents, range]) => ({
      kind: "hover",
      hover: { contents, range }
    }))
  },
  { weight: 1, arbitrary: FastCheck.jsonValue().map((hover) => ({ kind: "hover", hover })) }
)

/** Locations results, some with an extra, a missing or a malformed member somewhere. */
const nearLocations = FastCheck.oneof(
  { weight: 4, arbitrary: plainLocations },
  { weight: 2, arbitrary: Arbitrary.make(LspResult.LspLocationsResult) },
  {
    weight: 1,
    arbitrary: FastCheck.tuple(plainLocations, FastCheck.jsonValue()).map((
      [result, junk]
    ) => ({ ...result, locations: [...result.locations, junk] }))
  },
  {
    weight: 1,
    arbitrary: plainLocations.map((result) => ({ ...result, note: 1 }))
  },
  { weight: 1, arbitrary: Arbitrary.make(LspResult.LspQueryResult) }
)

describe("LspResultRead", () => {
  it("takes a plain locations result", () => {
    const taken = FastCheck.sample(plainLocations, 200).filter((value) =>
      LspResultRead.plainLocations(overTheWire(value)) !== undefined
    )
    assert.lengthOf(taken, 200)
  })

  it.prop("plainLocations accepts only what the schema accepts, and prints exactly as the schema's value", {
    value: nearLocations
  }, ({ value }) => {
    const wire = overTheWire(value)
    const plain = LspResultRead.plainLocations(wire)
    if (plain === undefined) return
    const schema = viaSchema(wire)
    assert.isTrue(Either.isRight(schema), "the schema accepts it")
    // The edge prints `--json` with JSON.stringify: the same text, member order included.
    assert.strictEqual(JSON.stringify(plain, null, 2), JSON.stringify(Either.getOrThrow(schema), null, 2))
  }, { fastCheck: { numRuns: 1_000 } })

  it("takes a plain hover result", () => {
    const taken = FastCheck.sample(plainHover, 200).filter((value) =>
      LspResultRead.plainHover(overTheWire(value)) !== undefined
    )
    assert.lengthOf(taken, 200)
  })

  it.prop("plainHover accepts only what the schema accepts, and prints exactly as the schema's value", {
    value: nearHover
  }, ({ value }) => {
    const wire = overTheWire(value)
    const plain = LspResultRead.plainHover(wire)
    if (plain === undefined) return
    const schema = viaSchema(wire)
    assert.isTrue(Either.isRight(schema), "the schema accepts it")
    assert.strictEqual(JSON.stringify(plain, null, 2), JSON.stringify(Either.getOrThrow(schema), null, 2))
  }, { fastCheck: { numRuns: 1_000 } })

  it("is what LspResult and LspIdentifiers publish", () => {
    assert.strictEqual(LspResult.isEmpty, LspResultRead.isEmpty)
    assert.strictEqual(LspResult.incompleteReasonsOf, LspResultRead.incompleteReasonsOf)
    assert.strictEqual(LspResult.readiness, LspResultRead.readiness)
    assert.strictEqual(LspResult.readinessMessage, LspResultRead.readinessMessage)
    assert.strictEqual(LspIdentifiers.describeLine, LspResultRead.describeLine)
    assert.strictEqual(LspIdentifiers.formatIdentifiers, LspResultRead.formatIdentifiers)
    assert.strictEqual(LspIdentifiers.listLimit, LspResultRead.listLimit)
  })
})
