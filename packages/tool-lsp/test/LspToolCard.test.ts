import { assert, describe, it } from "@effect/vitest"
import * as LspToolCard from "../src/LspToolCard.js"

describe("LspToolCard", () => {
  it("is a generic search card titled with the operation and one-based cursor", () => {
    assert.deepStrictEqual(
      LspToolCard.make({ operation: "findReferences", file_path: "src/a.ts", line: 12, character: 5 }),
      {
        card: "generic",
        kind: "search",
        title: "LSP findReferences src/a.ts:12:5",
        locations: [{ path: "src/a.ts", line: 12 }]
      }
    )
  })

  it("keeps file_path as the model wrote it", () => {
    assert.deepStrictEqual(
      LspToolCard.make({ operation: "hover", file_path: "/abs/x.py", line: 1, character: 1 }).locations,
      [{ path: "/abs/x.py", line: 1 }]
    )
  })

  it("titles a call by symbol with the name when it gives no character", () => {
    assert.deepStrictEqual(LspToolCard.make({ operation: "hover", file_path: "m.js", line: 3, symbol: "add" }), {
      card: "generic",
      kind: "search",
      title: "LSP hover m.js:3 add",
      locations: [{ path: "m.js", line: 3 }]
    })
    assert.strictEqual(
      LspToolCard.make({ operation: "hover", file_path: "m.js", line: 3, character: 5, symbol: "add" }).title,
      "LSP hover m.js:3:5"
    )
  })

  it("draws invalid or missing arguments without throwing and without a location", () => {
    assert.deepStrictEqual(LspToolCard.make({ operation: "hover", file_path: "a.ts", line: 0, character: 2 }), {
      card: "generic",
      kind: "search",
      title: "LSP hover a.ts:0:2",
      locations: []
    })
    assert.deepStrictEqual(LspToolCard.make({ file_path: " ", line: 3 }), {
      card: "generic",
      kind: "search",
      title: "LSP ?  :3:?",
      locations: []
    })
    assert.deepStrictEqual(LspToolCard.make(null), {
      card: "generic",
      kind: "search",
      title: "LSP ? ?:?:?",
      locations: []
    })
    assert.strictEqual(LspToolCard.make({ operation: { x: 1 }, file_path: ["a"], line: 2.5 }).title, "LSP ? ?:2.5:?")
  })
})
