import { describe, expect, it } from "@effect/vitest"
import { isCallSite } from "../src/internal/host/projectCallers.js"

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
