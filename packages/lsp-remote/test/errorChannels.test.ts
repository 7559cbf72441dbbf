/**
 * The remote client and server say what they can fail with (`npm run check` type-checks this file; with the whole
 * `LspError` union in these places it fails to compile). A query keeps every family: the host relays whatever its
 * own providers failed with.
 */
import { describe, expectTypeOf, it } from "@effect/vitest"
import type { LspError } from "@lsp-seam/lsp"
import type { Effect, Layer } from "effect"
import type * as LspRemoteAuth from "../src/LspRemoteAuth.js"
import type * as LspRemoteClient from "../src/LspRemoteClient.js"
import type * as LspRemoteServer from "../src/LspRemoteServer.js"

describe("the remote layers' error channels", () => {
  it("a client fails to build with a configuration or a remote error, and a query with any family", () => {
    expectTypeOf<Layer.Layer.Error<ReturnType<typeof LspRemoteClient.layer>>>().toEqualTypeOf<
      LspError.LspConfigurationError | LspError.LspRemoteError
    >()
    expectTypeOf<Effect.Effect.Error<ReturnType<typeof LspRemoteClient.make>>>().toEqualTypeOf<
      LspError.LspConfigurationError | LspError.LspRemoteError
    >()
    // Registering the host in a local LspService may also be refused (LSP_DISPOSED is an operation error).
    expectTypeOf<Layer.Layer.Error<ReturnType<typeof LspRemoteClient.layerProvider>>>().toEqualTypeOf<
      LspError.LspConfigurationError | LspError.LspOperationError | LspError.LspRemoteError
    >()
    expectTypeOf<Effect.Effect.Error<LspRemoteClient.LspRemoteClientShape["hello"]>>().toEqualTypeOf<
      LspError.LspConfigurationError | LspError.LspRemoteError
    >()
    expectTypeOf<Effect.Effect.Error<ReturnType<LspRemoteClient.LspRemoteClientShape["query"]>>>().toEqualTypeOf<
      LspError.LspError
    >()
  })

  it("a server fails to start only with a configuration error", () => {
    expectTypeOf<Layer.Layer.Error<ReturnType<typeof LspRemoteServer.layerSocket>>>().toEqualTypeOf<
      LspError.LspConfigurationError
    >()
    expectTypeOf<Layer.Layer.Error<ReturnType<typeof LspRemoteServer.layerHttp>>>().toEqualTypeOf<
      LspError.LspConfigurationError
    >()
    expectTypeOf<Effect.Effect.Error<ReturnType<typeof LspRemoteAuth.fromFile>>>().toEqualTypeOf<
      LspError.LspConfigurationError
    >()
  })
})
