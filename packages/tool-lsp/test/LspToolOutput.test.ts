import { assert, describe, it } from "@effect/vitest"
import { LspResult } from "@lsp-seam/lsp"
import * as Schema from "effect/Schema"
import * as LspToolOutput from "../src/LspToolOutput.js"

// Every object schema in the tree, wherever it sits.
const objects = (node: unknown): Array<Record<string, unknown>> => {
  if (Array.isArray(node)) return node.flatMap(objects)
  if (typeof node !== "object" || node === null) return []
  const record = Object.fromEntries(Object.entries(node))
  const own = record.type === "object" ? [record] : []
  return [...own, ...Object.values(record).flatMap(objects)]
}

describe("LspToolOutput", () => {
  it("has a closed JSON Schema: a union on result.kind, additionalProperties false everywhere", () => {
    const schema = Object.fromEntries(Object.entries(LspToolOutput.jsonSchema))
    assert.deepStrictEqual(schema.required, ["result", "text"])
    const nodes = objects(LspToolOutput.jsonSchema)
    assert.isAtLeast(nodes.length, 6)
    for (const node of nodes) assert.strictEqual(node.additionalProperties, false)
    const kinds = objects(LspToolOutput.jsonSchema)
      .map((node) => Object.fromEntries(Object.entries(node.properties ?? {})).kind)
      // Result kinds are single literals; symbol and call items have a `kind` too (SymbolKind names).
      .filter((kind) => kind !== undefined && Array.isArray(kind.enum) && kind.enum.length === 1)
    assert.deepStrictEqual(kinds, [
      { type: "string", enum: ["locations"] },
      { type: "string", enum: ["hover"] },
      { type: "string", enum: ["symbols"] },
      { type: "string", enum: ["calls"] },
      { type: "string", enum: ["diagnostics"] },
      { type: "string", enum: ["edits"] },
      { type: "string", enum: ["impact"] }
    ])
  })

  it("validates both result kinds and rejects anything else", () => {
    const is = Schema.is(LspToolOutput.LspToolOutput)
    assert.isTrue(is(LspToolOutput.make(LspResult.hover(null), "No hover information.")))
    assert.isTrue(is(LspToolOutput.make(LspResult.locations([], "file:///w"), "No results.")))
    assert.isFalse(is({ result: { kind: "rename" }, text: "" }))
    assert.isFalse(is({ result: LspResult.hover(null) }))
  })
})
