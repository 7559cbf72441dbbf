import { assert, describe, it } from "@effect/vitest"
import * as NodeFs from "node:fs"
import { version } from "../src/internal/command/version.js"

describe("version", () => {
  it("is the package's version", () => {
    const pkg: unknown = JSON.parse(NodeFs.readFileSync(new URL("../package.json", import.meta.url), "utf8"))
    assert.deepInclude(pkg, { version })
  })
})
