import { assert, describe, it } from "@effect/vitest"
import type { LspQuery, LspResult } from "@lsp-seam/lsp"
import * as Either from "effect/Either"
import * as LspToolInput from "../src/LspToolInput.js"
import * as LspToolRender from "../src/LspToolRender.js"

// `impact` through the tool's input (validation, conversion, schema) and its rendering, from hand-built answers.

const valid = (args: unknown) => Either.getOrThrow(LspToolInput.validate(args))

const invalid = (args: unknown, operations?: LspToolInput.Operations) => {
  const result = LspToolInput.validate(args, operations)
  assert.isTrue(Either.isLeft(result), "expected LSP_INVALID_ARGUMENTS")
  const error = Either.getLeft(result).pipe((option) => option._tag === "Some" ? option.value : undefined)!
  assert.strictEqual(error.code, "LSP_INVALID_ARGUMENTS")
  return error
}

describe("LspToolInput impact", () => {
  it("validates a position and a depth, and converts them to a zero-based impact request", () => {
    const input = valid({ operation: "impact", file_path: "src/a.ts", line: 3, character: 17, depth: 4 })
    assert.deepStrictEqual(input, { operation: "impact", file_path: "src/a.ts", line: 3, character: 17, depth: 4 })
    assert.deepStrictEqual(LspToolInput.toQueryRequest(input, "/w"), {
      operation: "impact",
      filePath: "src/a.ts",
      position: { line: 2, character: 16 },
      workspaceRoot: "/w",
      depth: 4
    })
  })

  it("takes symbol instead of character, leaves depth to the seam's default, and drops include_body", () => {
    const input = valid({ operation: "impact", file_path: "a.ts", line: 5, symbol: "parse", include_body: true })
    assert.deepStrictEqual(input, { operation: "impact", file_path: "a.ts", line: 5, symbol: "parse" })
    const request: LspQuery.LspQueryRequest = LspToolInput.toQueryRequest(input, "/w")
    assert.deepStrictEqual(request, {
      operation: "impact",
      filePath: "a.ts",
      position: { line: 4, character: 0 },
      workspaceRoot: "/w",
      symbol: "parse"
    })
  })

  it("refuses a depth outside 1 to 5 or not an integer, naming the argument and the bounds", () => {
    for (const depth of [0, 6, 2.5, -1, "2", null]) {
      const error = invalid({ operation: "impact", file_path: "a.ts", line: 1, character: 1, depth })
      assert.deepStrictEqual(error.detail, { argument: "depth" })
      assert.include(error.message, `Invalid "depth"`)
      assert.include(error.message, "an integer from 1 to 5 (default 2)")
    }
  })

  it("checks the position before depth, as the other position operations do", () => {
    const error = invalid({ operation: "impact", file_path: "a.ts", line: 0, character: 1, depth: 9 })
    assert.deepStrictEqual(error.detail, { argument: "line" })
  })

  it("names impact among the operations when the operation is misspelt, and says when it is not offered", () => {
    const misspelt = invalid({ operation: "impacts", file_path: "a.ts", line: 1, character: 1 })
    assert.include(misspelt.message, "renamePreview, impact.")
    const notOffered = invalid({ operation: "impact", file_path: "a.ts", line: 1, character: 1 }, ["hover"])
    assert.include(notOffered.message, "this tool does not offer impact; use one of hover.")
  })

  it("offers depth (1 to 5) in the JSON Schema, and no include_body when impact is the only operation", () => {
    const schema = LspToolInput.jsonSchemaFor(["impact"]) as {
      readonly required: ReadonlyArray<string>
      readonly properties: Readonly<Record<string, { readonly minimum?: number; readonly maximum?: number }>>
    }
    assert.deepStrictEqual(Object.keys(schema.properties), [
      "operation",
      "file_path",
      "line",
      "character",
      "symbol",
      "depth"
    ])
    assert.deepStrictEqual(schema.required, ["operation", "file_path", "line"])
    assert.strictEqual(schema.properties.depth?.minimum, 1)
    assert.strictEqual(schema.properties.depth?.maximum, 5)
    const all = LspToolInput.jsonSchema as { readonly properties: Readonly<Record<string, unknown>> }
    assert.property(all.properties, "depth")
    assert.notInclude(JSON.stringify(all.properties.include_body), "impact")
    assert.include(LspToolInput.description, "impact also takes depth, the levels of callers to follow (1 to 5).")
  })
})

const workspace = "file:///w"
const range = (line: number, character = 0): LspResult.LspImpactNode["range"] => ({
  start: { line, character },
  end: { line, character: character + 4 }
})

/** A node at `line` (zero-based) of `path`, used or called on `uses` (zero-based lines). */
const node = (
  id: number,
  level: number,
  name: string,
  path: string,
  line: number,
  uses: ReadonlyArray<number>,
  calls: ReadonlyArray<number> = [],
  extra: { readonly kind?: LspResult.LspImpactNode["kind"]; readonly test?: true } = {}
): LspResult.LspImpactNode => ({
  id,
  level,
  name,
  kind: extra.kind ?? "Function",
  uri: `${workspace}/${path}`,
  range: range(line),
  selectionRange: range(line, 16),
  uses: uses.map((use) => range(use, 9)),
  calls,
  ...(extra.test === true ? { test: true as const } : {})
})

const level = (n: number, found: number, shown = found, tests = 0): LspResult.LspImpactLevel => ({
  level: n,
  found,
  shown,
  cut: found - shown,
  tests
})

const impact = (
  nodes: ReadonlyArray<LspResult.LspImpactNode>,
  levels: ReadonlyArray<LspResult.LspImpactLevel>,
  extra: Partial<LspResult.LspImpactResult> = {}
): LspResult.LspImpactResult => ({
  kind: "impact",
  target: {
    name: "parse",
    kind: "Function",
    uri: `${workspace}/src/parse.ts`,
    range: range(1),
    selectionRange: range(1, 16)
  },
  references: nodes.filter((n) => n.level === 0).reduce((sum, n) => sum + n.uses.length, 0),
  depth: 2,
  nodes,
  levels,
  testFiles: [...new Set(nodes.filter((n) => n.test === true).map((n) => n.uri))].sort(),
  resolvedWorkspaceUri: workspace,
  ...extra
})

const roomy = { maxLocations: 100, maxResultChars: 16_000 }

describe("LspToolRender impact", () => {
  it("renders the uses' declarations, their callers indented by level, and the tests last with their files", () => {
    const result = impact([
      node(0, 0, "load", "src/load.ts", 2, [3]),
      node(1, 0, "main.ts", "src/main.ts", 0, [10, 12, 12], [], { kind: "File" }),
      node(2, 0, "parsesNumbers", "test/parse.test.ts", 2, [3], [], { test: true }),
      node(3, 1, "main", "src/main.ts", 2, [3], [0]),
      node(4, 1, "loadsDoubles", "test/load.test.ts", 2, [3], [0], { test: true }),
      node(5, 2, "run", "src/main.ts", 6, [7], [3])
    ], [level(0, 3, 3, 1), level(1, 2, 2, 1), level(2, 1)])
    assert.strictEqual(
      LspToolRender.render(result, roomy),
      [
        "Impact of parse (Function) src/parse.ts:2 — 5 uses in 3 places",
        "Levels: 0: 3 places (1 test) · 1: 2 callers (1 test) · 2: 1 caller (depth 2)",
        "load (Function) src/load.ts:3 — 1 use: line 4",
        "  main (Function) src/main.ts:3 — 1 call: line 4",
        "    run (Function) src/main.ts:7 — 1 call: line 8",
        "top level of src/main.ts — 3 uses: lines 11, 13",
        "Tests (2 declarations in 2 files):",
        "  parsesNumbers (Function) test/parse.test.ts:3 — 1 use: line 4",
        "  loadsDoubles (Function) test/load.test.ts:3 — 1 call to load: line 4",
        "Test files to run: test/load.test.ts, test/parse.test.ts."
      ].join("\n")
    )
  })

  it("shows a caller of two declarations once, and a short back-reference under the second", () => {
    const result = impact([
      node(0, 0, "a", "a.ts", 0, [1]),
      node(1, 0, "b", "b.ts", 0, [1]),
      node(2, 1, "c", "c.ts", 0, [1, 2], [0, 1])
    ], [level(0, 2), level(1, 1)])
    assert.strictEqual(
      LspToolRender.render(result, roomy),
      [
        "Impact of parse (Function) src/parse.ts:2 — 2 uses in 2 places",
        "Levels: 0: 2 places · 1: 1 caller (depth 2)",
        "a (Function) a.ts:1 — 1 use: line 2",
        "  c (Function) c.ts:1 — 2 calls: lines 2, 3",
        "b (Function) b.ts:1 — 1 use: line 2",
        "  c (Function) c.ts:1 — shown above"
      ].join("\n")
    )
  })

  it("ends a cycle with a back-reference that says so", () => {
    // even uses the symbol; odd calls even; even calls odd back (an edge the walk adds to a known node).
    const result = impact([
      node(0, 0, "even", "m.ts", 0, [1], [1]),
      node(1, 1, "odd", "m.ts", 4, [5], [0])
    ], [level(0, 1), level(1, 1)])
    assert.deepStrictEqual(LspToolRender.render(result, roomy).split("\n").slice(2), [
      "even (Function) m.ts:1 — 1 use: line 2",
      "  odd (Function) m.ts:5 — 1 call: line 6",
      "    even (Function) m.ts:1 — calls it back (a cycle), shown above"
    ])
  })

  it("counts what maxGroups cut, and puts the incomplete reasons first as the other answers do", () => {
    const result = impact(
      [
        node(0, 0, "load", "src/load.ts", 2, [3]),
        node(1, 1, "main", "src/main.ts", 2, [3], [0])
      ],
      [level(0, 1), level(1, 45, 1)],
      {
        incomplete: true,
        incompleteReasons: [{
          reason: "capped",
          message:
            "Level 1: 1 of 45 declarations shown (maxGroups 1); the other 44 were not listed nor their callers " +
            "searched."
        }]
      }
    )
    const lines = LspToolRender.render(result, roomy).split("\n")
    assert.strictEqual(
      lines[0],
      "Incomplete (capped): Level 1: 1 of 45 declarations shown (maxGroups 1); the other 44 were not listed nor " +
        "their callers searched."
    )
    assert.strictEqual(lines[2], "Levels: 0: 1 place · 1: 1 of 45 callers shown, 44 cut (depth 2)")
  })

  it("says when the server cannot answer the call hierarchy, and still shows the grouped uses", () => {
    const result = impact([node(0, 0, "load", "src/load.ts", 2, [3, 4])], [level(0, 1)], {
      incomplete: true,
      incompleteReasons: [{
        reason: "no-call-hierarchy",
        message: "The language server cannot answer the call hierarchy: the uses are grouped by declaration, but " +
          "who calls those declarations was not searched."
      }]
    })
    assert.deepStrictEqual(LspToolRender.render(result, roomy).split("\n"), [
      "Incomplete (no-call-hierarchy): The language server cannot answer the call hierarchy: the uses are grouped " +
      "by declaration, but who calls those declarations was not searched.",
      "Impact of parse (Function) src/parse.ts:2 — 2 uses in 1 place",
      "Levels: 0: 1 place (depth 2)",
      "load (Function) src/load.ts:3 — 2 uses: lines 4, 5"
    ])
  })

  it("caps the tree at maxLocations and says what was left out and where", () => {
    const result = impact([
      node(0, 0, "a", "a.ts", 0, [1]),
      node(1, 0, "b", "b.ts", 0, [1]),
      node(2, 0, "c", "c.ts", 0, [1])
    ], [level(0, 3)])
    assert.deepStrictEqual(LspToolRender.render(result, { ...roomy, maxLocations: 2 }).split("\n").slice(2), [
      "a (Function) a.ts:1 — 1 use: line 2",
      "b (Function) b.ts:1 — 1 use: line 2",
      "1 more declaration omitted (limit: 2).",
      "Not shown, by file: c.ts (1)."
    ])
  })

  it("says when the symbol has no uses, and No results. when nothing was found at the position", () => {
    assert.strictEqual(
      LspToolRender.render(impact([], [level(0, 0)]), roomy),
      "Impact of parse (Function) src/parse.ts:2 — no uses found."
    )
    const { target: _, ...unknown } = impact([], [level(0, 0)])
    assert.strictEqual(LspToolRender.render(unknown, roomy), "No results.")
  })

  it("stays within maxResultChars", () => {
    const nodes = Array.from({ length: 60 }, (_, i) => node(i, 0, `f${i}`, `src/f${i}.ts`, 0, [1, 2, 3]))
    const text = LspToolRender.render(impact(nodes, [level(0, 60)]), { maxLocations: 100, maxResultChars: 500 })
    assert.strictEqual(text.length, 500)
    assert.match(text, /\n\[truncated: \d+ characters in total, limit 500\]$/)
  })
})
