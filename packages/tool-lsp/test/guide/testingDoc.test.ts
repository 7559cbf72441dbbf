import { assert, describe, it } from "@effect/vitest"
import * as NodeFs from "node:fs"
import { fileURLToPath } from "node:url"

// docs/testing.md shows testKit.test.ts, which runs with this package's tests: the example cannot rot unseen.
const read = (relative: string) => NodeFs.readFileSync(fileURLToPath(new URL(relative, import.meta.url)), "utf8")

describe("docs/testing.md", () => {
  it("shows the test kit example exactly as test/guide/testKit.test.ts runs it", () => {
    const example = /\/\/ #region test-kit\n([\s\S]*?)\/\/ #endregion/.exec(read("./testKit.test.ts"))
    assert.isNotNull(example)
    const shown = /^```ts\n([\s\S]*?)^```$/m.exec(read("../../../../docs/testing.md"))
    assert.isNotNull(shown)
    assert.strictEqual(shown![1], example![1])
  })
})
