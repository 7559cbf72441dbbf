import { assert, describe, it } from "@effect/vitest"
import { LspExtension, LspProvider, LspResult, LspService } from "@lsp-seam/lsp"
import { Effect, Either, FastCheck } from "effect"
import * as StdioConfig from "../src/StdioConfig.js"

const withMap = (extensionToLanguage: Record<string, string>) => ({
  servers: { p: { command: "language-server", extensionToLanguage } }
})

const registryAccepts = (extensionToLanguage: Record<string, string>) =>
  Effect.flatMap(LspService.LspService, (service) =>
    service.registerProvider(
      LspProvider.make({
        id: "p",
        extensionToLanguage,
        query: () => Effect.succeed(LspResult.locations([], "file:///"))
      })
    )).pipe(
      Effect.match({ onFailure: (error) => error.code, onSuccess: () => "accepted" as const }),
      Effect.scoped,
      Effect.provide(LspService.layer)
    )

// Keys that are valid, invalid, and that collide once normalised; "__proto__" is a configuration-only rule
// (object safety, not extensions) and stays out.
const key = FastCheck.oneof(
  FastCheck.constantFrom("ts", "TS", ".ts", ".Ts", "py", ".tar.gz", "d.ts", ".", "", "..ts", "a/b", ".a\\b"),
  FastCheck.string({ maxLength: 4 }).filter((s) => s !== "__proto__")
)

describe("the configuration judges extension keys by the seam's rule", () => {
  it.effect.prop(
    "an extension map decodes exactly when the registry accepts it",
    [FastCheck.uniqueArray(key, { maxLength: 4 })],
    ([keys]) =>
      Effect.gen(function*() {
        const map = Object.fromEntries(keys.map((k) => [k, "lang"]))
        const decoded = StdioConfig.decodeEither(withMap(map))
        const registered = yield* registryAccepts(map)
        assert.strictEqual(
          Either.isRight(decoded),
          registered === "accepted",
          `${JSON.stringify(keys)}: config ${Either.isRight(decoded) ? "accepts" : "refuses"}, registry ${registered}`
        )
        if (registered !== "accepted") assert.strictEqual(registered, "LSP_INVALID_PROVIDER")
      }),
    { fastCheck: { numRuns: 300 } }
  )

  it.effect("an invalid key is refused with the seam's reason, at the key's path", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(StdioConfig.decode(withMap({ "d.ts": "typescript" })))
      const reason = Either.getOrThrow(Either.flip(LspExtension.normalizeExtensionKey("d.ts")))
      assert.deepStrictEqual(error.detail?.issues, [
        { path: ["servers", "p", "extensionToLanguage", "d.ts"], message: reason }
      ])
    }))

  it.effect("keys of one map that normalise alike are refused, naming both", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(StdioConfig.decode(withMap({ ".ts": "typescript", TS: "typescript" })))
      assert.deepStrictEqual(error.detail?.issues, [
        { path: ["servers", "p", "extensionToLanguage", "TS"], message: "extension \"TS\" and \".ts\" are both .ts" }
      ])
    }))

  it("checkExtensionKeys reports each key in order", () => {
    assert.deepStrictEqual(LspExtension.checkExtensionKeys(["TS", "a/b", ".ts", "py"]), [
      { _tag: "Valid", key: "TS", extension: ".ts" },
      {
        _tag: "Invalid",
        key: "a/b",
        reason: Either.getOrThrow(Either.flip(LspExtension.normalizeExtensionKey("a/b")))
      },
      { _tag: "Duplicate", key: ".ts", extension: ".ts", previous: "TS" },
      { _tag: "Valid", key: "py", extension: ".py" }
    ])
  })
})
