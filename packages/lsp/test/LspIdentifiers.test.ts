import { assert, describe, it } from "@effect/vitest"
import type { LspError } from "@lsp-seam/lsp"
import { LspIdentifiers, LspResult } from "@lsp-seam/lsp"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"

const left = <A>(either: Either.Either<A, LspError.LspError>): LspError.LspError => {
  if (Either.isRight(either)) assert.fail(`expected a failure, got ${JSON.stringify(either.right)}`)
  return either.left
}

const right = <A>(either: Either.Either<A, LspError.LspError>): A => {
  if (Either.isLeft(either)) assert.fail(`expected a success, got ${either.left.code}: ${either.left.message}`)
  return either.right
}

const names = (line: string) => LspIdentifiers.identifiersOn(line).map((id) => [id.name, id.character])

describe("LspIdentifiers.splitLines", () => {
  it("splits at \\r\\n, \\n and \\r, keeping empty lines", () => {
    assert.deepStrictEqual(LspIdentifiers.splitLines("a\r\nb\nc\rd"), ["a", "b", "c", "d"])
    assert.deepStrictEqual(LspIdentifiers.splitLines("a\n\nb"), ["a", "", "b"])
    assert.deepStrictEqual(LspIdentifiers.splitLines("a\r\r\nb"), ["a", "", "b"])
  })

  it("counts an empty file as one empty line and a final terminator as a last empty line", () => {
    assert.deepStrictEqual(LspIdentifiers.splitLines(""), [""])
    assert.deepStrictEqual(LspIdentifiers.splitLines("a\n"), ["a", ""])
  })
})

describe("LspIdentifiers.identifiersOn", () => {
  it("finds maximal runs of identifier characters with their columns", () => {
    assert.deepStrictEqual(names("const x = add(x1, y_2)"), [["const", 0], ["x", 6], ["add", 10], ["x1", 14], [
      "y_2",
      18
    ]])
  })

  it("accepts $ and _ anywhere, and non-ASCII letters and ZWJ/ZWNJ as ECMAScript does", () => {
    assert.deepStrictEqual(names("$el _private café Δx a\u200Db"), [["$el", 0], ["_private", 4], ["café", 13], [
      "Δx",
      18
    ], ["a\u200Db", 21]])
  })

  it("skips runs that start with a digit: numbers, hex literals and 123abc are not identifiers", () => {
    assert.deepStrictEqual(names("f(123, 0x1F, 1e5, 123abc, a1)"), [["f", 0], ["a1", 26]])
  })

  it("splits at punctuation a language might treat as part of a name (-, ., #, @)", () => {
    assert.deepStrictEqual(names("foo-bar a.b #p @d"), [["foo", 0], ["bar", 4], ["a", 8], ["b", 10], ["p", 13], [
      "d",
      16
    ]])
  })

  it("counts columns in UTF-16 code units: an astral character before a name counts 2", () => {
    assert.deepStrictEqual(names("😀 add 𝒳y"), [["add", 3], ["𝒳y", 7]])
    // 𝒳 (U+1D4B3) is a letter outside the BMP: part of the identifier, two code units long.
    assert.strictEqual("😀 add 𝒳y".slice(7, 10), "𝒳y")
  })

  it("finds nothing on blank lines or lines of punctuation", () => {
    assert.deepStrictEqual(names(""), [])
    assert.deepStrictEqual(names("  {}();  // 42"), [])
  })

  it.prop(
    "every identifier it finds is one identifier, found at its column",
    [FastCheck.string({ unit: "binary", maxLength: 60 })],
    ([line]) => {
      for (const id of LspIdentifiers.identifiersOn(line)) {
        assert.strictEqual(line.slice(id.character, id.character + id.name.length), id.name)
        assert.deepStrictEqual(LspIdentifiers.identifiersOn(id.name), [{ name: id.name, character: 0 }])
      }
    }
  )
})

describe("LspIdentifiers.checkPosition", () => {
  const lines = LspIdentifiers.splitLines("ab\n\nabcd")

  it("accepts every position in the file, including the end of each line", () => {
    for (const [line, character] of [[0, 0], [0, 2], [1, 0], [2, 4]] as const) {
      assert.isTrue(Either.isRight(LspIdentifiers.checkPosition(lines, { line, character })), `${line}:${character}`)
    }
  })

  it("refuses a line past the end, saying how many lines the file has", () => {
    const error = left(LspIdentifiers.checkPosition(lines, { line: 3, character: 0 }))
    assert.strictEqual(error.code, "LSP_POSITION_OUT_OF_RANGE")
    assert.strictEqual(error.message, "Line 4 is past the end of the file, which has 3 lines: give a line from 1 to 3.")
    assert.deepStrictEqual(error.detail, { line: 3, lineCount: 3 })
  })

  it("refuses a character past the end of its line, saying how long the line is", () => {
    const error = left(LspIdentifiers.checkPosition(lines, { line: 0, character: 3 }))
    assert.strictEqual(error.code, "LSP_POSITION_OUT_OF_RANGE")
    assert.strictEqual(
      error.message,
      "Column 4 is past the end of line 1, which has 2 characters (UTF-16 code units): give a column from 1 to 3."
    )
    assert.deepStrictEqual(error.detail, { line: 0, character: 3, lineLength: 2 })
    assert.include(left(LspIdentifiers.checkPosition(lines, { line: 1, character: 1 })).message, "has 0 characters")
  })

  it("treats an empty file as one empty line", () => {
    const empty = LspIdentifiers.splitLines("")
    assert.isTrue(Either.isRight(LspIdentifiers.checkPosition(empty, { line: 0, character: 0 })))
    assert.include(left(LspIdentifiers.checkPosition(empty, { line: 1, character: 0 })).message, "which has 1 line:")
  })
})

describe("LspIdentifiers.resolveSymbol", () => {
  const source = [
    "import { add } from \"./m.js\"", // 0
    "", // 1
    "// add two numbers", // 2
    "const total = add(1, 2) + add(3, 4)", // 3
    "const label = \"add\" + total", // 4
    "", // 5
    "export { total }" // 6
  ]

  const resolve = (line: number, character: number, symbol: string) =>
    right(LspIdentifiers.resolveSymbol(source, { line, character }, symbol))

  it("finds the symbol on the requested line", () => {
    assert.deepStrictEqual(resolve(6, 0, "total"), {
      symbol: "total",
      position: { line: 6, character: 9 },
      requested: { line: 6, character: 0 },
      occurrences: 1
    })
  })

  it("with several occurrences, takes the one at the character, else the nearest, else the first", () => {
    assert.deepStrictEqual(resolve(3, 28, "add").position, { line: 3, character: 26 }) // inside the second
    assert.deepStrictEqual(resolve(3, 29, "add").position, { line: 3, character: 26 }) // just after it
    assert.deepStrictEqual(resolve(3, 34, "add").position, { line: 3, character: 26 }) // nearest start
    assert.deepStrictEqual(resolve(3, 15, "add").position, { line: 3, character: 14 })
    assert.deepStrictEqual(resolve(3, 0, "add").position, { line: 3, character: 14 }) // no column: the first
    assert.strictEqual(resolve(3, 0, "add").occurrences, 2)
  })

  it("at equal distance between two starts, takes the earlier one", () => {
    assert.deepStrictEqual(
      right(LspIdentifiers.resolveSymbol(["a = x + a"], { line: 0, character: 4 }, "a")).position,
      {
        line: 0,
        character: 0
      }
    )
  })

  it("moves to the nearest line within the window, the line above first at equal distance", () => {
    assert.deepStrictEqual(resolve(1, 5, "add"), {
      symbol: "add",
      position: { line: 0, character: 9 },
      requested: { line: 1, character: 5 },
      occurrences: 1
    })
    const lines = ["x", "", "x"]
    assert.deepStrictEqual(right(LspIdentifiers.resolveSymbol(lines, { line: 1, character: 0 }, "x")).position, {
      line: 0,
      character: 0
    })
    assert.deepStrictEqual(resolve(5, 0, "total").position, { line: 4, character: 22 })
  })

  it("searches at most symbolWindow lines away", () => {
    const lines = ["target", "", "", "", "", "", "target"]
    assert.strictEqual(LspIdentifiers.symbolWindow, 3)
    assert.deepStrictEqual(right(LspIdentifiers.resolveSymbol(lines, { line: 3, character: 0 }, "target")).position, {
      line: 0,
      character: 0
    })
    assert.deepStrictEqual(right(LspIdentifiers.resolveSymbol(lines, { line: 4, character: 0 }, "target")).position, {
      line: 6,
      character: 0
    })
    const far = ["target", "", "", "", "", ""]
    assert.strictEqual(
      left(LspIdentifiers.resolveSymbol(far, { line: 4, character: 0 }, "target")).code,
      "LSP_SYMBOL_NOT_FOUND"
    )
  })

  it("matches whole identifiers only", () => {
    const lines = ["const adder = addition + add_one", "add"]
    assert.deepStrictEqual(right(LspIdentifiers.resolveSymbol(lines, { line: 0, character: 0 }, "add")).position, {
      line: 1,
      character: 0
    })
  })

  it("skips an occurrence in a string or a comment for code nearby; character chooses among code ones", () => {
    // Line 4 has `add` only inside a string literal: the code on line 3 (one above) is used instead.
    assert.deepStrictEqual(resolve(4, 0, "add"), {
      symbol: "add",
      position: { line: 3, character: 14 },
      requested: { line: 4, character: 0 },
      occurrences: 2
    })
    // Line 2 has it only in a comment: line 3 again (line 1 has none; 3 is the nearest with code).
    assert.deepStrictEqual(resolve(2, 0, "add").position, { line: 3, character: 14 })
    // With the code and a string on one line, the code one, whatever the character.
    const mixed = ["log(\"add\", add)"]
    for (const character of [0, 5, 11]) {
      assert.deepStrictEqual(right(LspIdentifiers.resolveSymbol(mixed, { line: 0, character }, "add")).position, {
        line: 0,
        character: 11
      })
    }
    assert.strictEqual(right(LspIdentifiers.resolveSymbol(mixed, { line: 0, character: 0 }, "add")).occurrences, 1)
  })

  it("counts UTF-16 code units after astral characters", () => {
    const lines = ["const s = \"😀😀\"; add(s)"]
    const found = right(LspIdentifiers.resolveSymbol(lines, { line: 0, character: 0 }, "add"))
    assert.deepStrictEqual(found.position, { line: 0, character: 18 })
    assert.strictEqual(lines[0]!.slice(18, 21), "add")
  })

  it("fails with LSP_SYMBOL_NOT_FOUND listing the requested line's identifiers with one-based columns", () => {
    const error = left(LspIdentifiers.resolveSymbol(source, { line: 3, character: 0 }, "subtract"))
    assert.strictEqual(error.code, "LSP_SYMBOL_NOT_FOUND")
    assert.strictEqual(
      error.message,
      "`subtract` does not occur as a whole identifier on line 4 or within 3 lines of it (lines 1-7); " +
        "identifiers on line 4: const (column 1), total (column 7), add (column 15), add (column 27). " +
        "Check the name and the line (read the file), or send character without symbol."
    )
    assert.deepStrictEqual(error.detail, {
      symbol: "subtract",
      line: 3,
      character: 0,
      window: 3,
      identifiers: [{ name: "const", character: 0 }, { name: "total", character: 6 }, { name: "add", character: 14 }, {
        name: "add",
        character: 26
      }]
    })
  })

  it("says when the requested line has no identifiers, and caps a long list", () => {
    assert.include(
      left(LspIdentifiers.resolveSymbol(source, { line: 1, character: 0 }, "nothing")).message,
      "; line 2 has no identifiers."
    )
    const long = [Array.from({ length: 35 }, (_, i) => `v${i}`).join(" ")]
    const message = left(LspIdentifiers.resolveSymbol(long, { line: 0, character: 0 }, "w")).message
    assert.include(message, "v29 (column 107), … and 5 more.")
    assert.notInclude(message, "v30")
  })

  it("refuses a line past the end with LSP_POSITION_OUT_OF_RANGE, but not a character past the end", () => {
    const error = left(LspIdentifiers.resolveSymbol(source, { line: 7, character: 0 }, "total"))
    assert.strictEqual(error.code, "LSP_POSITION_OUT_OF_RANGE")
    assert.include(error.message, "which has 7 lines")
    assert.deepStrictEqual(resolve(6, 500, "total").position, { line: 6, character: 9 })
  })

  it("refuses a symbol that is not exactly one identifier, naming the identifiers in it", () => {
    const error = left(LspIdentifiers.resolveSymbol(source, { line: 3, character: 0 }, "Math.max"))
    assert.strictEqual(error.code, "LSP_INVALID_ARGUMENTS")
    assert.deepStrictEqual(error.detail, { argument: "symbol" })
    assert.strictEqual(
      error.message,
      "Invalid \"symbol\" (got \"Math.max\"): give one identifier, not an expression; it contains Math, max: " +
        "send the one to query, e.g. \"max\"."
    )
    for (const bad of ["a b", " add", "add()", "123", "", "(", "1abc"]) {
      assert.strictEqual(
        left(LspIdentifiers.resolveSymbol(source, { line: 3, character: 0 }, bad)).code,
        "LSP_INVALID_ARGUMENTS",
        bad
      )
    }
    assert.include(left(LspIdentifiers.checkSymbol("123")).message, "give one identifier as it appears in the code")
  })

  it.prop(
    "every identifier on a line resolves to an occurrence of itself on that line, and to itself from its own column",
    [FastCheck.array(FastCheck.string({ unit: "binary", maxLength: 30 }), { minLength: 1, maxLength: 8 })],
    ([lines]) => {
      lines.forEach((text, line) => {
        for (const id of LspIdentifiers.identifiersOn(text)) {
          const fromStart = right(LspIdentifiers.resolveSymbol(lines, { line, character: 0 }, id.name))
          assert.strictEqual(fromStart.position.line, line)
          assert.strictEqual(text.slice(fromStart.position.character).startsWith(id.name), true)
          const exact = right(LspIdentifiers.resolveSymbol(lines, { line, character: id.character }, id.name))
          assert.deepStrictEqual(exact.position, { line, character: id.character })
        }
      })
    }
  )
})

describe("LspIdentifiers.offIdentifier", () => {
  const lines = ["  const x = add(1, 2)", ""]

  it("is undefined on an identifier, from its first character to just after its last", () => {
    for (const character of [2, 5, 7, 8, 12, 15]) {
      assert.isUndefined(LspIdentifiers.offIdentifier(lines, { line: 0, character }), String(character))
    }
  })

  it("lists the line's identifiers when the position is off them", () => {
    assert.deepStrictEqual(LspIdentifiers.offIdentifier(lines, { line: 0, character: 0 }), {
      line: 0,
      character: 0,
      identifiers: [{ name: "const", character: 2 }, { name: "x", character: 8 }, { name: "add", character: 12 }]
    })
    assert.deepStrictEqual(LspIdentifiers.offIdentifier(lines, { line: 0, character: 17 })?.character, 17)
    assert.deepStrictEqual(LspIdentifiers.offIdentifier(lines, { line: 1, character: 0 }), {
      line: 1,
      character: 0,
      identifiers: []
    })
  })

  it("is undefined outside the document (checkPosition reports that)", () => {
    assert.isUndefined(LspIdentifiers.offIdentifier(lines, { line: 5, character: 0 }))
  })

  it("formats identifiers with one-based columns", () => {
    assert.strictEqual(
      LspIdentifiers.describeLine(0, LspIdentifiers.identifiersOn(lines[0]!)),
      "identifiers on line 1: const (column 3), x (column 9), add (column 13)"
    )
    assert.strictEqual(LspIdentifiers.describeLine(1, []), "line 2 has no identifiers")
  })
})

describe("LspIdentifiers.locate and annotate", () => {
  const lines = ["const x = add(1, 2)", "  "]
  const empty = LspResult.locations([], "file:///w")

  it("uses a position exactly as given without symbol, and checks it", () => {
    assert.deepStrictEqual(right(LspIdentifiers.locate(lines, { line: 0, character: 5 })), {
      position: { line: 0, character: 5 },
      resolved: undefined
    })
    assert.strictEqual(left(LspIdentifiers.locate(lines, { line: 0, character: 20 })).code, "LSP_POSITION_OUT_OF_RANGE")
    assert.strictEqual(left(LspIdentifiers.locate(lines, { line: 2, character: 0 })).code, "LSP_POSITION_OUT_OF_RANGE")
  })

  it("resolves with symbol and records it on the answer", () => {
    const located = right(LspIdentifiers.locate(lines, { line: 1, character: 0 }, "add"))
    assert.deepStrictEqual(located.position, { line: 0, character: 10 })
    const answered = LspIdentifiers.annotate(LspResult.hover({ contents: "add" }), lines, located)
    assert.deepStrictEqual(answered.resolved, located.resolved)
    assert.isUndefined(answered.offIdentifier)
  })

  it("explains an empty answer off any identifier, and only an empty one", () => {
    const located = right(LspIdentifiers.locate(lines, { line: 0, character: 8 }))
    assert.deepStrictEqual(LspIdentifiers.annotate(empty, lines, located).offIdentifier, {
      line: 0,
      character: 8,
      identifiers: [{ name: "const", character: 0 }, { name: "x", character: 6 }, { name: "add", character: 10 }]
    })
    assert.isDefined(LspIdentifiers.annotate(LspResult.hover(null), lines, located).offIdentifier)
    const full = LspResult.locations([{
      uri: "file:///w/a",
      range: { start: located.position, end: located.position }
    }], "file:///w")
    assert.deepStrictEqual(LspIdentifiers.annotate(full, lines, located), full)
    const onName = right(LspIdentifiers.locate(lines, { line: 0, character: 6 }))
    assert.deepStrictEqual(LspIdentifiers.annotate(empty, lines, onName), empty)
  })
})

describe("LspIdentifiers: strings and comments", () => {
  const spans = (text: string) => LspIdentifiers.nonCodeSpans(text).map(([from, to]) => text.slice(from, to))

  it("nonCodeSpans finds quoted strings, line and block comments, and leaves the rest as code", () => {
    assert.deepStrictEqual(spans(`const msg = "parse failed"; const n = parse(text)`), [`"parse failed"`])
    assert.deepStrictEqual(spans(`x = 'it\\'s' + parse(y)  # parse it`), [`'it\\'s'`, "# parse it"])
    assert.deepStrictEqual(spans("call(a) // parse later"), ["// parse later"])
    assert.deepStrictEqual(spans("f(/* parse */ parse)"), ["/* parse */"])
    assert.deepStrictEqual(spans("   * parse the text"), ["   * parse the text"])
    assert.deepStrictEqual(spans("`${parse}`"), ["`${parse}`"])
    // Not comments or strings: a preprocessor line, a Rust attribute and lifetime, an apostrophe left open.
    assert.deepStrictEqual(spans("#include <parse.h>"), [])
    assert.deepStrictEqual(spans("#[derive(Debug)] fn f<'a>(x: &str)"), [])
    assert.deepStrictEqual(spans("*ptr = parse(x)"), [])
  })

  it("resolveSymbol prefers the occurrence in code on the line, past one in a string", () => {
    const lines = [`const msg = "parse failed"; const n = parse(text)`]
    const resolved = Either.getOrThrow(LspIdentifiers.resolveSymbol(lines, { line: 0, character: 0 }, "parse"))
    assert.deepStrictEqual(resolved.position, { line: 0, character: 38 })
    assert.strictEqual(resolved.occurrences, 1)
    assert.isUndefined(resolved.inStringOrComment)
  })

  it("resolveSymbol prefers code on a nearby line to a comment on the asked one", () => {
    const lines = ["// then parse the text", "const n = parse(text)"]
    const resolved = Either.getOrThrow(LspIdentifiers.resolveSymbol(lines, { line: 0, character: 0 }, "parse"))
    assert.deepStrictEqual(resolved.position, { line: 1, character: 10 })
  })

  it("resolveSymbol uses a string or comment only when no line has the name in code, and says so", () => {
    const lines = ["x = 1", "# parse is called by main", "y = 2"]
    const resolved = Either.getOrThrow(LspIdentifiers.resolveSymbol(lines, { line: 1, character: 0 }, "parse"))
    assert.deepStrictEqual(resolved.position, { line: 1, character: 2 })
    assert.isTrue(resolved.inStringOrComment)
  })
})
