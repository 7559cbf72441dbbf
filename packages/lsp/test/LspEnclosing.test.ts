import { assert, describe, it } from "@effect/vitest"
import { enclosing, enclosingAll, holds } from "../src/LspEnclosing.js"
import type * as LspResult from "../src/LspResult.js"

/** A symbol as a flattened documentSymbol answer gives it: `[line, character]` pairs, a depth from the tree. */
const symbol = (
  name: string,
  start: readonly [number, number],
  end: readonly [number, number],
  depth = 0
): LspResult.LspSymbol => ({
  name,
  kind: "Function",
  uri: "file:///w/main.ts",
  range: { start: { line: start[0], character: start[1] }, end: { line: end[0], character: end[1] } },
  selectionRange: { start: { line: start[0], character: start[1] }, end: { line: start[0], character: start[1] } },
  depth
})

const at = (line: number, character: number) => ({ line, character })
const names = (symbols: ReadonlyArray<LspResult.LspSymbol>) => symbols.map((s) => s.name)

describe("enclosing", () => {
  it("an overloaded function: the implementation holds a call in its body, not a signature", () => {
    // export function f(a: string): string / export function f(a: number): number / export function f(a) { … }
    const symbols = [
      symbol("f", [2, 0], [2, 40]),
      symbol("f", [3, 0], [3, 40]),
      symbol("f", [4, 0], [7, 1])
    ]
    assert.strictEqual(enclosing(symbols, at(5, 2)), symbols[2])
    // A type named in a signature sits in that signature.
    assert.strictEqual(enclosing(symbols, at(3, 24)), symbols[1])
  })

  it("a nested function is inside its outer one, innermost first", () => {
    const symbols = [symbol("outer", [0, 0], [5, 1]), symbol("inner", [1, 2], [3, 3], 1)]
    assert.deepStrictEqual(names(enclosingAll(symbols, at(2, 11))), ["inner", "outer"])
    assert.deepStrictEqual(names(enclosingAll(symbols, at(4, 9))), ["outer"])
  })

  it("a method of a class inside a namespace", () => {
    // The answer in document order, parents first, as normalizeDocumentSymbols gives it.
    const symbols = [
      symbol("Space", [0, 0], [6, 1]),
      symbol("Box", [1, 2], [5, 3], 1),
      symbol("size", [2, 4], [2, 20], 2),
      symbol("open", [3, 4], [4, 5], 2)
    ]
    assert.deepStrictEqual(names(enclosingAll(symbols, at(3, 13))), ["open", "Box", "Space"])
    assert.strictEqual(enclosing(symbols, at(2, 10))?.name, "size")
  })

  it("an arrow function assigned to a const is held by the const's symbol", () => {
    // export const arrow = () => greet("arrow"): tsserver's range starts at the name.
    const symbols = [symbol("arrow", [0, 13], [2, 1]), symbol("other", [3, 0], [3, 30])]
    assert.strictEqual(enclosing(symbols, at(1, 4))?.name, "arrow")
  })

  it("a symbol and its only child with the same range: the child", () => {
    const symbols = [symbol("outer", [0, 0], [2, 1]), symbol("inner", [0, 0], [2, 1], 1)]
    assert.deepStrictEqual(names(enclosingAll(symbols, at(1, 0))), ["inner", "outer"])
  })

  it("a position at module level, or just past a declaration's end, has none", () => {
    const symbols = [symbol("f", [0, 0], [2, 1]), symbol("g", [4, 0], [6, 1])]
    assert.isUndefined(enclosing(symbols, at(3, 0)))
    assert.isUndefined(enclosing(symbols, at(2, 1)))
    assert.isUndefined(enclosing([], at(0, 0)))
    assert.isTrue(holds(symbols[0]!.range, at(0, 0)))
    assert.isTrue(holds(symbols[0]!.range, at(2, 0)))
  })
})
