/**
 * Error channels say what can really fail: checked by the compiler (`npm run check` type-checks this file; with
 * the whole seven-family `LspError` in these places it fails to compile).
 */
import type * as Tool from "@effect/ai/Tool"
import { describe, expectTypeOf, it } from "@effect/vitest"
import type { LspIdentifiers, LspQuery, LspResult } from "@lsp-seam/lsp"
import { LspError, LspProvider, LspService } from "@lsp-seam/lsp"
import type { LspStdio } from "@lsp-seam/lsp-stdio"
import type { LspAiTool, LspMcp, LspToolConfig, LspToolInput } from "@lsp-seam/tool-lsp"
import { Effect, type Either, type Layer } from "effect"
import * as LspSeam from "../src/LspSeam.js"

describe("error channels", () => {
  it("a local LspSeam.layer fails only with configuration errors; a remote one with those or a remote error", () => {
    expectTypeOf(LspSeam.layer({ config: { servers: {} } })).toEqualTypeOf<
      Layer.Layer<LspService.LspService | LspService.LspLocalService, LspError.LspConfigurationError>
    >()
    expectTypeOf(LspSeam.layer({ remote: "auto" })).toEqualTypeOf<
      Layer.Layer<LspService.LspService, LspError.LspConfigurationError | LspError.LspRemoteError>
    >()
    expectTypeOf(LspSeam.layerTool({ workingDirectory: "/ws" })).toEqualTypeOf<
      Layer.Layer<Tool.Handler<"lsp">, LspError.LspConfigurationError>
    >()
    expectTypeOf(LspSeam.layerTool({ workingDirectory: "/ws", remote: "auto" })).toEqualTypeOf<
      Layer.Layer<Tool.Handler<"lsp">, LspSeam.LayerError>
    >()
  })

  it("a program of local providers queries without LspRemoteError; LspService's query keeps every family", () => {
    const request: LspQuery.LspQueryRequest = {
      operation: "hover",
      filePath: "a.ts",
      position: { line: 0, character: 0 },
      workspaceRoot: "/ws"
    }
    const program = LspService.queryLocal(request).pipe(Effect.provide(LspSeam.layer()))
    expectTypeOf(program).toEqualTypeOf<Effect.Effect<LspResult.LspQueryResult, LspError.LspLocalError>>()
    expectTypeOf<LspError.LspRemoteError>().not.toMatchTypeOf<Effect.Effect.Error<typeof program>>()
    expectTypeOf<Effect.Effect.Error<ReturnType<typeof LspService.query>>>().toEqualTypeOf<LspError.LspError>()
    // The local face registers only providers that cannot fail with LspRemoteError.
    expectTypeOf<Parameters<LspService.LspLocalService["Type"]["registerProvider"]>[0]>().toEqualTypeOf<
      LspProvider.LspProvider<LspError.LspLocalError>
    >()
  })

  it("the tool's configuration and input checks fail with the family their docs name", () => {
    expectTypeOf<Effect.Effect.Error<ReturnType<typeof LspToolConfig.make>>>().toEqualTypeOf<
      LspError.LspConfigurationError
    >()
    expectTypeOf<Layer.Layer.Error<ReturnType<typeof LspAiTool.layer>>>().toEqualTypeOf<
      LspError.LspConfigurationError
    >()
    expectTypeOf<Layer.Layer.Error<ReturnType<typeof LspMcp.layer>>>().toEqualTypeOf<LspError.LspConfigurationError>()
    expectTypeOf<ReturnType<typeof LspToolInput.validate>>().toEqualTypeOf<
      Either.Either<LspToolInput.LspToolInput, LspError.LspArgumentsError>
    >()
    expectTypeOf<ReturnType<typeof LspIdentifiers.locate>>().toEqualTypeOf<
      Either.Either<LspIdentifiers.Located, LspError.LspArgumentsError>
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
