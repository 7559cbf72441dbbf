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

  it("titles a rename preview with the new name", () => {
    assert.deepStrictEqual(
      LspToolCard.make({ operation: "renamePreview", file_path: "src/a.ts", line: 12, character: 5, new_name: "g" }),
      {
        card: "generic",
        kind: "search",
        title: "LSP renamePreview src/a.ts:12:5 → g",
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

  it("titles documentSymbol by its file and workspaceSymbol by its query, without a location", () => {
    assert.deepStrictEqual(LspToolCard.make({ operation: "documentSymbol", file_path: "src/a.ts", line: 4 }), {
      card: "generic",
      kind: "search",
      title: "LSP documentSymbol src/a.ts",
      locations: []
    })
    assert.deepStrictEqual(LspToolCard.make({ operation: "workspaceSymbol", query: "Circle", file_path: "a.ts" }), {
      card: "generic",
      kind: "search",
      title: "LSP workspaceSymbol \"Circle\"",
      locations: []
    })
    assert.strictEqual(LspToolCard.make({ operation: "workspaceSymbol" }).title, "LSP workspaceSymbol \"?\"")
    assert.strictEqual(LspToolCard.make({ operation: "documentSymbol" }).title, "LSP documentSymbol ?")
  })

  it("titles the call hierarchy as any position operation", () => {
    assert.deepStrictEqual(
      LspToolCard.make({ operation: "incomingCalls", file_path: "m.ts", line: 1, character: 17 }),
      {
        card: "generic",
        kind: "search",
        title: "LSP incomingCalls m.ts:1:17",
        locations: [{ path: "m.ts", line: 1 }]
      }
    )
  })
})
