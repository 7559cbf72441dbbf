import { assert, describe, it } from "@effect/vitest"
import * as LspToolPrompt from "../src/LspToolPrompt.js"

describe("LspToolPrompt", () => {
  it("is the lsp section at order 112 with the guidance verbatim", () => {
    assert.deepStrictEqual(LspToolPrompt.section, {
      name: "lsp",
      order: 112,
      text: "Use search/read for ordinary navigation. Use lsp when textual matches are ambiguous or before a " +
        "change requires precise definitions, implementations, or references. Positions are one-based line and " +
        "character (UTF-16) at the cursor; an off-symbol position may return no results. Or pass symbol, the " +
        "identifier's name, with its line instead of counting columns. findReferences always includes the " +
        "declaration."
    })
  })
})
