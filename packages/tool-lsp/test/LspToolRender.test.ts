import { assert, describe, it } from "@effect/vitest"
import { LspResult } from "@lsp-seam/lsp"
import * as FastCheck from "effect/FastCheck"
import * as LspToolRender from "../src/LspToolRender.js"

const at = (uri: string, line: number, character: number): LspResult.LspLocation => ({
  uri,
  range: { start: { line, character }, end: { line, character: character + 3 } }
})

const roomy = { maxLocations: 100, maxResultChars: 16_000 }

describe("LspToolRender locations", () => {
  it("renders one-based range starts, grouped by file in order of first appearance", () => {
    const result = LspResult.locations([
      at("file:///w/b.ts", 9, 0),
      at("file:///w/a.ts", 0, 4),
      at("file:///w/b.ts", 2, 1),
      at("file:///lib/x.d.ts", 5, 5),
      at("file:///w/a.ts", 7, 2),
      at("file:///w/b.ts", 1, 0)
    ], "file:///w")
    assert.strictEqual(
      LspToolRender.render(result, roomy),
      [
        "b.ts:10:1",
        "b.ts:3:2",
        "b.ts:2:1",
        "a.ts:1:5",
        "a.ts:8:3",
        "/lib/x.d.ts:6:6"
      ].join("\n")
    )
  })

  it("groups by the rendered path, so differently encoded URIs of one file stay together", () => {
    const result = LspResult.locations([
      at("file:///w/a.ts", 0, 0),
      at("file:///w/b.ts", 0, 0),
      at("file:///w/%61.ts", 1, 0)
    ], "file:///w")
    assert.strictEqual(LspToolRender.render(result, roomy), "a.ts:1:1\na.ts:2:1\nb.ts:1:1")
  })

  it("renders other URIs verbatim", () => {
    const result = LspResult.locations([at("jdt://x/String.class", 0, 0)], "file:///w")
    assert.strictEqual(LspToolRender.render(result, roomy), "jdt://x/String.class:1:1")
  })

  it("says No results. for an empty answer", () => {
    assert.strictEqual(LspToolRender.render(LspResult.locations([], "file:///w"), roomy), "No results.")
  })

  it("omits locations past maxLocations and says how many, singular and plural", () => {
    const locations = Array.from({ length: 5 }, (_, i) => at("file:///w/a.ts", i, 0))
    const result = LspResult.locations(locations, "file:///w")
    assert.strictEqual(
      LspToolRender.render(result, { ...roomy, maxLocations: 4 }),
      "a.ts:1:1\na.ts:2:1\na.ts:3:1\na.ts:4:1\n1 more location omitted (limit: 4).\nNot shown, by file: a.ts (1)."
    )
    assert.strictEqual(
      LspToolRender.render(result, { ...roomy, maxLocations: 2 }),
      "a.ts:1:1\na.ts:2:1\n3 more locations omitted (limit: 2).\nNot shown, by file: a.ts (3)."
    )
    assert.strictEqual(LspToolRender.render(result, { ...roomy, maxLocations: 5 }).split("\n").length, 5)
  })

  it("applies maxLocations after grouping: the omitted ones are the tail of the grouped list, named by file", () => {
    const result = LspResult.locations([
      at("file:///w/a.ts", 0, 0),
      at("file:///w/b.ts", 0, 0),
      at("file:///w/a.ts", 1, 0)
    ], "file:///w")
    assert.strictEqual(
      LspToolRender.render(result, { ...roomy, maxLocations: 2 }),
      "a.ts:1:1\na.ts:2:1\n1 more location omitted (limit: 2).\nNot shown, by file: b.ts (1)."
    )
  })

  it("renders a 1,000,000-character URI and still honours the character cap", () => {
    const name = "n".repeat(1_000_000)
    const result = LspResult.locations([at(`file:///w/${name}.ts`, 0, 0), at("file:///w/a.ts", 0, 0)], "file:///w")
    const full = LspToolRender.render(result, { ...roomy, maxResultChars: 2_000_000 })
    assert.strictEqual(full, `${name}.ts:1:1\na.ts:1:1`)
    const capped = LspToolRender.render(result, roomy)
    assert.strictEqual(capped.length, 16_000)
    assert.isTrue(capped.startsWith("nnnn"))
    assert.isTrue(capped.endsWith(`\n[truncated: ${full.length} characters in total, limit 16000]`))
  })
})

describe("LspToolRender hover", () => {
  it("renders the contents as they are", () => {
    const contents = "```ts\nfunction f(): void\n```\n\nDocs."
    assert.strictEqual(LspToolRender.render(LspResult.hover({ contents }), roomy), contents)
  })

  it("says No hover information. for null, empty or blank contents", () => {
    assert.strictEqual(LspToolRender.render(LspResult.hover(null), roomy), "No hover information.")
    assert.strictEqual(LspToolRender.render(LspResult.hover({ contents: "" }), roomy), "No hover information.")
    assert.strictEqual(LspToolRender.render(LspResult.hover({ contents: " \n\t" }), roomy), "No hover information.")
  })

  it("is not affected by maxLocations", () => {
    const contents = "a\nb\nc"
    assert.strictEqual(LspToolRender.render(LspResult.hover({ contents }), { ...roomy, maxLocations: 1 }), contents)
  })
})

describe("LspToolRender.truncate", () => {
  it("leaves a text at or below the cap alone", () => {
    assert.strictEqual(LspToolRender.truncate("abc", 3), "abc")
    assert.strictEqual(LspToolRender.truncate("", 1), "")
  })

  it("cuts a longer text so that text, newline and notice are exactly the cap", () => {
    const text = "x".repeat(100)
    const notice = "[truncated: 100 characters in total, limit 60]"
    const out = LspToolRender.truncate(text, 60)
    assert.strictEqual(out.length, 60)
    assert.strictEqual(out, `${"x".repeat(60 - notice.length - 1)}\n${notice}`)
  })

  it("returns the notice cut to the cap when the notice alone does not fit", () => {
    const text = "x".repeat(100)
    for (const cap of [1, 5, 20, 43]) {
      const notice = `[truncated: 100 characters in total, limit ${cap}]`
      const out = LspToolRender.truncate(text, cap)
      assert.strictEqual(out.length, cap)
      assert.strictEqual(out, notice.slice(0, cap))
    }
  })

  it("handles the caps where only the notice and its newline fit", () => {
    const text = "x".repeat(100)
    const notice = "[truncated: 100 characters in total, limit 45]"
    assert.strictEqual(notice.length, 46)
    const exact = LspToolRender.truncate(text, 46)
    assert.strictEqual(exact, "[truncated: 100 characters in total, limit 46]")
    const withNewline = LspToolRender.truncate(text, 47)
    assert.strictEqual(withNewline, "\n[truncated: 100 characters in total, limit 47]")
  })

  it("never splits a surrogate pair", () => {
    const notice = "[truncated: 100 characters in total, limit 60]"
    const keep = 60 - notice.length - 1
    const text = "a".repeat(keep - 1) + "😀".repeat((100 - (keep - 1)) / 2)
    assert.strictEqual(text.length, 100)
    const out = LspToolRender.truncate(text, 60)
    assert.strictEqual(out.length, 60)
    assert.strictEqual(out, `${"a".repeat(keep - 1)}…\n${notice}`)
  })

  it.prop(
    "is never longer than the cap, exact when cut, and a prefix-preserving cut otherwise",
    [FastCheck.string({ unit: "binary", maxLength: 300, size: "max" }), FastCheck.integer({ min: 1, max: 400 })],
    ([text, cap]) => {
      const out = LspToolRender.truncate(text, cap)
      if (text.length <= cap) {
        assert.strictEqual(out, text)
      } else {
        assert.strictEqual(out.length, cap)
        const notice = LspToolRender.truncationNotice(text.length, cap)
        if (notice.length < cap) {
          assert.isTrue(out.endsWith(`\n${notice}`))
          const kept = out.slice(0, cap - notice.length - 1)
          assert.isTrue(text.startsWith(kept) || text.startsWith(kept.slice(0, -1)))
        }
      }
    }
  )
})

describe("LspToolRender caps together", () => {
  it("counts the omission lines inside the character cap", () => {
    const locations = Array.from({ length: 50 }, (_, i) => at("file:///w/src/file.ts", i, 0))
    const result = LspResult.locations(locations, "file:///w")
    const uncapped = LspToolRender.render(result, { maxLocations: 10, maxResultChars: 10_000 })
    assert.isTrue(uncapped.endsWith("\n40 more locations omitted (limit: 10).\nNot shown, by file: src/file.ts (40)."))
    const capped = LspToolRender.render(result, { maxLocations: 10, maxResultChars: uncapped.length - 1 })
    assert.strictEqual(capped.length, uncapped.length - 1)
    assert.isTrue(capped.endsWith(`[truncated: ${uncapped.length} characters in total, limit ${uncapped.length - 1}]`))
    // Cut by one character, the text loses its last line, the one naming where the omitted ones are.
    assert.isFalse(capped.includes("Not shown"))
    assert.strictEqual(LspToolRender.render(result, { maxLocations: 10, maxResultChars: uncapped.length }), uncapped)
  })

  it("caps hover text too", () => {
    const contents = "d".repeat(20_000)
    const out = LspToolRender.render(LspResult.hover({ contents }), roomy)
    assert.strictEqual(out.length, 16_000)
    assert.isTrue(out.endsWith("\n[truncated: 20000 characters in total, limit 16000]"))
  })
})
