import { assert, describe, it } from "@effect/vitest"
import type { LspQuery } from "@lsp-seam/lsp"
import { statementEnd, syntaxOf, widener } from "../src/internal/host/statementEnd.js"

const python = syntaxOf("python")
const typescript = syntaxOf("typescript")

/** The name's range, as pyright gives a module-level assignment. */
const name = (line: number, character: number, length: number): LspQuery.LspRange => ({
  start: { line, character },
  end: { line, character: character + length }
})

/** The lines `widen` gives each declaration, as `first-last`. */
const widened = (text: string, declarations: ReadonlyArray<LspQuery.LspRange>, syntax = python) => {
  const lines = text.split("\n")
  const widen = widener(lines, declarations, syntax)
  return declarations.map((range) => {
    const { end, start } = widen(range)
    return `${start.line}-${end.line}`
  })
}

describe("statementEnd", () => {
  it("a Python assignment spans its brackets, its continuation lines and its triple-quoted string", () => {
    const text = [
      "SETTINGS = {", //       0
      "    \"depth\": 2,", //  1
      "}", //                  2
      "LIMIT = 3", //          3
      "MESSAGE = (", //        4
      "    \"a (\"  # a )", // 5
      ")", //                  6
      "PATTERN = \"(\" \\", // 7
      "    \"x\"", //          8
      "DOC = \"\"\"", //       9
      "first (", //           10
      "\"\"\"", //            11
      "NEXT = 1" //           12
    ].join("\n")
    const declarations = [name(0, 0, 8), name(3, 0, 5), name(4, 0, 7), name(7, 0, 7), name(9, 0, 3), name(12, 0, 4)]
    assert.deepStrictEqual(widened(text, declarations), ["0-2", "3-3", "4-6", "7-8", "9-11", "12-12"])
  })

  it("a class attribute inside a class: its own statement, not the next attribute", () => {
    const text = ["class Point:", "    origin = {", "        \"x\": 0,", "    }", "    size = 1"].join("\n")
    const declarations = [
      { start: { line: 0, character: 0 }, end: { line: 4, character: 12 } },
      name(1, 4, 6),
      name(4, 4, 4)
    ]
    assert.deepStrictEqual(widened(text, declarations), ["0-4", "1-3", "4-4"])
  })

  it("never reaches the line where the next declaration starts: unclosed by then, the server's range is kept", () => {
    const text = ["BROKEN = (", "    1,", "NEXT = 1", ")"].join("\n")
    assert.deepStrictEqual(widened(text, [name(0, 0, 6), name(2, 0, 4)]), ["0-0", "2-2"])
    // A closing bracket first: the range starts in the middle of something the scan cannot read.
    assert.isUndefined(statementEnd(["x = 1)", "y = (", ")"], name(0, 0, 1), 2, python))
  })

  it("a multi-line range is the server's whole declaration, and is kept", () => {
    const text = ["def f():", "    return g(", "", "x = 1)"].join("\n")
    const whole = { start: { line: 0, character: 0 }, end: { line: 1, character: 13 } }
    assert.deepStrictEqual(widened(text, [whole]), ["0-1"])
  })

  it("TypeScript: `//` and `/* */` are comments, a template literal spans lines, `#` is not a comment", () => {
    const text = [
      "export const a = { // }", // 0
      "  b: `${1}", //              1
      "  }`, /* ) */ c: this.#d", // 2
      "}", //                       3
      "export const z = 1" //       4
    ].join("\n")
    assert.deepStrictEqual(widened(text, [name(0, 13, 1), name(4, 13, 1)], typescript), ["0-3", "4-4"])
    // In Python `//` is division, not a comment: the bracket after it counts.
    assert.strictEqual(statementEnd(["x = (4 // 2", ")"], name(0, 0, 1), 1, python), 1)
  })
})
