import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import * as Normalize from "../src/internal/answers/normalize.js"

// The field-by-field checks must give exactly what the schemas give: the same location, or the same error.
const viaSchema = {
  location: (entry: unknown) =>
    Normalize.decodeAt(Normalize.Location, "findReferences", "expected a Location", "[0]", entry),
  link: (entry: unknown) =>
    Either.map(
      Normalize.decodeAt(Normalize.LocationLink, "findReferences", "expected a LocationLink", "[0]", entry),
      (link) => ({ uri: link.targetUri, range: link.targetSelectionRange })
    )
}

/** A record with every member (mostly), or with any of them missing. */
const record = <T extends Record<string, FastCheck.Arbitrary<unknown>>>(fields: T) =>
  FastCheck.oneof(
    { weight: 3, arbitrary: FastCheck.record(fields) },
    { weight: 1, arbitrary: FastCheck.record(fields, { requiredKeys: [] }) }
  )

/** Values near the valid ones: each member missing, valid, or of a nearby wrong kind. */
const near = <A>(valid: FastCheck.Arbitrary<A>) =>
  FastCheck.oneof(
    { weight: 6, arbitrary: valid },
    FastCheck.constantFrom(-1, 1.5, "1", null, Number.MAX_SAFE_INTEGER + 1, -0),
    FastCheck.jsonValue()
  )
const position = record({ line: near(FastCheck.nat()), character: near(FastCheck.nat()) })
const range = record({ start: near(position), end: near(position) })
const uri = near(FastCheck.constantFrom("file:///w/a.ts", "", "x"))
const location = record({ uri, range: near(range), extra: FastCheck.jsonValue() })
const link = record({
  targetUri: uri,
  targetRange: near(range),
  targetSelectionRange: near(range),
  originSelectionRange: near(range),
  extra: FastCheck.jsonValue()
})

describe("locations read field by field", () => {
  it("reads valid entries without the schema's help, and the same", () => {
    const at = { start: { line: 1, character: 2 }, end: { line: 1, character: 5 } }
    const entry = { uri: "file:///w/a.ts", range: at }
    assert.deepStrictEqual(Normalize.decodeLocation("findReferences", "[0]", entry), Either.right(entry))
    const linked = { targetUri: "file:///w/a.ts", targetRange: at, targetSelectionRange: at, originSelectionRange: at }
    assert.deepStrictEqual(Normalize.decodeLocationLink("findReferences", "[0]", linked), Either.right(entry))
    assert.deepStrictEqual(Normalize.decodeLocationLink("findReferences", "[0]", linked), viaSchema.link(linked))
  })

  it.prop("a Location entry gives what the schema gives", { entry: near(location) }, ({ entry }) => {
    assert.deepStrictEqual(Normalize.decodeLocation("findReferences", "[0]", entry), viaSchema.location(entry))
  }, { fastCheck: { numRuns: 3_000 } })

  it.prop("a LocationLink entry gives what the schema gives", { entry: near(link) }, ({ entry }) => {
    assert.deepStrictEqual(Normalize.decodeLocationLink("findReferences", "[0]", entry), viaSchema.link(entry))
  }, { fastCheck: { numRuns: 3_000 } })
})
