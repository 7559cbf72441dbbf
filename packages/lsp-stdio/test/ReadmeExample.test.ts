import { assert, it } from "@effect/vitest"
import * as NodeFs from "node:fs"

// The README's example is type-checked as test/readme/example.ts (not run: it queries the current directory).
it("the README's example is the type-checked test/readme/example.ts, verbatim", () => {
  const readme = NodeFs.readFileSync(new URL("../README.md", import.meta.url), "utf8")
  const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1]
  assert.isString(block)
  const example = NodeFs.readFileSync(new URL("readme/example.ts", import.meta.url), "utf8")
  assert.strictEqual(example.slice(example.indexOf("\n") + 1), block)
})
