import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import { parseLocation, queryArguments } from "../src/internal/query/location.js"

describe("parseLocation", () => {
  it("splits file, line and character", () => {
    assert.deepStrictEqual(parseLocation("src/a.ts:12:5"), Either.right({ file: "src/a.ts", line: 12, character: 5 }))
  })

  it("splits from the right, so paths may contain ':'", () => {
    assert.deepStrictEqual(
      parseLocation("C:\\w\\a:b.ts:3:4"),
      Either.right({ file: "C:\\w\\a:b.ts", line: 3, character: 4 })
    )
  })

  it.prop("round-trips any file name and any integers", [
    FastCheck.string({ minLength: 1 }),
    FastCheck.integer(),
    FastCheck.integer()
  ], ([file, line, character]) => {
    assert.deepStrictEqual(parseLocation(`${file}:${line}:${character}`), Either.right({ file, line, character }))
  })

  it("passes numbers the tool refuses (0, negative, fractions) on to the tool", () => {
    assert.deepStrictEqual(parseLocation("a.ts:0:-1"), Either.right({ file: "a.ts", line: 0, character: -1 }))
    assert.deepStrictEqual(parseLocation("a.ts:1.5:2"), Either.right({ file: "a.ts", line: 1.5, character: 2 }))
  })

  it("with --symbol, accepts <file>:<line> and still reads <file>:<line>:<character>", () => {
    const optional = { characterOptional: true }
    assert.deepStrictEqual(
      parseLocation("src/a.ts:12", optional),
      Either.right({ file: "src/a.ts", line: 12, character: undefined })
    )
    assert.deepStrictEqual(
      parseLocation("src/a.ts:12:5", optional),
      Either.right({ file: "src/a.ts", line: 12, character: 5 })
    )
    assert.deepStrictEqual(
      parseLocation("C:\\w\\a.ts:3", optional),
      Either.right({ file: "C:\\w\\a.ts", line: 3, character: undefined })
    )
    assert.deepStrictEqual(
      parseLocation("a:b.ts:0", optional),
      Either.right({ file: "a:b.ts", line: 0, character: undefined })
    )
    for (const bad of ["a.ts", "a.ts:x", ":1", "a.ts:1:x", "a.ts:"]) {
      assert.isTrue(Either.isLeft(parseLocation(bad, optional)), bad)
    }
  })

  it.prop("with --symbol, round-trips any file name not ending in :<number> and any line", [
    FastCheck.string({ minLength: 1 }).filter((file) => !/:[+-]?\d+(?:\.\d+)?$/.test(file)),
    FastCheck.integer()
  ], ([file, line]) => {
    assert.deepStrictEqual(
      parseLocation(`${file}:${line}`, { characterOptional: true }),
      Either.right({ file, line, character: undefined })
    )
  })

  it("without --symbol, a missing character stays a usage error that mentions --symbol", () => {
    const parsed = parseLocation("a.ts:3")
    assert.isTrue(Either.isLeft(parsed))
    if (Either.isLeft(parsed)) assert.include(parsed.left.message, "or <file>:<line> with --symbol NAME")
  })

  it("refuses what is not <file>:<number>:<number> as a usage error", () => {
    for (
      const bad of ["a.ts", "a.ts:1", ":1:2", "a.ts:x:2", "a.ts:1:", "a.ts::2", "a.ts:1:2x", "a.ts: 1:2", "a.ts:0x1:2"]
    ) {
      const parsed = parseLocation(bad)
      assert.isTrue(Either.isLeft(parsed), bad)
      if (Either.isLeft(parsed)) assert.include(parsed.left.message, JSON.stringify(bad))
    }
  })
})

describe("queryArguments", () => {
  it("reads a position for the operations at a position, with --symbol making the column optional", () => {
    assert.deepStrictEqual(
      queryArguments("incomingCalls", "m.ts:1:17"),
      Either.right({
        operation: "incomingCalls",
        file_path: "m.ts",
        line: 1,
        character: 17,
        symbol: undefined
      })
    )
    assert.deepStrictEqual(
      queryArguments("outgoingCalls", "m.ts:18", { symbol: "main" }),
      Either.right({
        operation: "outgoingCalls",
        file_path: "m.ts",
        line: 18,
        character: undefined,
        symbol: "main"
      })
    )
    assert.isTrue(Either.isLeft(queryArguments("goToTypeDefinition", "m.ts")))
  })

  it("takes documentSymbol's file verbatim, even when it ends in :<number>", () => {
    assert.deepStrictEqual(
      queryArguments("documentSymbol", "src/a.ts"),
      Either.right({ operation: "documentSymbol", file_path: "src/a.ts" })
    )
    assert.deepStrictEqual(
      queryArguments("documentSymbol", "notes:12"),
      Either.right({ operation: "documentSymbol", file_path: "notes:12" })
    )
  })

  it.prop("takes workspaceSymbol's query verbatim, and --file as its file_path", [
    FastCheck.string(),
    FastCheck.option(FastCheck.string({ minLength: 1 }), { nil: undefined })
  ], ([query, file]) => {
    assert.deepStrictEqual(
      queryArguments("workspaceSymbol", query, { file }),
      Either.right(
        file === undefined
          ? { operation: "workspaceSymbol", query }
          : { operation: "workspaceSymbol", query, file_path: file }
      )
    )
  })

  it("refuses --symbol outside the position operations and --file outside workspaceSymbol", () => {
    const message = (result: ReturnType<typeof queryArguments>) => Either.isLeft(result) ? result.left.message : ""
    assert.strictEqual(
      message(queryArguments("documentSymbol", "a.ts", { symbol: "x" })),
      "--symbol applies to operations at a position only, not to documentSymbol."
    )
    assert.strictEqual(
      message(queryArguments("workspaceSymbol", "x", { symbol: "x" })),
      "--symbol applies to operations at a position only, not to workspaceSymbol."
    )
    assert.strictEqual(
      message(queryArguments("documentSymbol", "a.ts", { file: "b.ts" })),
      "--file applies to workspaceSymbol only, not to documentSymbol."
    )
    assert.strictEqual(
      message(queryArguments("hover", "a.ts:1:1", { file: "b.ts" })),
      "--file applies to workspaceSymbol only, not to hover."
    )
  })
})

describe("queryArguments: diagnostics", () => {
  it("takes the file verbatim and --severity; --severity elsewhere and --symbol here are usage errors", () => {
    assert.deepStrictEqual(
      queryArguments("diagnostics", "src/a:1.ts"),
      Either.right({ operation: "diagnostics", file_path: "src/a:1.ts" })
    )
    assert.deepStrictEqual(
      queryArguments("diagnostics", "a.ts", { severity: "hint" }),
      Either.right({ operation: "diagnostics", file_path: "a.ts", severity: "hint" })
    )
    assert.isTrue(Either.isLeft(queryArguments("hover", "a.ts:1:1", { severity: "hint" })))
    // A value that is none of the four is a usage error here too (the fast remote path parses by hand).
    assert.isTrue(Either.isLeft(queryArguments("diagnostics", "a.ts", { severity: "warnings" })))
    assert.isTrue(Either.isLeft(queryArguments("diagnostics", "a.ts", { symbol: "x" })))
  })
})
