/**
 * Error channels say what can really fail: checked by the compiler (`npm run check` type-checks this file; with
 * the whole seven-family `LspError` in these places it fails to compile).
 */
import { describe, expectTypeOf, it } from "@effect/vitest"
import type { LspQuery, LspResult, LspService } from "@lsp-seam/lsp"
import { LspError, LspProvider } from "@lsp-seam/lsp"
import type { LspStdio } from "@lsp-seam/lsp-stdio"
import { Effect, type Layer } from "effect"
import * as LspSeam from "../src/LspSeam.js"

describe("error channels", () => {
  it("a local LspSeam.layer fails only with configuration errors; a remote one may fail with any family", () => {
    expectTypeOf(LspSeam.layer({ config: { servers: {} } })).toEqualTypeOf<
      Layer.Layer<LspService.LspService, LspError.LspConfigurationError>
    >()
    expectTypeOf(LspSeam.layer({ remote: "auto" })).toEqualTypeOf<
      Layer.Layer<LspService.LspService, LspError.LspError>
    >()
  })

  it("the stdio host fails to build with a configuration error or a refused registration", () => {
    expectTypeOf<Layer.Layer.Error<ReturnType<typeof LspStdio.layer>>>().toEqualTypeOf<
      LspError.LspConfigurationError | LspError.LspOperationError
    >()
    expectTypeOf<Effect.Effect.Error<ReturnType<typeof LspService.registerProvider>>>().toEqualTypeOf<
      LspError.LspRegistrationError
    >()
  })

  it("a provider's query error is what its query can fail with, without LspRemoteError for a local one", () => {
    const local = LspProvider.make({
      id: "local",
      extensionToLanguage: { ".ts": "typescript" },
      query: () => Effect.fail(LspError.timeout("too slow"))
    })
    expectTypeOf(local).toEqualTypeOf<LspProvider.LspProvider<LspError.LspTimeoutError>>()
    expectTypeOf<LspError.LspRemoteError>().not.toMatchTypeOf<LspError.LspLocalError>()
    // Any provider is still what LspService registers.
    expectTypeOf(local).toMatchTypeOf<LspProvider.LspProvider>()
  })

  it("the unions stay aliases of the named members, the same types as their schemas'", () => {
    expectTypeOf<LspResult.LspQueryResult>().toEqualTypeOf<typeof LspResult.LspQueryResult.Type>()
    expectTypeOf<LspQuery.LspQueryRequest>().toEqualTypeOf<typeof LspQuery.LspQueryRequest.Type>()
  })
})
