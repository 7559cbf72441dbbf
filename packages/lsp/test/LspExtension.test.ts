import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import { finalExtension, normalizeExtensionKey } from "../src/LspExtension.js"

describe("finalExtension", () => {
  const table: ReadonlyArray<readonly [string, string]> = [
    ["src/Foo.TS", ".ts"],
    ["a/b/foo.d.ts", ".ts"],
    ["C:\\proj\\Main.CS", ".cs"],
    ["Makefile", ""],
    [".bashrc", ""],
    ["dir.d/file", ""],
    [".eslintrc.json", ".json"],
    ["foo.", "."],
    ["dir/", ""],
    ["", ""],
    ["mixed\\dir.x/y.PY", ".py"],
    ["/abs/path/archive.tar.gz", ".gz"]
  ]
  for (const [path, expected] of table) {
    it(`${JSON.stringify(path)} → ${JSON.stringify(expected)}`, () => {
      assert.strictEqual(finalExtension(path), expected)
    })
  }
})

describe("normalizeExtensionKey", () => {
  it("lower-cases and adds the leading dot", () => {
    assert.deepStrictEqual(normalizeExtensionKey("TS"), Either.right(".ts"))
    assert.deepStrictEqual(normalizeExtensionKey(".Py"), Either.right(".py"))
  })

  for (const key of [".tar.gz", "", ".", "..ts", "a/b", ".a\\b", "d.ts"]) {
    it(`rejects ${JSON.stringify(key)}`, () => {
      assert.isTrue(Either.isLeft(normalizeExtensionKey(key)))
    })
  }
})
