/**
 * The cluster's layers say what they can fail with (`npm run check` type-checks this file; with the whole
 * `LspError` union in these places it fails to compile): a configuration that cannot be used or storage that
 * cannot be reached. A query keeps every family: a runner relays what its providers failed with.
 */
import { describe, expectTypeOf, it } from "@effect/vitest"
import type { LspError } from "@lsp-seam/lsp"
import type { Effect, Layer } from "effect"
import type * as LspClusterClient from "../src/LspClusterClient.js"
import type * as LspClusterRunner from "../src/LspClusterRunner.js"
import type * as LspClusterStorage from "../src/LspClusterStorage.js"

describe("the cluster's error channels", () => {
  it("the layers fail with a configuration or a remote error, a storage argument with a configuration error", () => {
    expectTypeOf<Layer.Layer.Error<ReturnType<typeof LspClusterClient.layer>>>().toEqualTypeOf<
      LspError.LspConfigurationError | LspError.LspRemoteError
    >()
    expectTypeOf<Layer.Layer.Error<ReturnType<typeof LspClusterRunner.layer>>>().toEqualTypeOf<
      LspError.LspConfigurationError | LspError.LspRemoteError
    >()
    expectTypeOf<Layer.Layer.Error<ReturnType<typeof LspClusterStorage.layer>>>().toEqualTypeOf<
      LspError.LspConfigurationError | LspError.LspRemoteError
    >()
    expectTypeOf<Effect.Effect.Error<ReturnType<typeof LspClusterStorage.decode>>>().toEqualTypeOf<
      LspError.LspConfigurationError
    >()
    expectTypeOf<Effect.Effect.Error<ReturnType<LspClusterClient.LspClusterClientShape["query"]>>>().toEqualTypeOf<
      LspError.LspError
    >()
  })
})
