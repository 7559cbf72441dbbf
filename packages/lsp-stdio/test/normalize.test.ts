import { assert, describe, it } from "@effect/vitest"
import type { LspError } from "@lsp-seam/lsp"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Option from "effect/Option"
import { codeBlock, normalizeHover, normalizeLocations } from "../src/internal/answers/normalize.js"

const range = (a: number, b: number, c: number, d: number) => ({
  start: { line: a, character: b },
  end: { line: c, character: d }
})
const r1 = range(1, 2, 1, 5)
const r2 = range(3, 0, 4, 1)
const location = (uri: string, r = r1) => ({ uri, range: r })
const link = (uri: string, selection = r1, full = r2) => ({
  targetUri: uri,
  targetRange: full,
  targetSelectionRange: selection
})

const right = <A>(result: Either.Either<A, LspError.LspError>): A => {
  if (Either.isLeft(result)) assert.fail(`expected success, got ${result.left.code}: ${result.left.message}`)
  return result.right
}

const left = <A>(result: Either.Either<A, LspError.LspError>, ...fragments: Array<string>): LspError.LspError => {
  if (Either.isRight(result)) assert.fail(`expected LSP_MALFORMED_RESPONSE, got ${JSON.stringify(result.right)}`)
  assert.strictEqual(result.left.code, "LSP_MALFORMED_RESPONSE")
  for (const fragment of fragments) assert.include(result.left.message, fragment)
  return result.left
}

describe("normalizeLocations", () => {
  describe("accepts", () => {
    const cases: Array<[string, unknown, unknown]> = [
      ["null", null, []],
      ["Some(null)", Option.some(null), []],
      ["an empty array", [], []],
      ["one Location", location("file:///a.ts"), [location("file:///a.ts")]],
      ["Location[] in order", [location("file:///b.ts", r2), location("file:///a.ts")], [
        location("file:///b.ts", r2),
        location("file:///a.ts")
      ]],
      ["LocationLink[] via targetUri + targetSelectionRange", [
        link("file:///a.ts", r1, r2),
        link("file:///c.ts", r2, r2)
      ], [
        location("file:///a.ts", r1),
        location("file:///c.ts", r2)
      ]],
      ["Location and LocationLink mixed, each read by its shape, in order", [
        location("file:///a.ts", r2),
        link("file:///b.ts", r1, r2),
        location("file:///c.ts")
      ], [
        location("file:///a.ts", r2),
        location("file:///b.ts", r1),
        location("file:///c.ts")
      ]],
      ["a LocationLink with originSelectionRange", [{ ...link("file:///a.ts"), originSelectionRange: r2 }], [
        location("file:///a.ts")
      ]],
      ["extra fields, ignored", [{ ...location("untitled:x"), extra: 1 }], [location("untitled:x")]],
      ["zero positions and large ones", [location("file:///z", range(0, 0, 2_147_483_647, 0))], [
        location("file:///z", range(0, 0, 2_147_483_647, 0))
      ]]
    ]
    for (const [name, raw, expected] of cases) {
      it(name, () => {
        assert.deepStrictEqual(right(normalizeLocations(raw, "goToDefinition")), expected)
      })
    }

    it("strips unknown fields from the output", () => {
      const [first] = right(normalizeLocations([{ ...location("file:///a"), extra: true }], "findReferences"))
      assert.deepStrictEqual(Object.keys(first!), ["uri", "range"])
    })
  })

  describe("rejects", () => {
    const cases: Array<[string, unknown, ReadonlyArray<string>]> = [
      ["a missing result (None)", Option.none(), ["no result"]],
      ["undefined", undefined, ["no result"]],
      ["a string", "file:///a.ts", ["got a value of type string"]],
      ["a number", 1, ["got a value of type number"]],
      ["a single LocationLink", link("file:///a.ts"), ["single LocationLink"]],
      ["a negative line", [location("file:///a", range(-1, 0, 0, 0))], ["result[0].range.start.line"]],
      ["a negative character", location("file:///a", range(0, 0, 0, -3)), ["result.range.end.character"]],
      ["a fractional position", [location("file:///a"), location("file:///b", range(0, 1.5, 0, 2))], [
        "result[1].range.start.character"
      ]],
      ["a string position", [{
        uri: "file:///a",
        range: { start: { line: "1", character: 0 }, end: { line: 1, character: 0 } }
      }], [
        "result[0].range.start.line"
      ]],
      ["NaN", [location("file:///a", range(Number.NaN, 0, 0, 0))], ["result[0].range.start.line"]],
      ["a missing range", [{ uri: "file:///a" }], ["result[0].range", "is missing"]],
      ["a missing end", [{ uri: "file:///a", range: { start: { line: 0, character: 0 } } }], ["result[0].range.end"]],
      ["a missing character", [{ uri: "file:///a", range: { start: { line: 0 }, end: { line: 0, character: 0 } } }], [
        "result[0].range.start.character"
      ]],
      ["a null range", [{ uri: "file:///a", range: null }], ["result[0].range"]],
      ["a numeric uri", [{ uri: 5, range: r1 }], ["result[0].uri"]],
      ["an empty uri", [location("")], ["result[0].uri"]],
      ["a link without targetSelectionRange", [{ targetUri: "file:///a", targetRange: r1 }], [
        "result[0].targetSelectionRange"
      ]],
      ["a link without targetRange", [{ targetUri: "file:///a", targetSelectionRange: r1 }], ["result[0].targetRange"]],
      ["a link with a malformed originSelectionRange", [{
        ...link("file:///a"),
        originSelectionRange: range(0, -1, 0, 0)
      }], ["result[0].originSelectionRange"]],
      ["a link with a non-string targetUri", [{ ...link("file:///a"), targetUri: null }], ["result[0].targetUri"]],
      ["a mixed array whose LocationLink is malformed", [location("file:///a"), { targetUri: "file:///b" }], [
        "result[1].targetRange"
      ]],
      ["a null entry", [location("file:///a"), null], ["result[1] is neither"]],
      ["a string entry", ["file:///a"], ["result[0] is neither"]],
      ["a nested array", [[location("file:///a")]], ["result[0] is neither"]]
    ]
    for (const [name, raw, fragments] of cases) {
      it(name, () => {
        const error = left(normalizeLocations(raw, "goToImplementation"), "textDocument/implementation", ...fragments)
        assert.strictEqual(error.detail?.operation, "goToImplementation")
      })
    }

    it("names the method of each operation", () => {
      left(normalizeLocations(1, "goToDefinition"), "textDocument/definition")
      left(normalizeLocations(1, "findReferences"), "textDocument/references")
    })
  })

  it.prop("valid Location arrays normalise to themselves", {
    entries: FastCheck.array(
      FastCheck.record({
        uri: FastCheck.string({ minLength: 1 }),
        range: FastCheck.record({
          start: FastCheck.record({ line: FastCheck.nat(), character: FastCheck.nat() }),
          end: FastCheck.record({ line: FastCheck.nat(), character: FastCheck.nat() })
        })
      })
    )
  }, ({ entries }) => {
    assert.deepStrictEqual(right(normalizeLocations(entries, "findReferences")), entries)
  })
})

describe("normalizeHover", () => {
  describe("accepts", () => {
    const cases: Array<[string, unknown, unknown]> = [
      ["null", null, null],
      ["MarkupContent markdown", { contents: { kind: "markdown", value: "**x**" } }, { contents: "**x**" }],
      ["MarkupContent plaintext, verbatim", { contents: { kind: "plaintext", value: "  a < b  " } }, {
        contents: "  a < b  "
      }],
      ["empty MarkupContent", { contents: { kind: "markdown", value: "" } }, null],
      ["whitespace-only MarkupContent", { contents: { kind: "markdown", value: " \n " } }, null],
      ["a MarkedString string, as is", { contents: "const x: number" }, { contents: "const x: number" }],
      ["an empty MarkedString string", { contents: "" }, null],
      ["{ language, value }", { contents: { language: "typescript", value: "const x: number" } }, {
        contents: "```typescript\nconst x: number\n```"
      }],
      ["{ language, value } ending in a newline", { contents: { language: "ts", value: "a\n" } }, {
        contents: "```ts\na\n```"
      }],
      ["{ language, value } with backticks inside", { contents: { language: "md", value: "x ```` y `" } }, {
        contents: "`````md\nx ```` y `\n`````"
      }],
      ["{ language, value } with an unsafe language", { contents: { language: "type script`", value: "a" } }, {
        contents: "```\na\n```"
      }],
      ["{ language, value } with an empty value", { contents: { language: "ts", value: "" } }, null],
      ["an array joined with one blank line", { contents: ["first", { language: "ts", value: "let a" }, "last"] }, {
        contents: "first\n\n```ts\nlet a\n```\n\nlast"
      }],
      ["an array skipping empty parts", { contents: ["", "only", { language: "ts", value: "" }, "  "] }, {
        contents: "only"
      }],
      ["an all-empty array", { contents: ["", { language: "ts", value: "" }] }, null],
      ["an empty array", { contents: [] }, null],
      ["a valid range", { contents: "x", range: r1 }, { contents: "x", range: r1 }],
      ["Some(hover)", Option.some({ contents: "x" }), { contents: "x" }],
      ["empty contents with a range", { contents: "", range: r1 }, null]
    ]
    for (const [name, raw, expected] of cases) {
      it(name, () => {
        assert.deepStrictEqual(right(normalizeHover(raw)), expected)
      })
    }
  })

  describe("rejects", () => {
    const cases: Array<[string, unknown, ReadonlyArray<string>]> = [
      ["a missing result (None)", Option.none(), ["no result"]],
      ["a string result", "hover", ["expected null or a Hover object"]],
      ["an array result", [{ contents: "x" }], ["expected null or a Hover object"]],
      ["missing contents", { range: r1 }, ["result.contents is missing"]],
      ["null contents", { contents: null }, ["result.contents"]],
      ["numeric contents", { contents: 5 }, ["result.contents"]],
      ["MarkupContent with an unknown kind", { contents: { kind: "html", value: "<b>" } }, [
        "result.contents.kind: Expected \"plaintext\" or \"markdown\", actual \"html\""
      ]],
      ["MarkupContent without value", { contents: { kind: "markdown" } }, ["result.contents.value"]],
      ["{ language } without value", { contents: { language: "ts" } }, ["result.contents.value"]],
      ["{ value } without language", { contents: { value: "x" } }, ["result.contents.language"]],
      ["MarkupContent inside an array", { contents: ["a", { kind: "markdown", value: "b" }] }, [
        "result.contents[1]",
        "MarkupContent"
      ]],
      ["a number inside an array", { contents: ["a", 1] }, ["result.contents[1]"]],
      ["a negative range", { contents: "x", range: range(0, -1, 0, 0) }, ["result.range.start.character"]],
      ["a fractional range", { contents: "x", range: range(0, 0, 0.5, 0) }, ["result.range.end.line"]],
      ["a range without end", { contents: "x", range: { start: { line: 0, character: 0 } } }, ["result.range.end"]],
      ["a null range", { contents: "x", range: null }, ["result.range"]],
      ["a malformed range even when contents are empty", { contents: "", range: "0:0" }, ["result.range"]]
    ]
    for (const [name, raw, fragments] of cases) {
      it(name, () => {
        left(normalizeHover(raw), "textDocument/hover", ...fragments)
      })
    }
  })

  it.prop("a code block's fence is never closed early by its content", {
    code: FastCheck.stringMatching(/^[`a\n]*$/)
  }, ({ code }) => {
    const block = codeBlock("ts", code)
    const fence = /^(`+)ts\n/.exec(block)![1]!
    assert.isTrue(fence.length >= 3)
    assert.notInclude(code, fence)
    assert.isTrue(block.endsWith(`\n${fence}`))
  })
})
