import { assert, describe, it } from "@effect/vitest"
import { LspError, LspQuery } from "@lsp-seam/lsp"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import * as LspToolInput from "../src/LspToolInput.js"

const valid: LspToolInput.LspToolInput = { operation: "goToDefinition", file_path: "src/a.ts", line: 3, character: 7 }

const four = LspQuery.referenceOperations

const failure = (input: unknown, operations?: LspToolInput.Operations): LspError.LspError => {
  const result = LspToolInput.validate(input, operations)
  if (Either.isRight(result)) assert.fail(`expected ${JSON.stringify(input)} to be rejected`)
  return result.left
}

const assertRejected = (
  input: unknown,
  argument: string | undefined,
  message: string,
  operations?: LspToolInput.Operations
) => {
  const error = failure(input, operations)
  assert.isTrue(LspError.isLspError(error))
  assert.strictEqual(error.code, "LSP_INVALID_ARGUMENTS")
  assert.strictEqual(error.message, message)
  assert.deepStrictEqual(error.detail, argument === undefined ? undefined : { argument })
}

const operationFix = "use one of goToDefinition, findReferences, goToImplementation, hover, goToTypeDefinition, " +
  "incomingCalls, outgoingCalls, documentSymbol, workspaceSymbol, diagnostics, renamePreview, impact."
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
        `The lsp tool takes an object with "operation", "file_path", "line", and "character" or "symbol" (got ${got}).`,
        four
      )
      assertRejected(
        input,
        undefined,
        `The lsp tool takes an object with "operation" and that operation's arguments (got ${got}).`
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
    assert.deepStrictEqual(LspToolInput.toQueryRequest({ ...named, line: 4, character: 9 }, "/w"), {
      operation: "hover",
      filePath: "m.js",
      position: { line: 3, character: 8 },
      workspaceRoot: "/w",
      symbol: "add"
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
  it("with exactly the reference's four operations, is 0.1.0's schema verbatim", () => {
    assert.deepStrictEqual(LspToolInput.jsonSchemaFor(four), {
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

  it("with exactly the four, has 0.1.0's compact schema and description, byte for byte, in any order", () => {
    // Taken from git (HEAD at 0.1.0's tool): what every deployed model has been reading.
    const schema = "{\"type\":\"object\",\"required\":[\"operation\",\"file_path\",\"line\"],\"properties\":{" +
      "\"operation\":{\"type\":\"string\",\"enum\":[\"goToDefinition\",\"findReferences\",\"goToImplementation\"," +
      "\"hover\"],\"description\":\"goToDefinition: where the symbol is defined. findReferences: every use of the " +
      "symbol, including its declaration. goToImplementation: implementations of an interface or abstract member. " +
      "hover: the symbol's type and documentation.\"},\"file_path\":{\"type\":\"string\",\"description\":\"The " +
      "file containing the symbol, relative to the workspace root or absolute.\",\"pattern\":\"\\\\S\"},\"line\":{" +
      "\"type\":\"integer\",\"description\":\"One-based line of the symbol (the first line is 1).\",\"minimum\":1}," +
      "\"character\":{\"type\":\"integer\",\"description\":\"One-based column of the symbol within its line, in " +
      "UTF-16 code units (the first character is 1).\",\"minimum\":1},\"symbol\":{\"type\":\"string\"," +
      "\"description\":\"The identifier to query, searched on line, then up to 3 lines away; character is then " +
      "optional.\"}},\"additionalProperties\":false}"
    const description = "Precise, read-only code navigation through the project's language server: " +
      "goToDefinition, findReferences (always includes the declaration), goToImplementation, and hover (type " +
      "and documentation). Point at a symbol with file_path and its one-based line and character, or name it " +
      "with symbol near line. Locations come back as path:line:character lines (one-based), grouped by file, " +
      "relative to the workspace when inside it."
    for (const operations of [four, [...four].reverse()]) {
      assert.strictEqual(JSON.stringify(LspToolInput.jsonSchemaFor(operations)), schema)
      assert.strictEqual(LspToolInput.descriptionFor(operations), description)
    }
  })

  it("by default offers all twelve operations in one flat object, requiring only operation", () => {
    assert.deepStrictEqual(LspToolInput.jsonSchema, {
      type: "object",
      required: ["operation"],
      properties: {
        operation: {
          type: "string",
          enum: [
            "goToDefinition",
            "findReferences",
            "goToImplementation",
            "hover",
            "goToTypeDefinition",
            "incomingCalls",
            "outgoingCalls",
            "documentSymbol",
            "workspaceSymbol",
            "diagnostics",
            "renamePreview",
            "impact"
          ],
          description: "goToDefinition: where the symbol is defined. findReferences: every use of the symbol, " +
            "including its declaration. goToImplementation: implementations of an interface or abstract member. " +
            "hover: the symbol's type and documentation. goToTypeDefinition: where the symbol's type is defined. " +
            "incomingCalls: the functions that call the function at the position, with call sites. outgoingCalls: " +
            "the functions it calls, with call sites. documentSymbol: the symbols declared in file_path, nested. " +
            "workspaceSymbol: declarations whose name matches query, across the workspace. diagnostics: the errors " +
            "and warnings of file_path as it is on disk now. renamePreview: every edit renaming the symbol to " +
            "new_name would make (nothing is written). impact: the symbol's uses grouped by the declaration each " +
            "is in, the callers of those declarations level after level up to depth, and the test code among them."
        },
        file_path: {
          type: "string",
          description: "The file to query, relative to the workspace root or absolute; optional for workspaceSymbol.",
          pattern: "\\S"
        },
        line: { type: "integer", description: "One-based line of the symbol (the first line is 1).", minimum: 1 },
        character: {
          type: "integer",
          description:
            "One-based column of the symbol within its line, in UTF-16 code units (the first character is 1).",
          minimum: 1
        },
        symbol: {
          type: "string",
          description: "The identifier to query, searched on line, then up to 3 lines away; character is then optional."
        },
        query: {
          type: "string",
          description: "workspaceSymbol: the name or part of a name to search for.",
          pattern: "\\S"
        },
        severity: {
          type: "string",
          enum: ["error", "warning", "information", "hint"],
          description: "diagnostics: the least serious kind to include (default warning: errors and warnings)."
        },
        include_body: {
          type: "boolean",
          description: "goToDefinition, goToTypeDefinition, goToImplementation, documentSymbol, workspaceSymbol: " +
            "true to get each location's code (the whole declaration, with line numbers) in the same answer."
        },
        new_name: { type: "string", description: "renamePreview: the new name of the symbol.", pattern: "\\S" },
        depth: {
          type: "integer",
          description: "impact: how many levels of callers to follow above the uses (1 to 5, default 2).",
          minimum: 1,
          maximum: 5
        }
      },
      additionalProperties: false
    })
    assert.strictEqual(LspToolInput.description, LspToolInput.descriptionFor(LspToolInput.allOperations))
    assert.include(LspToolInput.description, "documentSymbol takes file_path only.")
    assert.include(LspToolInput.description, "Arguments an operation does not take are ignored.")
  })

  it("describes only what the offered operations take", () => {
    const documentOnly = LspToolInput.jsonSchemaFor(["documentSymbol"]) as { required: unknown; properties: object }
    assert.deepStrictEqual(documentOnly.required, ["operation", "file_path"])
    assert.deepStrictEqual(Object.keys(documentOnly.properties), ["operation", "file_path", "include_body"])
    const searchOnly = LspToolInput.jsonSchemaFor(["workspaceSymbol"]) as { required: unknown; properties: object }
    assert.deepStrictEqual(searchOnly.required, ["operation"])
    assert.deepStrictEqual(Object.keys(searchOnly.properties), ["operation", "file_path", "query", "include_body"])
    const calls = LspToolInput.jsonSchemaFor(["incomingCalls", "hover"]) as { required: unknown; properties: object }
    assert.deepStrictEqual(calls.required, ["operation", "file_path", "line"])
    assert.deepStrictEqual(Object.keys(calls.properties), ["operation", "file_path", "line", "character", "symbol"])
    assert.strictEqual(
      LspToolInput.descriptionFor(["workspaceSymbol"]),
      "Precise, read-only code navigation through the project's language server: workspaceSymbol (find " +
        "declarations by name). workspaceSymbol takes query, and file_path to search only that file's language " +
        "server. include_body: true adds each definition's or symbol's code. Results come back as " +
        "path:line:character lines (one-based), grouped by file, relative to the workspace when inside it."
    )
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

describe("LspToolInput.validate per operation", () => {
  it("accepts every position operation with a position, and converts it to a position request", () => {
    for (const operation of LspQuery.LspPositionOperation.literals) {
      const input = { ...valid, operation }
      assert.deepStrictEqual(LspToolInput.validate(input), Either.right(input))
      assert.deepStrictEqual(LspToolInput.toQueryRequest(input, "/w"), {
        operation,
        filePath: "src/a.ts",
        position: { line: 2, character: 6 },
        workspaceRoot: "/w"
      })
    }
  })

  it("checks incomingCalls and outgoingCalls positions as any position operation", () => {
    const calls = { operation: "incomingCalls", file_path: "m.ts" }
    assertRejected(calls, "line", `Missing "line": ${lineFix}`)
    assertRejected(
      { ...calls, line: 2 },
      "character",
      `Missing "character": ${characterFix} Or send "symbol", the identifier's name.`
    )
    assert.deepStrictEqual(
      LspToolInput.validate({ operation: "outgoingCalls", file_path: "m.ts", line: 2, symbol: "main" }),
      Either.right({ operation: "outgoingCalls", file_path: "m.ts", line: 2, symbol: "main" })
    )
  })

  it("documentSymbol takes file_path only, ignoring a position sent with it", () => {
    const expected = { operation: "documentSymbol", file_path: "src/a.ts" } as const
    assert.deepStrictEqual(LspToolInput.validate(expected), Either.right(expected))
    assert.deepStrictEqual(
      LspToolInput.validate({ ...expected, line: 0, character: "x", symbol: 3, query: "" }),
      Either.right(expected)
    )
    assert.deepStrictEqual(LspToolInput.toQueryRequest(expected, "/w"), {
      operation: "documentSymbol",
      filePath: "src/a.ts",
      workspaceRoot: "/w"
    })
  })

  it("documentSymbol without a usable file_path says what to send", () => {
    const fix = "documentSymbol needs file_path, the file whose symbols to list, relative to the workspace root " +
      "or absolute (it takes no line or character)."
    assertRejected({ operation: "documentSymbol", line: 3 }, "file_path", `Missing "file_path": ${fix}`)
    assertRejected(
      { operation: "documentSymbol", file_path: " " },
      "file_path",
      `Invalid "file_path" (got " " (a string)): ${fix}`
    )
  })

  it("workspaceSymbol needs query; file_path is optional", () => {
    const fix = "workspaceSymbol needs query: the name or part of a name to search for, e.g. \"parseConfig\"."
    assertRejected({ operation: "workspaceSymbol" }, "query", `Missing "query": ${fix}`)
    assertRejected(
      { operation: "workspaceSymbol", file_path: "a.ts", line: 1, character: 1 },
      "query",
      `Missing "query": ${fix}`
    )
    assertRejected(
      { operation: "workspaceSymbol", query: " \t" },
      "query",
      `Invalid "query" (got " \\t" (a string)): ${fix}`
    )
    assertRejected({ operation: "workspaceSymbol", query: 7 }, "query", `Invalid "query" (got 7): ${fix}`)
    assert.deepStrictEqual(
      LspToolInput.validate({ operation: "workspaceSymbol", query: "Circle", line: 0 }),
      Either.right({ operation: "workspaceSymbol", query: "Circle" })
    )
    assert.deepStrictEqual(
      LspToolInput.validate({ operation: "workspaceSymbol", query: "Circle", file_path: "a.ts" }),
      Either.right({ operation: "workspaceSymbol", query: "Circle", file_path: "a.ts" })
    )
  })

  it("workspaceSymbol refuses a file_path that is given but unusable", () => {
    assertRejected(
      { operation: "workspaceSymbol", query: "Circle", file_path: "" },
      "file_path",
      "Invalid \"file_path\" (got \"\" (a string)): for workspaceSymbol, file_path is optional: leave it out to " +
        "search every language server, or give a file (relative to the workspace root or absolute) to search only " +
        "its language server."
    )
  })

  it("converts workspaceSymbol with and without a file", () => {
    assert.deepStrictEqual(LspToolInput.toQueryRequest({ operation: "workspaceSymbol", query: "Circle" }, "/w"), {
      operation: "workspaceSymbol",
      query: "Circle",
      workspaceRoot: "/w"
    })
    assert.deepStrictEqual(
      LspToolInput.toQueryRequest({ operation: "workspaceSymbol", query: "Circle", file_path: "a.ts" }, "/w"),
      { operation: "workspaceSymbol", query: "Circle", workspaceRoot: "/w", filePath: "a.ts" }
    )
  })

  it("checks operation before that operation's arguments", () => {
    assert.strictEqual(failure({ operation: "search", query: "" }).detail?.argument, "operation")
    assert.strictEqual(failure({ operation: "workspaceSymbol", query: "", file_path: "" }).detail?.argument, "query")
  })

  it("refuses an operation the tool does not offer, listing the offered ones", () => {
    assertRejected(
      { operation: "documentSymbol", file_path: "a.ts" },
      "operation",
      "Invalid \"operation\" (got \"documentSymbol\" (a string)): this tool does not offer documentSymbol; use one " +
        "of goToDefinition, findReferences, goToImplementation, hover.",
      four
    )
    assertRejected(
      { ...valid, operation: "hover" },
      "operation",
      "Invalid \"operation\" (got \"hover\" (a string)): this tool does not offer hover; use one of " +
        "goToDefinition, documentSymbol.",
      ["documentSymbol", "goToDefinition"]
    )
  })

  it("never offers a seam operation it has no arguments and rendering for", () => {
    for (const operation of LspQuery.LspOperation.literals) {
      if ((LspToolInput.allOperations as ReadonlyArray<string>).includes(operation)) continue
      assertRejected(
        { operation, file_path: "a.ts" },
        "operation",
        `Invalid "operation" (got "${operation}" (a string)): this tool does not offer ${operation}; ${operationFix}`
      )
    }
  })

  it.prop(
    "accepts exactly the offered operations",
    [FastCheck.subarray([...LspToolInput.allOperations], { minLength: 1 })],
    ([offered]) => {
      for (const operation of LspQuery.LspOperation.literals) {
        const args = { operation, file_path: "a.ts", line: 1, character: 1, query: "a", new_name: "b" }
        assert.strictEqual(
          Either.isRight(LspToolInput.validate(args, offered)),
          (offered as ReadonlyArray<string>).includes(operation)
        )
      }
    }
  )
})

describe("LspToolInput diagnostics", () => {
  const refused = (input: unknown) => {
    const result = LspToolInput.validate(input)
    if (Either.isRight(result)) return assert.fail(`accepted ${JSON.stringify(result.right)}`)
    assert.strictEqual(result.left.code, "LSP_INVALID_ARGUMENTS")
    return result.left
  }

  it("needs file_path, takes an optional severity, and ignores a position", () => {
    assert.include(refused({ operation: "diagnostics" }).message, "diagnostics needs file_path")
    assert.include(refused({ operation: "diagnostics", file_path: "a.ts", severity: "fatal" }).message, "\"hint\"")
    const plain = LspToolInput.validate({ operation: "diagnostics", file_path: "a.ts", line: 3 })
    assert.deepStrictEqual(plain, Either.right({ operation: "diagnostics", file_path: "a.ts" }))
    const hints = LspToolInput.validate({ operation: "diagnostics", file_path: "a.ts", severity: "hint" })
    if (Either.isLeft(hints)) return assert.fail(hints.left.message)
    assert.deepStrictEqual(LspToolInput.toQueryRequest(hints.right, "/w"), {
      operation: "diagnostics",
      filePath: "a.ts",
      workspaceRoot: "/w",
      severity: "hint"
    })
  })

  it("is refused by a tool that does not offer it", () => {
    const four = LspToolInput.validate({ operation: "diagnostics", file_path: "a.ts" }, LspQuery.referenceOperations)
    if (Either.isRight(four)) return assert.fail("accepted")
    assert.include(four.left.message, "this tool does not offer diagnostics")
  })
})
