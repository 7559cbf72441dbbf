import { assert, describe, it } from "@effect/vitest"
import { LspResult } from "@lsp-seam/lsp"
import * as FastCheck from "effect/FastCheck"
import * as Render from "../src/internal/render.js"
import * as LspToolRender from "../src/LspToolRender.js"

const range = (
  line: number,
  character: number,
  endLine = line,
  endCharacter = character + 3
): LspResult.LspLocation["range"] => ({
  start: { line, character },
  end: { line: endLine, character: endCharacter }
})

const symbol = (
  name: string,
  kind: LspResult.SymbolKindName,
  uri: string,
  line: number,
  character: number,
  extra: Partial<LspResult.LspSymbol> = {}
): LspResult.LspSymbol => ({
  name,
  kind,
  uri,
  range: range(line, 0, line + 1, 0),
  selectionRange: range(line, character),
  ...extra
})

const roomy = { maxLocations: 100, maxResultChars: 16_000 }

const item = (name: string, uri: string, line: number, character: number): LspResult.LspCallItem => ({
  name,
  kind: "Function",
  uri,
  range: range(line, 0, line + 2, 1),
  selectionRange: range(line, character)
})

const call = (
  caller: LspResult.LspCallItem,
  fromUri: string,
  sites: ReadonlyArray<readonly [number, number]>
): LspResult.LspCall => ({ ...caller, fromUri, fromRanges: sites.map(([l, c]) => range(l, c)) })

describe("LspToolRender symbols", () => {
  it("renders documentSymbol as one self-contained line per symbol, indented by depth", () => {
    const uri = "file:///w/shape.ts"
    const result = LspResult.symbols([
      symbol("Shape", "Interface", uri, 1, 17, { depth: 0 }),
      symbol("area", "Method", uri, 2, 2, { depth: 1, containerName: "Shape" }),
      symbol("Circle", "Class", uri, 6, 13, { depth: 0 }),
      symbol("constructor", "Constructor", uri, 7, 2, { depth: 1, containerName: "Circle" }),
      symbol("radius", "Property", uri, 7, 23, { depth: 2, containerName: "Circle.constructor" })
    ], "file:///w")
    assert.strictEqual(
      LspToolRender.render(result, roomy),
      [
        "shape.ts:2:18  Interface  Shape",
        "  shape.ts:3:3  Method  Shape.area",
        "shape.ts:7:14  Class  Circle",
        "  shape.ts:8:3  Constructor  Circle.constructor",
        "    shape.ts:8:24  Property  Circle.constructor.radius"
      ].join("\n")
    )
  })

  it("groups by file in order of first appearance and sorts by position within a file, parents first", () => {
    const result = LspResult.symbols([
      symbol("b", "Function", "file:///w/b.ts", 5, 9),
      symbol("a", "Function", "file:///w/a.ts", 3, 9),
      symbol("early", "Function", "file:///w/b.ts", 1, 9),
      // Same start as its parent: the stable sort keeps the parent (lower depth) first.
      { ...symbol("inner", "Variable", "file:///w/a.ts", 0, 0, { depth: 1 }), range: range(0, 0, 2, 0) },
      { ...symbol("outer", "Module", "file:///w/a.ts", 0, 0, { depth: 0 }), range: range(0, 0, 9, 0) }
    ], "file:///w")
    assert.strictEqual(
      LspToolRender.render(result, roomy),
      [
        "b.ts:2:10  Function  early",
        "b.ts:6:10  Function  b",
        "a.ts:1:1  Module  outer",
        "  a.ts:1:1  Variable  inner",
        "a.ts:4:10  Function  a"
      ].join("\n")
    )
  })

  it("puts workspaceSymbol matches outside the workspace after the workspace's own, as absolute paths", () => {
    const result = LspResult.symbols([
      symbol("Circle", "Class", "file:///usr/lib/node_modules/x/index.d.ts", 10, 4),
      symbol("Circle", "Class", "file:///w/shape.ts", 6, 13),
      symbol("circle", "Variable", "jdt://contents/x.class", 0, 0),
      symbol("drawCircle", "Function", "file:///w/src/draw.ts", 2, 16, { containerName: "draw" })
    ], "file:///w")
    assert.strictEqual(
      LspToolRender.render(result, roomy),
      [
        "shape.ts:7:14  Class  Circle",
        "src/draw.ts:3:17  Function  draw.drawCircle",
        "/usr/lib/node_modules/x/index.d.ts:11:5  Class  Circle",
        "jdt://contents/x.class:1:1  Variable  circle"
      ].join("\n")
    )
  })

  it("labels each symbol with its provider when a search merged several", () => {
    const result = LspResult.symbols([
      symbol("Config", "Interface", "file:///w/src/config.ts", 0, 17, { provider: "typescript" }),
      symbol("Config", "Class", "file:///w/tools/config.py", 3, 6, { provider: "python" }),
      symbol("load_config", "Function", "file:///w/tools/config.py", 9, 4, { provider: "python" })
    ], "file:///w")
    assert.strictEqual(
      LspToolRender.render(result, roomy),
      [
        "src/config.ts:1:18  Interface  Config  [typescript]",
        "tools/config.py:4:7  Class  Config  [python]",
        "tools/config.py:10:5  Function  load_config  [python]"
      ].join("\n")
    )
  })

  it("does not label symbols that all come from one provider", () => {
    const result = LspResult.symbols([
      symbol("Config", "Interface", "file:///w/a.ts", 0, 17, { provider: "typescript" })
    ], "file:///w")
    assert.strictEqual(LspToolRender.render(result, roomy), "a.ts:1:18  Interface  Config")
  })

  it("says No results. for no symbols", () => {
    assert.strictEqual(LspToolRender.render(LspResult.symbols([], "file:///w"), roomy), "No results.")
  })

  it("keeps maxLocations symbol lines and says how many more were omitted", () => {
    const symbols = Array.from({ length: 7 }, (_, i) => symbol(`f${i}`, "Function", "file:///w/a.ts", i, 9))
    const result = LspResult.symbols(symbols, "file:///w")
    assert.strictEqual(
      LspToolRender.render(result, { ...roomy, maxLocations: 5 }),
      [
        "a.ts:1:10  Function  f0",
        "a.ts:2:10  Function  f1",
        "a.ts:3:10  Function  f2",
        "a.ts:4:10  Function  f3",
        "a.ts:5:10  Function  f4",
        "2 more symbols omitted (limit: 5).",
        "Not shown, by file: a.ts (2)."
      ].join("\n")
    )
    assert.strictEqual(
      LspToolRender.render(LspResult.symbols(symbols.slice(0, 2), "file:///w"), { ...roomy, maxLocations: 1 }),
      "a.ts:1:10  Function  f0\n1 more symbol omitted (limit: 1).\nNot shown, by file: a.ts (1)."
    )
  })

  it("puts incomplete reasons first, so the character cap cannot cut them", () => {
    const symbols = Array.from({ length: 50 }, (_, i) => symbol(`f${i}`, "Function", "file:///w/a.ts", i, 9))
    const result = LspResult.markIncomplete(LspResult.symbols(symbols, "file:///w"), {
      reason: "provider-failed",
      message: "The \"python\" language server could not search."
    })
    const text = LspToolRender.render(result, { ...roomy, maxResultChars: 200 })
    assert.strictEqual(text.length, 200)
    assert.isTrue(text.startsWith("Incomplete (provider-failed): The \"python\" language server could not search.\n"))
    assert.match(text, /\n\[truncated: \d+ characters in total, limit 200\]$/)
  })

  it.prop(
    "never drops a symbol silently: every symbol is a line or counted in the omission line",
    [FastCheck.integer({ min: 0, max: 40 }), FastCheck.integer({ min: 1, max: 50 })],
    ([count, maxLocations]) => {
      const symbols = Array.from(
        { length: count },
        (_, i) => symbol(`s${i}`, "Variable", `file:///w/f${i % 3}.ts`, i, 0)
      )
      const lines = Render.renderSymbols(LspResult.symbols(symbols, "file:///w"), maxLocations).split("\n")
      if (count === 0) return assert.deepStrictEqual(lines, ["No results."])
      const shown = lines.filter((line) => line.includes("  Variable  ")).length
      assert.strictEqual(shown, Math.min(count, maxLocations))
      const omitted = /^(\d+) more symbols? omitted/.exec(lines[lines.length - 2] ?? "")
      assert.strictEqual(shown + (omitted === null ? 0 : Number(omitted[1])), count)
      // And where they are: the per-file counts add up to the omitted ones.
      const byFile = /^Not shown, by file: (.*)\.$/.exec(lines[lines.length - 1]!)
      assert.strictEqual(byFile === null, omitted === null)
      const counted = byFile === null ? 0 : [...byFile[1]!.matchAll(/\((\d+)\)/g)].reduce((n, m) => n + Number(m[1]), 0)
      assert.strictEqual(counted, omitted === null ? 0 : Number(omitted[1]))
    }
  )
})

describe("LspToolRender calls", () => {
  const add = item("add", "file:///w/m.ts", 0, 16)

  it("renders incoming calls: the asked function, then each caller with its call sites", () => {
    const main = item("main", "file:///w/main.ts", 4, 9)
    const test = item("testAdd", "file:///w/test/m.test.ts", 2, 9)
    const helper = item("helper", "file:///w/main.ts", 1, 9)
    const result = LspResult.calls("incoming", [add], [
      call(main, "file:///w/main.ts", [[7, 10], [5, 2]]),
      call(test, "file:///w/test/m.test.ts", [[3, 4]]),
      call(helper, "file:///w/main.ts", [[2, 2]])
    ], "file:///w")
    assert.strictEqual(
      LspToolRender.render(result, roomy),
      [
        "Calls to add (Function) at m.ts:1:17:",
        "helper  main.ts:2:10",
        "  main.ts:3:3",
        "main  main.ts:5:10",
        "  main.ts:6:3",
        "  main.ts:8:11",
        "testAdd  test/m.test.ts:3:10",
        "  test/m.test.ts:4:5"
      ].join("\n")
    )
  })

  it("renders outgoing calls with the call sites in the asked function's file", () => {
    const main = item("main", "file:///w/main.ts", 4, 9)
    const log = { ...item("log", "file:///usr/lib/node/console.d.ts", 20, 4), kind: "Method" as const }
    const result = LspResult.calls("outgoing", [main], [
      call(add, "file:///w/main.ts", [[5, 2]]),
      call(log, "file:///w/main.ts", [[6, 10]])
    ], "file:///w")
    assert.strictEqual(
      LspToolRender.render(result, roomy),
      [
        "Calls from main (Function) at main.ts:5:10:",
        "add  m.ts:1:17",
        "  main.ts:6:3",
        "log  /usr/lib/node/console.d.ts:21:5",
        "  main.ts:7:11"
      ].join("\n")
    )
  })

  it("names every prepared item", () => {
    const other = item("add", "file:///w/n.ts", 3, 16)
    const result = LspResult.calls("incoming", [add, other], [
      call(item("f", "file:///w/f.ts", 0, 9), "file:///w/f.ts", [[1, 1]])
    ], "file:///w")
    assert.isTrue(
      LspToolRender.render(result, roomy).startsWith(
        "Calls to add (Function) at m.ts:1:17, add (Function) at n.ts:4:17:\n"
      )
    )
  })

  it("says No results. when nothing calls it, or nothing was prepared", () => {
    assert.strictEqual(LspToolRender.render(LspResult.calls("incoming", [add], [], "file:///w"), roomy), "No results.")
    assert.strictEqual(LspToolRender.render(LspResult.calls("outgoing", [], [], "file:///w"), roomy), "No results.")
  })

  it("keeps the off-identifier sentence of an empty answer", () => {
    const result = LspResult.withOffIdentifier(LspResult.calls("incoming", [], [], "file:///w"), {
      line: 0,
      character: 25,
      identifiers: [{ name: "add", character: 16 }]
    })
    assert.strictEqual(
      LspToolRender.render(result, roomy),
      "No results. Line 1, column 26 is not on an identifier; identifiers on line 1: add (column 17)."
    )
  })

  it("counts callers against maxLocations, call sites staying with their caller", () => {
    const calls = Array.from(
      { length: 4 },
      (_, i) => call(item(`f${i}`, "file:///w/f.ts", i * 10, 9), "file:///w/f.ts", [[i * 10 + 1, 2], [i * 10 + 2, 2]])
    )
    assert.strictEqual(
      LspToolRender.render(LspResult.calls("incoming", [add], calls, "file:///w"), { ...roomy, maxLocations: 2 }),
      [
        "Calls to add (Function) at m.ts:1:17:",
        "f0  f.ts:1:10",
        "  f.ts:2:3",
        "  f.ts:3:3",
        "f1  f.ts:11:10",
        "  f.ts:12:3",
        "  f.ts:13:3",
        "2 more calls omitted (limit: 2).",
        "Not shown, by file: f.ts (2)."
      ].join("\n")
    )
  })

  it("caps the whole text at maxResultChars with the truncation notice", () => {
    const sites = Array.from({ length: 500 }, (_, i) => [i, 4] as const)
    const result = LspResult.calls("incoming", [add], [
      call(item("big", "file:///w/big.ts", 0, 9), "file:///w/big.ts", sites)
    ], "file:///w")
    const text = LspToolRender.render(result, { ...roomy, maxResultChars: 120 })
    assert.strictEqual(text.length, 120)
    assert.match(text, /^Calls to add \(Function\) at m\.ts:1:17:\nbig {2}big\.ts:1:10\n/)
    assert.match(text, /\n\[truncated: \d+ characters in total, limit 120\]$/)
  })
})

describe("LspToolRender diagnostics", () => {
  it("renders one line per diagnostic, grouped by file, capped as locations are", () => {
    const diagnostic = (uri: string, line: number, message: string): LspResult.LspDiagnostic => ({
      uri,
      range: range(line, 4),
      severity: "error",
      source: "ts",
      code: "2322",
      message
    })
    const result = LspResult.diagnostics([
      diagnostic("file:///w/a.ts", 2, "Type 'string' is not assignable\n  to type 'number'."),
      diagnostic("file:///w/b.ts", 0, "Cannot find name 'x'."),
      diagnostic("file:///w/a.ts", 7, "Unused.")
    ], "file:///w")
    assert.strictEqual(
      LspToolRender.render(result, roomy),
      [
        "a.ts:3:5  error  Type 'string' is not assignable to type 'number'.  [ts 2322]",
        "a.ts:8:5  error  Unused.  [ts 2322]",
        "b.ts:1:5  error  Cannot find name 'x'.  [ts 2322]"
      ].join("\n")
    )
    assert.strictEqual(
      LspToolRender.render(result, { ...roomy, maxLocations: 1 }),
      "a.ts:3:5  error  Type 'string' is not assignable to type 'number'.  [ts 2322]\n2 more diagnostics omitted (limit: 1).\n" +
        "Not shown, by file: a.ts (1), b.ts (1)."
    )
    assert.strictEqual(LspToolRender.render(LspResult.diagnostics([], "file:///w"), roomy), "No diagnostics.")
  })

  it("never calls an answer clean that is not known to be for the current text", () => {
    const pending = LspResult.markIncomplete(LspResult.diagnostics([], "file:///w"), {
      reason: "diagnostics-pending",
      message: "The language server published no diagnostics for the file's current text within 750 ms."
    })
    const text = LspToolRender.render(pending, roomy)
    assert.notInclude(text, "No diagnostics.")
    assert.include(text, "Incomplete (diagnostics-pending)")
    assert.include(text, "No diagnostics were received for the file's current text.")
  })

  it("related information is rendered under its diagnostic, labelled, and not counted as a diagnostic", () => {
    const answer = LspResult.diagnostics([{
      uri: "file:///w/a.ts",
      range: range(2, 6),
      severity: "error",
      code: "2322",
      source: "typescript",
      message: "Type 'string' is not assignable to type 'number'.",
      relatedInformation: [{
        uri: "file:///w/box.ts",
        range: range(1, 2),
        message: "The expected type comes from property 'size'\n  which is declared here."
      }]
    }, {
      uri: "file:///w/a.ts",
      range: range(4, 0),
      severity: "warning",
      message: "Unused."
    }], "file:///w")
    assert.strictEqual(
      LspToolRender.render(answer, roomy),
      [
        "a.ts:3:7  error  Type 'string' is not assignable to type 'number'.  [typescript 2322]",
        "  related: box.ts:2:3  The expected type comes from property 'size' which is declared here.",
        "a.ts:5:1  warning  Unused."
      ].join("\n")
    )
    // The cap counts diagnostics: the first one and its related place, then the omission line.
    const capped = LspToolRender.render(answer, { ...roomy, maxLocations: 1 })
    assert.isTrue(capped.startsWith("a.ts:3:7  error  Type 'string'"), capped)
    assert.include(capped, "\n  related: box.ts:2:3  ")
    assert.notInclude(capped, "Unused.")
  })
})
