import { describe, expect, it } from "@effect/vitest"
import type { LspQuery, LspResult } from "@lsp-seam/lsp"
import { isCallSite, namePosition } from "../src/internal/host/projectCallers.js"

/** Whether `name`'s first occurrence on `line` is a call of it. */
const called = (line: string, name: string, jsx = false) => {
  const character = line.indexOf(name)
  return isCallSite([line], {
    start: { line: 0, character },
    end: { line: 0, character: character + name.length }
  }, jsx)
}

describe("isCallSite", () => {
  it("takes calls, constructions, tagged templates, decorators and JSX elements", () => {
    expect(called("return greet(who)", "greet")).toBe(true)
    expect(called("return greet <Named>(who)", "greet")).toBe(true)
    expect(called("const x = lib.greet?.(who)", "greet")).toBe(true)
    expect(called("const q = sql`select 1`", "sql")).toBe(true)
    expect(called("const p = new Person()", "Person")).toBe(true)
    expect(called("const p = new models.Person", "Person")).toBe(true)
    expect(called("@Injectable()", "Injectable")).toBe(true)
    expect(called("return <Button label=\"x\" />", "Button", true)).toBe(true)
  })

  it("leaves imports, types, reads and JSX-looking comparisons in .ts files alone", () => {
    expect(called("import { greet, type Named } from \"./lib.js\"", "greet")).toBe(false)
    expect(called("const f: typeof greet = greet", "greet")).toBe(false)
    expect(called("export class Person implements Named {", "Named")).toBe(false)
    expect(called("const renewed = Person", "Person")).toBe(false)
    expect(called("if (a <Person) {}", "Person")).toBe(false)
    expect(called("const list = [greet, other]", "greet")).toBe(false)
  })
})

describe("namePosition", () => {
  const symbol = (name: string, range: LspQuery.LspRange, selectionRange = range): LspResult.LspSymbol => ({
    name,
    kind: "Function",
    uri: "file:///w/main.ts",
    range,
    selectionRange
  })
  const lines = [
    "export function pick(who: string): string",
    "export function pick(who: unknown) {",
    "  return who",
    "}"
  ]
  const range = (a: number, b: number, c: number, d: number) => ({
    start: { line: a, character: b },
    end: { line: c, character: d }
  })

  it("is the server's name range where it gives one", () => {
    const first = symbol("pick", range(0, 0, 0, 41), range(0, 16, 0, 20))
    expect(namePosition(lines, first)).toEqual({ line: 0, character: 16 })
  })

  it("is the name's first whole word where the server gives the whole declaration as its name range", () => {
    // typescript-language-server's selectionRange for an overloaded function's implementation.
    expect(namePosition(lines, symbol("pick", range(1, 0, 3, 1)))).toEqual({ line: 1, character: 16 })
    // `i` is in `function`, but not as a word.
    expect(namePosition(["function i() {}"], symbol("i", range(0, 0, 0, 15)))).toEqual({ line: 0, character: 9 })
    expect(namePosition(["const $x = () => 1"], symbol("$x", range(0, 0, 0, 18)))).toEqual({ line: 0, character: 6 })
  })

  it("keeps the server's start when the name is not in the range", () => {
    expect(namePosition(lines, symbol("[Symbol.iterator]", range(1, 0, 3, 1)))).toEqual({ line: 1, character: 0 })
  })
})
