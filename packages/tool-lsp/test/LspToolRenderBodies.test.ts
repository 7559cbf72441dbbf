import { assert, describe, it } from "@effect/vitest"
import { LspResult } from "@lsp-seam/lsp"
import * as LspToolConfig from "../src/LspToolConfig.js"
import * as LspToolInput from "../src/LspToolInput.js"
import * as LspToolRender from "../src/LspToolRender.js"

const workspace = "file:///w"
const range = (line: number, from: number, toLine: number, to: number) => ({
  start: { line, character: from },
  end: { line: toLine, character: to }
})
const body = (line: number, text: string): LspResult.LspBody => ({
  range: range(line, 0, line + text.split("\n").length - 1, text.split("\n").at(-1)!.length),
  text
})

const scale = "export function scale(value: number): number {\n  return value * 2\n}"

describe("LspToolRender: bodies", () => {
  it("shows each location's code below it, indented, with one-based line numbers", () => {
    const result = LspResult.locations([
      { uri: "file:///w/geometry.ts", range: range(1, 16, 1, 21), body: body(1, scale) }
    ], workspace)
    assert.strictEqual(
      LspToolRender.render(result, LspToolConfig.defaults, { include_body: true }),
      [
        "geometry.ts:2:17",
        "    2  export function scale(value: number): number {",
        "    3    return value * 2",
        "    4  }"
      ].join("\n")
    )
  })

  it("cuts a body at maxBodyLines and says how many lines are left and where", () => {
    const text = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n")
    const result = LspResult.locations(
      [{ uri: "file:///w/a.ts", range: range(8, 0, 8, 1), body: body(8, text) }],
      workspace
    )
    const rendered = LspToolRender.render(result, { ...LspToolConfig.defaults, maxBodyLines: 3 }, {
      include_body: true
    })
    assert.strictEqual(
      rendered,
      [
        "a.ts:9:1",
        "     9  line 1",
        "    10  line 2",
        "    11  line 3",
        "    … 9 more lines not shown (maxBodyLines 3): read a.ts:12-20"
      ].join("\n")
    )
  })

  it("spends maxBodyBytes across the answer: later bodies are named by where they are", () => {
    const result = LspResult.locations([
      { uri: "file:///w/a.ts", range: range(0, 0, 0, 1), body: body(0, "abcdefgh\nijklmnop") },
      { uri: "file:///w/b.ts", range: range(4, 0, 4, 1), body: body(4, "qrstuvwx") }
    ], workspace)
    const rendered = LspToolRender.render(result, { ...LspToolConfig.defaults, maxBodyBytes: 12 }, {
      include_body: true
    })
    assert.strictEqual(
      rendered,
      [
        "a.ts:1:1",
        "    1  abcdefgh",
        "    … 1 more line not shown (maxBodyBytes 12 for the answer): read a.ts:2",
        "b.ts:5:1",
        "    … 1 more line not shown (maxBodyBytes 12 for the answer): read b.ts:5"
      ].join("\n")
    )
  })

  it("says when asked-for code is missing, and shows a member's code only once, within its class", () => {
    const cls = "class A {\n  m() {}\n}"
    const result = LspResult.symbols([
      {
        name: "A",
        kind: "Class",
        uri: "file:///w/a.ts",
        range: range(0, 0, 2, 1),
        selectionRange: range(0, 6, 0, 7),
        depth: 0,
        body: body(0, cls)
      },
      {
        name: "m",
        kind: "Method",
        uri: "file:///w/a.ts",
        range: range(1, 2, 1, 8),
        selectionRange: range(1, 2, 1, 3),
        depth: 1,
        body: body(1, "  m() {}")
      },
      {
        name: "B",
        kind: "Class",
        uri: "file:///elsewhere/b.ts",
        range: range(0, 0, 0, 9),
        selectionRange: range(0, 6, 0, 7)
      }
    ], workspace)
    assert.strictEqual(
      LspToolRender.render(result, LspToolConfig.defaults, { include_body: true }),
      [
        "a.ts:1:7  Class  A",
        "    1  class A {",
        "    2    m() {}",
        "    3  }",
        "  a.ts:2:3  Method  m",
        "/elsewhere/b.ts:1:7  Class  B",
        "    (no code: the file is outside the workspace, could not be read, or is past the first 20 files)"
      ].join("\n")
    )
  })

  it("without include_body, the text is as before", () => {
    const result = LspResult.locations([{ uri: "file:///w/a.ts", range: range(0, 0, 0, 1) }], workspace)
    assert.strictEqual(LspToolRender.render(result, LspToolConfig.defaults, {}), "a.ts:1:1")
  })
})

describe("LspToolRender: rename previews", () => {
  it("lists one line per edit, grouped by file, with a count; outside edits and file operations marked", () => {
    const result = LspResult.edits(
      [
        { uri: "file:///w/main.ts", range: range(1, 9, 1, 14), newText: "resize", oldText: "scale" },
        { uri: "file:///w/geometry.ts", range: range(1, 16, 1, 21), newText: "resize", oldText: "scale" },
        { uri: "file:///lib/x.d.ts", range: range(0, 0, 0, 5), newText: "resize", outsideWorkspace: true }
      ],
      [{ kind: "rename", uri: "file:///w/geometry.ts", newUri: "file:///w/resize.ts" }],
      workspace
    )
    assert.strictEqual(
      LspToolRender.render(result, LspToolConfig.defaults),
      [
        "Rename preview: 3 edits in 3 files (1 outside the workspace). Nothing was written: apply these edits with " +
        "your own edit tool.",
        "/lib/x.d.ts:1:1  (text not read) → resize  (outside the workspace)",
        "geometry.ts:2:17  scale → resize",
        "main.ts:2:10  scale → resize",
        "File operations (1), also not done:",
        "  rename geometry.ts → resize.ts"
      ].join("\n")
    )
  })

  it("caps edit lines at maxLocations", () => {
    const edits = Array.from({ length: 5 }, (_, i) => ({
      uri: "file:///w/a.ts",
      range: range(i, 0, i, 1),
      newText: "y",
      oldText: "x"
    }))
    const rendered = LspToolRender.render(LspResult.edits(edits, [], workspace), {
      ...LspToolConfig.defaults,
      maxLocations: 2
    })
    assert.strictEqual(
      rendered,
      [
        "Rename preview: 5 edits in 1 file. Nothing was written: apply these edits with your own edit tool.",
        "a.ts:1:1  x → y",
        "a.ts:2:1  x → y",
        "3 more edits omitted (limit: 2).",
        "Not shown, by file: a.ts (3)."
      ].join("\n")
    )
  })
})

describe("LspToolInput: include_body and new_name", () => {
  it("include_body becomes includeBody for the operations that take it; false and other operations drop it", () => {
    const at = { file_path: "a.ts", line: 2, character: 3 }
    const request = (args: object) => {
      const input = LspToolInput.validate(args)
      assert.isTrue(input._tag === "Right", JSON.stringify(input))
      return input._tag === "Right" ? LspToolInput.toQueryRequest(input.right, "/w") : undefined
    }
    assert.deepStrictEqual(request({ operation: "goToDefinition", ...at, include_body: true }), {
      operation: "goToDefinition",
      filePath: "a.ts",
      position: { line: 1, character: 2 },
      workspaceRoot: "/w",
      includeBody: true
    })
    assert.notProperty(request({ operation: "goToDefinition", ...at, include_body: false }), "includeBody")
    assert.notProperty(request({ operation: "findReferences", ...at, include_body: true }), "includeBody")
    assert.deepStrictEqual(request({ operation: "documentSymbol", file_path: "a.ts", include_body: true }), {
      operation: "documentSymbol",
      filePath: "a.ts",
      workspaceRoot: "/w",
      includeBody: true
    })
    const bad = LspToolInput.validate({ operation: "goToDefinition", ...at, include_body: "yes" })
    assert.isTrue(
      bad._tag === "Left" && bad.left.message.startsWith("Invalid \"include_body\" (got \"yes\" (a string))")
    )
  })

  it("renamePreview needs new_name and becomes the seam's rename request", () => {
    const missing = LspToolInput.validate({ operation: "renamePreview", file_path: "a.ts", line: 1, character: 1 })
    assert.isTrue(missing._tag === "Left" && missing.left.message.startsWith("Missing \"new_name\""))
    const blank = LspToolInput.validate({
      operation: "renamePreview",
      file_path: "a.ts",
      line: 1,
      character: 1,
      new_name: " "
    })
    assert.isTrue(blank._tag === "Left" && blank.left.message.startsWith("Invalid \"new_name\""))
    const input = LspToolInput.validate({
      operation: "renamePreview",
      file_path: "a.ts",
      line: 3,
      symbol: "f",
      new_name: "g"
    })
    assert.isTrue(input._tag === "Right")
    if (input._tag === "Right") {
      assert.deepStrictEqual(LspToolInput.toQueryRequest(input.right, "/w"), {
        operation: "renamePreview",
        filePath: "a.ts",
        position: { line: 2, character: 0 },
        workspaceRoot: "/w",
        newName: "g",
        symbol: "f"
      })
    }
  })
})
