import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as LspSession from "../src/LspSession.js"

describe("LspSession", () => {
  it("treats a missing or blank working directory as none", () => {
    assert.deepStrictEqual(LspSession.make().workingDirectory, Option.none())
    assert.deepStrictEqual(LspSession.make(undefined).workingDirectory, Option.none())
    assert.deepStrictEqual(LspSession.make("").workingDirectory, Option.none())
    assert.deepStrictEqual(LspSession.make(" \t").workingDirectory, Option.none())
    assert.deepStrictEqual(LspSession.make("/repo").workingDirectory, Option.some("/repo"))
  })

  it.effect("provides the session through its layers", () =>
    Effect.gen(function*() {
      const withDirectory = yield* LspSession.LspSession.pipe(Effect.provide(LspSession.layer("/repo")))
      assert.deepStrictEqual(withDirectory.workingDirectory, Option.some("/repo"))
      const without = yield* LspSession.LspSession.pipe(Effect.provide(LspSession.layerWithoutWorkspace))
      assert.deepStrictEqual(without.workingDirectory, Option.none())
    }))
})
