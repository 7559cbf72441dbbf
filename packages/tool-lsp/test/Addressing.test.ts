import { assert, describe, it } from "@effect/vitest"
import { LspIdentifiers, LspProvider, LspQuery, LspResult, LspService } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LspSession from "../src/LspSession.js"
import * as LspToolHandler from "../src/LspToolHandler.js"
import * as LspToolRender from "../src/LspToolRender.js"

// A provider that does what a host does with the document text: locate the position (by symbol or as given),
// answer there, and annotate the answer. Its "server" treats every identifier lexically.
const text = [
  "export function add(a, b) {", // 1
  "  return a + b", // 2
  "}", // 3
  "const label = \"add: 😀\"; const total = add(1, 2) + add(3, 4)", // 4
  "", // 5
  "", // 6
  "// call later", // 7
  "", // 8
  "export { total }" // 9
].join("\n")

const workspaceUri = "file:///w"

const answer = (
  operation: LspQuery.LspOperation,
  lines: ReadonlyArray<string>,
  position: LspQuery.LspPosition
): LspResult.LspQueryResult => {
  const at = LspIdentifiers.identifiersOn(lines[position.line]!).find((id) =>
    id.character <= position.character && position.character <= id.character + id.name.length
  )
  if (operation === "hover") return LspResult.hover(at === undefined ? null : { contents: `hover ${at.name}` })
  if (at === undefined) return LspResult.locations([], workspaceUri)
  return LspResult.locations(
    lines.flatMap((line, n) =>
      LspIdentifiers.identifiersOn(line).filter((id) => id.name === at.name).map((id) => ({
        uri: `${workspaceUri}/m.js`,
        range: {
          start: { line: n, character: id.character },
          end: { line: n, character: id.character + id.name.length }
        }
      }))
    ),
    workspaceUri
  )
}

const provider = LspProvider.make({
  id: "lexical",
  extensionToLanguage: { js: "javascript" },
  query: (q) =>
    Effect.gen(function*() {
      if (!LspQuery.isPositionRequest(q)) return yield* Effect.die("position operations only")
      const lines = LspIdentifiers.splitLines(text)
      const located = yield* LspIdentifiers.locate(lines, q.position, q.symbol)
      return LspIdentifiers.annotate(answer(q.operation, lines, located.position), lines, located)
    })
})

const environment = LspService.layerProvider(provider).pipe(
  Layer.provideMerge(LspService.layer),
  Layer.merge(LspSession.layer("/w"))
)

const run = (args: Record<string, unknown>) => LspToolHandler.runUnknown({ file_path: "m.js", ...args })

describe("the lsp tool addressing by symbol", () => {
  it.effect("finds the symbol on the line and echoes it when no character was given", () =>
    Effect.gen(function*() {
      const output = yield* run({ operation: "hover", line: 1, symbol: "add" })
      assert.strictEqual(output.text, "Resolved `add` to m.js:1:17.\nhover add")
      assert.deepStrictEqual(output.result.resolved, {
        symbol: "add",
        position: { line: 0, character: 16 },
        requested: { line: 0, character: 0 },
        occurrences: 1
      })
    }).pipe(Effect.provide(environment)))

  it.effect("does not echo when the symbol is exactly where the model pointed", () =>
    Effect.gen(function*() {
      const output = yield* run({ operation: "hover", line: 1, character: 17, symbol: "add" })
      assert.strictEqual(output.text, "hover add")
      assert.isDefined(output.result.resolved)
    }).pipe(Effect.provide(environment)))

  it.effect("moves to a nearby line and says where", () =>
    Effect.gen(function*() {
      const output = yield* run({ operation: "hover", line: 2, character: 3, symbol: "add" })
      assert.strictEqual(output.text, "Resolved `add` to m.js:1:17.\nhover add")
      const below = yield* run({ operation: "goToDefinition", line: 6, symbol: "total" })
      assert.strictEqual(below.text, "Resolved `total` to m.js:4:32.\nm.js:4:32\nm.js:9:10")
    }).pipe(Effect.provide(environment)))

  it.effect("with several occurrences, takes the first in code without character — past the one in a string", () =>
    Effect.gen(function*() {
      // `add` inside the string literal is skipped: the line has it in code.
      const first = yield* run({ operation: "hover", line: 4, symbol: "add" })
      assert.strictEqual(
        first.text,
        "Resolved `add` to m.js:4:40 (2 occurrences on that line; character chooses among them).\nhover add"
      )
      const near = yield* run({ operation: "findReferences", line: 4, character: 41, symbol: "add" })
      // UTF-16 columns: the emoji before the call counts 2.
      assert.strictEqual(
        near.text,
        "Resolved `add` to m.js:4:40 (2 occurrences on that line; character chooses among them).\n" +
          "m.js:1:17\nm.js:4:16\nm.js:4:40\nm.js:4:52"
      )
      // 39 UTF-16 code units before it, 38 code points.
      assert.strictEqual(text.split("\n")[3]!.slice(39, 42), "add")
    }).pipe(Effect.provide(environment)))

  it.effect("says so when the name is only in a string or a comment near the line", () =>
    Effect.gen(function*() {
      // The only `later` is in the comment on line 7.
      const result = yield* run({ operation: "hover", line: 7, character: 1, symbol: "later" })
      assert.strictEqual(
        result.text.split("\n")[0],
        "Resolved `later` to m.js:7:9. It is inside a string or a comment there: no line within 3 has it in code, so " +
          "the answer may be empty."
      )
    }).pipe(Effect.provide(environment)))

  it.effect("fails with LSP_SYMBOL_NOT_FOUND listing the line's identifiers with one-based columns", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(run({ operation: "hover", line: 2, symbol: "subtract" }))
      assert.strictEqual(error.code, "LSP_SYMBOL_NOT_FOUND")
      assert.strictEqual(
        error.message,
        "`subtract` does not occur as a whole identifier on line 2 or within 3 lines of it (lines 1-5); " +
          "identifiers on line 2: return (column 3), a (column 10), b (column 14). " +
          "Check the name and the line (read the file), or send character without symbol."
      )
    }).pipe(Effect.provide(environment)))

  it.effect("refuses an out-of-range line or character with LSP_POSITION_OUT_OF_RANGE", () =>
    Effect.gen(function*() {
      const line = yield* Effect.flip(run({ operation: "hover", line: 12, character: 1 }))
      assert.strictEqual(line.code, "LSP_POSITION_OUT_OF_RANGE")
      assert.strictEqual(
        line.message,
        "Line 12 is past the end of the file, which has 9 lines: give a line from 1 to 9."
      )
      const character = yield* Effect.flip(run({ operation: "hover", line: 3, character: 3 }))
      assert.strictEqual(
        character.message,
        "Column 3 is past the end of line 3, which has 1 character (UTF-16 code units): give a column from 1 to 2."
      )
      const bySymbol = yield* Effect.flip(run({ operation: "hover", line: 10, symbol: "total" }))
      assert.strictEqual(bySymbol.code, "LSP_POSITION_OUT_OF_RANGE")
    }).pipe(Effect.provide(environment)))

  it.effect("uses a position without symbol exactly as given, and explains an empty answer off any identifier", () =>
    Effect.gen(function*() {
      const hover = yield* run({ operation: "hover", line: 1, character: 26 })
      assert.strictEqual(
        hover.text,
        "No hover information. Line 1, column 26 is not on an identifier; identifiers on line 1: export (column 1), " +
          "function (column 8), add (column 17), a (column 21), b (column 24)."
      )
      assert.deepStrictEqual(hover.result.offIdentifier?.character, 25)
      const empty = yield* run({ operation: "findReferences", line: 3, character: 1 })
      assert.strictEqual(
        empty.text,
        "No results. Line 3, column 1 is not on an identifier; line 3 has no identifiers."
      )
      // On an identifier an empty answer is only "No results.": no claim about the position.
      const onName = yield* run({ operation: "hover", line: 1, character: 17 })
      assert.strictEqual(onName.text, "hover add")
    }).pipe(Effect.provide(environment)))
})

describe("LspToolRender of the new result fields", () => {
  const roomy = { maxLocations: 100, maxResultChars: 16_000 }
  const request = { file_path: "src/m.js", line: 1, symbol: "add" }
  const resolved: LspResult.Resolved = {
    symbol: "add",
    position: { line: 0, character: 16 },
    requested: { line: 0, character: 0 },
    occurrences: 1
  }
  const noProject: LspResult.IncompleteReason = {
    reason: "no-project",
    message: "No tsconfig.json covers this file,\nso other files were not searched. Add one to see them."
  }

  it("puts the resolution line first, then one line per incomplete reason, then the answer", () => {
    const result = LspResult.withResolved(
      LspResult.markIncomplete(LspResult.markIncomplete(LspResult.hover({ contents: "x" })), noProject),
      resolved
    )
    assert.strictEqual(
      LspToolRender.render(result, roomy, request),
      "Resolved `add` to src/m.js:1:17.\n" +
        `${LspToolRender.incompleteNote}\n` +
        "Incomplete (no-project): No tsconfig.json covers this file, so other files were not searched. Add one to " +
        "see them.\n" +
        "x"
    )
  })

  it("keeps the readiness note for results that only say incomplete: true", () => {
    assert.strictEqual(
      LspToolRender.render({ ...LspResult.hover(null), incomplete: true }, roomy),
      `${LspToolRender.incompleteNote}\nNo hover information.`
    )
    assert.strictEqual(
      LspToolRender.incompleteNote,
      `Incomplete (readiness): ${LspResult.readinessMessage}`
    )
  })

  it("keeps the header lines and the cap when the answer is cut", () => {
    const result = LspResult.withResolved(
      LspResult.markIncomplete(LspResult.hover({ contents: "y".repeat(5_000) }), noProject),
      resolved
    )
    const text = LspToolRender.render(result, { ...roomy, maxResultChars: 500 }, request)
    assert.strictEqual(text.length, 500)
    assert.isTrue(text.startsWith("Resolved `add` to src/m.js:1:17.\nIncomplete (no-project): "))
    assert.isTrue(text.endsWith("limit 500]"))
  })

  it("without the request, echoes only a moved or chosen position, as line and column", () => {
    const inPlace = { ...resolved, requested: resolved.position }
    assert.strictEqual(
      LspToolRender.render(LspResult.withResolved(LspResult.hover({ contents: "x" }), inPlace), roomy),
      "x"
    )
    const moved = { ...resolved, position: { line: 2, character: 4 } }
    assert.strictEqual(
      LspToolRender.render(LspResult.withResolved(LspResult.hover({ contents: "x" }), moved), roomy),
      "Resolved `add` to line 3, column 5.\nx"
    )
  })

  it("says so when the provider ignored symbol, instead of looking resolved", () => {
    assert.strictEqual(
      LspToolRender.render(LspResult.hover({ contents: "x" }), roomy, request),
      "Note: `add` was not resolved by the language server's provider; this answer is for src/m.js:1:1 as given.\nx"
    )
  })

  it("explains only empty answers, and caps the identifier list", () => {
    const off: LspResult.OffIdentifier = {
      line: 0,
      character: 0,
      identifiers: Array.from({ length: 32 }, (_, i) => ({ name: `v${i}`, character: i * 4 + 2 }))
    }
    const empty = LspToolRender.render(LspResult.withOffIdentifier(LspResult.locations([], "file:///w"), off), roomy)
    assert.isTrue(
      empty.startsWith("No results. Line 1, column 1 is not on an identifier; identifiers on line 1: v0 (column 3), ")
    )
    assert.isTrue(empty.endsWith("v29 (column 119), … and 2 more."))
    // A provider that sets it on a non-empty answer is not believed.
    assert.strictEqual(
      LspToolRender.render(LspResult.withOffIdentifier(LspResult.hover({ contents: "x" }), off), roomy),
      "x"
    )
  })
})
