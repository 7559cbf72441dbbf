import { assert, describe, it } from "@effect/vitest"
import { LspQuery } from "@lsp-seam/lsp"
import * as LspToolPrompt from "../src/LspToolPrompt.js"

// 0.1.0's guidance, taken from git: with exactly the reference's four operations the text must not change.
const reference = "Use search/read for ordinary navigation. Use lsp when textual matches are ambiguous or before a " +
  "change requires precise definitions, implementations, or references. Positions are one-based line and " +
  "character (UTF-16) at the cursor; an off-symbol position may return no results. Or pass symbol, the " +
  "identifier's name, with its line instead of counting columns. findReferences always includes the " +
  "declaration."

describe("LspToolPrompt", () => {
  it("with exactly the reference's four operations, is 0.1.0's section verbatim", () => {
    assert.deepStrictEqual(LspToolPrompt.sectionFor(LspQuery.referenceOperations), {
      name: "lsp",
      order: 112,
      text: reference
    })
    assert.strictEqual(
      LspToolPrompt.textFor(["hover", "findReferences", "goToImplementation", "goToDefinition"]),
      reference
    )
  })

  it("by default adds one short sentence per added capability", () => {
    assert.deepStrictEqual(LspToolPrompt.section, { name: "lsp", order: 112, text: LspToolPrompt.text })
    assert.strictEqual(
      LspToolPrompt.text,
      `${reference} goToTypeDefinition jumps from a value to its type's declaration. incomingCalls and ` +
        "outgoingCalls list a function's callers and callees. documentSymbol outlines a file without reading it. " +
        "workspaceSymbol finds a declaration by name when its file is unknown. After editing a file, ask lsp for its " +
        "diagnostics. Pass include_body: true to get a definition's or symbol's code in the same call, not a file " +
        "read. To rename, renamePreview lists every edit the rename needs, writing nothing: apply them with your " +
        "edit tool. Before changing a function, impact shows what depends on it in one call: its uses, their " +
        "callers, the tests."
    )
  })

  it("leaves out what the tool does not offer", () => {
    assert.strictEqual(
      LspToolPrompt.textFor(["workspaceSymbol", "incomingCalls"]),
      "Use search/read for ordinary navigation. Use lsp when textual matches are ambiguous or before a change " +
        "requires precise definitions, implementations, or references. Positions are one-based line and character " +
        "(UTF-16) at the cursor; an off-symbol position may return no results. Or pass symbol, the identifier's " +
        "name, with its line instead of counting columns. incomingCalls lists a function's callers. " +
        "workspaceSymbol finds a declaration by name when its file is unknown. Pass include_body: true to get a " +
        "definition's or symbol's code in the same call, not a file read."
    )
    assert.notInclude(LspToolPrompt.textFor(["documentSymbol"]), "Positions are")
  })
})
