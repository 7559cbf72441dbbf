import { assert, describe, it } from "@effect/vitest"
import { LspError } from "@lsp-seam/lsp"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import * as LspToolInput from "../src/LspToolInput.js"

const valid: LspToolInput.LspToolInput = { operation: "goToDefinition", file_path: "src/a.ts", line: 3, character: 7 }

const failure = (input: unknown): LspError.LspError => {
  const result = LspToolInput.validate(input)
  if (Either.isRight(result)) assert.fail(`expected ${JSON.stringify(input)} to be rejected`)
  return result.left
}

const assertRejected = (input: unknown, argument: string | undefined, message: string) => {
  const error = failure(input)
  assert.isTrue(LspError.isLspError(error))
  assert.strictEqual(error.code, "LSP_INVALID_ARGUMENTS")
  assert.strictEqual(error.message, message)
  assert.deepStrictEqual(error.detail, argument === undefined ? undefined : { argument })
}

const operationFix = "use one of goToDefinition, findReferences, goToImplementation, hover."
const filePathFix = "give the path of the file containing the symbol, relative to the workspace root or absolute."
const lineFix = "give the symbol's line as an integer counted from 1 (the first line is 1)."
const characterFix =
  "give the symbol's column as an integer counted from 1 in UTF-16 code units (the first character is 1)."

describe("LspToolInput.validate", () => {
  it("accepts each operation and passes the four arguments through", () => {
    for (const operation of ["goToDefinition", "findReferences", "goToImplementation", "hover"] as const) {
      const input = { ...valid, operation }
      assert.deepStrictEqual(LspToolInput.validate(input), Either.right(input))
    }
  })

  it("ignores properties other than the four", () => {
    assert.deepStrictEqual(LspToolInput.validate({ ...valid, extra: true }), Either.right(valid))
  })

  it("accepts absolute paths and paths with surrounding spaces untouched", () => {
    assert.deepStrictEqual(
      LspToolInput.validate({ ...valid, file_path: " /abs/a.ts " }),
      Either.right({ ...valid, file_path: " /abs/a.ts " })
    )
  })

  it("rejects arguments that are not an object", () => {
    for (
      const [input, got] of [[null, "null"], ["hover", "\"hover\" (a string)"], [[1], "an array"], [
        undefined,
        "nothing"
      ]] as const
    ) {
      assertRejected(
        input,
        undefined,
        `The lsp tool takes an object with "operation", "file_path", "line", and "character" or "symbol" (got ${got}).`
      )
    }
  })

  it("rejects a missing or unknown operation", () => {
    assertRejected({ ...valid, operation: undefined }, "operation", `Missing "operation": ${operationFix}`)
    assertRejected(
      { ...valid, operation: "rename" },
      "operation",
      `Invalid "operation" (got "rename" (a string)): ${operationFix}`
    )
    assertRejected(
      { ...valid, operation: "Hover" },
      "operation",
      `Invalid "operation" (got "Hover" (a string)): ${operationFix}`
    )
    assertRejected({ ...valid, operation: 1 }, "operation", `Invalid "operation" (got 1): ${operationFix}`)
  })

  it("rejects a missing, non-string or blank file_path", () => {
    assertRejected({ ...valid, file_path: undefined }, "file_path", `Missing "file_path": ${filePathFix}`)
    assertRejected({ ...valid, file_path: "" }, "file_path", `Invalid "file_path" (got "" (a string)): ${filePathFix}`)
    assertRejected(
      { ...valid, file_path: " \t\n" },
      "file_path",
      `Invalid "file_path" (got " \\t\\n" (a string)): ${filePathFix}`
    )
    assertRejected({ ...valid, file_path: 42 }, "file_path", `Invalid "file_path" (got 42): ${filePathFix}`)
    assertRejected({ ...valid, file_path: {} }, "file_path", `Invalid "file_path" (got an object): ${filePathFix}`)
  })

  it("rejects a line that is missing, not an integer, or below 1", () => {
    assertRejected({ ...valid, line: undefined }, "line", `Missing "line": ${lineFix}`)
    assertRejected({ ...valid, line: 0 }, "line", `Invalid "line" (got 0): ${lineFix}`)
    assertRejected({ ...valid, line: -1 }, "line", `Invalid "line" (got -1): ${lineFix}`)
    assertRejected({ ...valid, line: 1.5 }, "line", `Invalid "line" (got 1.5): ${lineFix}`)
    assertRejected({ ...valid, line: Number.NaN }, "line", `Invalid "line" (got NaN): ${lineFix}`)
    assertRejected({ ...valid, line: Infinity }, "line", `Invalid "line" (got Infinity): ${lineFix}`)
    assertRejected({ ...valid, line: "3" }, "line", `Invalid "line" (got "3" (a string)): ${lineFix}`)
    assertRejected({ ...valid, line: null }, "line", `Invalid "line" (got null): ${lineFix}`)
  })

  it("rejects a character that is missing, not an integer, or below 1", () => {
    assertRejected(
      { ...valid, character: undefined },
      "character",
      `Missing "character": ${characterFix} Or send "symbol", the identifier's name.`
    )
    assertRejected({ ...valid, character: 0 }, "character", `Invalid "character" (got 0): ${characterFix}`)
    assertRejected({ ...valid, character: 2.5 }, "character", `Invalid "character" (got 2.5): ${characterFix}`)
    assertRejected({ ...valid, character: true }, "character", `Invalid "character" (got true): ${characterFix}`)
  })

  it("reports the first problem in the order operation, file_path, line, character", () => {
    const allBad = { operation: "x", file_path: "", line: 0, character: 0 }
    assert.strictEqual(failure(allBad).detail?.argument, "operation")
    assert.strictEqual(failure({ ...allBad, operation: "hover" }).detail?.argument, "file_path")
    assert.strictEqual(failure({ ...allBad, operation: "hover", file_path: "a.ts" }).detail?.argument, "line")
    assert.strictEqual(
      failure({ ...allBad, operation: "hover", file_path: "a.ts", line: 1 }).detail?.argument,
      "character"
    )
  })

  it("shortens long strings it quotes back", () => {
    const error = failure({ ...valid, operation: "x".repeat(1000) })
    assert.strictEqual(error.message, `Invalid "operation" (got "${"x".repeat(40)}"… (a string)): ${operationFix}`)
  })
})

describe("LspToolInput.validate with symbol", () => {
  const named = { operation: "hover", file_path: "m.js", line: 1, symbol: "add" } as const

  it("makes character optional", () => {
    assert.deepStrictEqual(LspToolInput.validate(named), Either.right(named))
    assert.deepStrictEqual(LspToolInput.validate({ ...named, character: 4 }), Either.right({ ...named, character: 4 }))
  })

  it("still checks a character that is given, before the symbol", () => {
    assertRejected(
      { ...named, character: 0, symbol: "a b" },
      "character",
      `Invalid "character" (got 0): ${characterFix}`
    )
  })

  it("rejects a symbol that is not a string or not one identifier", () => {
    assertRejected(
      { ...named, symbol: 3 },
      "symbol",
      "Invalid \"symbol\" (got 3): give the identifier's name as a string, e.g. \"parseConfig\"."
    )
    assertRejected(
      { ...named, symbol: "this.add" },
      "symbol",
      "Invalid \"symbol\" (got \"this.add\"): give one identifier, not an expression; it contains this, add: " +
        "send the one to query, e.g. \"add\"."
    )
    assert.strictEqual(failure({ ...named, symbol: "" }).detail?.argument, "symbol")
    assert.strictEqual(failure({ ...named, symbol: "42" }).detail?.argument, "symbol")
  })

  it("keeps the order operation, file_path, line, then character/symbol", () => {
    const allBad = { operation: "x", file_path: "", line: 0, symbol: "a.b" }
    assert.strictEqual(failure(allBad).detail?.argument, "operation")
    assert.strictEqual(failure({ ...allBad, operation: "hover", file_path: "a.ts" }).detail?.argument, "line")
    assert.strictEqual(
      failure({ ...allBad, operation: "hover", file_path: "a.ts", line: 1 }).detail?.argument,
      "symbol"
    )
  })

  it("passes symbol to the seam with character - 1, or 0 without a character", () => {
    assert.deepStrictEqual(LspToolInput.toQueryRequest(named, "/w"), {
      operation: "hover",
      filePath: "m.js",
      position: { line: 0, character: 0 },
      workspaceRoot: "/w",
      symbol: "add"
    })
    assert.deepStrictEqual(LspToolInput.toQueryRequest({ ...named, line: 4, character: 9 }, "/w").position, {
      line: 3,
      character: 8
    })
  })
})

describe("LspToolInput positions", () => {
  it("converts one-based tool positions to zero-based seam positions and back", () => {
    assert.deepStrictEqual(LspToolInput.toSeamPosition({ line: 1, character: 1 }), { line: 0, character: 0 })
    assert.deepStrictEqual(LspToolInput.toSeamPosition({ line: 10, character: 4 }), { line: 9, character: 3 })
    assert.deepStrictEqual(LspToolInput.fromSeamPosition({ line: 0, character: 0 }), { line: 1, character: 1 })
    assert.deepStrictEqual(LspToolInput.fromSeamPosition({ line: 9, character: 3 }), { line: 10, character: 4 })
  })

  it.prop(
    "round-trips every valid position",
    [FastCheck.integer({ min: 1, max: 2 ** 31 }), FastCheck.integer({ min: 1, max: 2 ** 31 })],
    ([line, character]) => {
      const seam = LspToolInput.toSeamPosition({ line, character })
      assert.isTrue(seam.line >= 0 && seam.character >= 0)
      assert.deepStrictEqual(LspToolInput.fromSeamPosition(seam), { line, character })
    }
  )

  it("builds the seam request", () => {
    assert.deepStrictEqual(
      LspToolInput.toQueryRequest({ operation: "hover", file_path: "a.ts", line: 2, character: 5 }, "/w"),
      { operation: "hover", filePath: "a.ts", position: { line: 1, character: 4 }, workspaceRoot: "/w" }
    )
  })
})

describe("LspToolInput.jsonSchema", () => {
  it("is the closed, described object the model sees", () => {
    assert.deepStrictEqual(LspToolInput.jsonSchema, {
      type: "object",
      required: ["operation", "file_path", "line"],
      properties: {
        operation: {
          type: "string",
          enum: ["goToDefinition", "findReferences", "goToImplementation", "hover"],
          description: "goToDefinition: where the symbol is defined. findReferences: every use of the symbol, " +
            "including its declaration. goToImplementation: implementations of an interface or abstract member. " +
            "hover: the symbol's type and documentation."
        },
        file_path: {
          type: "string",
          description: "The file containing the symbol, relative to the workspace root or absolute.",
          pattern: "\\S"
        },
        line: {
          type: "integer",
          description: "One-based line of the symbol (the first line is 1).",
          minimum: 1
        },
        character: {
          type: "integer",
          description:
            "One-based column of the symbol within its line, in UTF-16 code units (the first character is 1).",
          minimum: 1
        },
        symbol: {
          type: "string",
          description: "The identifier to query, searched on line, then up to 3 lines away; character is then optional."
        }
      },
      additionalProperties: false
    })
  })

  it("agrees with validation: the schema's pattern is what non-blank means", () => {
    const shape = Schema.Struct({ properties: Schema.Struct({ file_path: Schema.Struct({ pattern: Schema.String }) }) })
    const pattern = new RegExp(Schema.decodeUnknownSync(shape)(LspToolInput.jsonSchema).properties.file_path.pattern)
    for (const path of ["a", " a ", "", " ", "\t\n"]) {
      assert.strictEqual(pattern.test(path), Either.isRight(LspToolInput.validate({ ...valid, file_path: path })))
    }
  })

  it("has a description for the tool", () => {
    assert.strictEqual(LspToolInput.name, "lsp")
    assert.isTrue(LspToolInput.description.includes("findReferences (always includes the declaration)"))
  })
})
