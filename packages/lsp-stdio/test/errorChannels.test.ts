/**
 * The host's error channels carry the local families only: nothing on this machine raises `LspRemoteError`, and
 * the types say so (`npm run check` type-checks this file; with `LspError.LspError` in these places it fails to
 * compile).
 */
import { describe, expectTypeOf, it } from "@effect/vitest"
import type { LspError, LspProvider } from "@lsp-seam/lsp"
import type { Effect } from "effect"
import type * as Host from "../src/internal/host/host.js"
import type * as JsonRpc from "../src/JsonRpc.js"
import type * as LspStdio from "../src/LspStdio.js"

type ProvidersOf<T> = T extends Effect.Effect<{ readonly providers: ReadonlyArray<infer P> }, unknown, unknown> ? P
  : never
type QueryError<P> = P extends LspProvider.LspProvider<infer E> ? E : never

describe("the stdio host's error channels", () => {
  it("a stdio provider's query fails with a local family, never LspRemoteError", () => {
    type Provider = ProvidersOf<ReturnType<typeof Host.makeProviders>>
    expectTypeOf<Provider>().toEqualTypeOf<LspProvider.LspProvider<LspError.LspLocalError>>()
    expectTypeOf<LspError.LspRemoteError>().not.toMatchTypeOf<QueryError<Provider>>()
    // Still a provider that any LspService registers.
    expectTypeOf<Provider>().toMatchTypeOf<LspProvider.LspProvider>()
  })

  it("the connection and diagnose fail with local families", () => {
    expectTypeOf<Effect.Effect.Error<ReturnType<JsonRpc.Connection["request"]>>>().toEqualTypeOf<
      LspError.LspLocalError
    >()
    // diagnose fails only for the configuration or the workspace; a server's failure is in its report.
    expectTypeOf<Effect.Effect.Error<ReturnType<typeof LspStdio.diagnose>>>().toEqualTypeOf<
      LspError.LspConfigurationError | LspError.LspSourceError
    >()
  })
})
