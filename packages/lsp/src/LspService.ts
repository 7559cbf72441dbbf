/**
 * The seam. `LspService` has exactly two capabilities: scoped, atomic provider registration and one
 * `query`. It routes a query by the file's final extension to the provider that registered it, and adds
 * nothing else: no timeout, no retries, no wrapping of provider errors.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Impact from "./internal/impact/walk.js"
import { checked, formatIssue } from "./internal/providerAnswer.js"
import * as Registry from "./internal/registry.js"
import { searchAll } from "./internal/symbolSearch.js"
import * as LspDecode from "./LspDecode.js"
import * as LspError from "./LspError.js"
import { finalExtension } from "./LspExtension.js"
import type { LspProvider } from "./LspProvider.js"
import { LspQueryRequest } from "./LspQuery.js"
import type { LspQueryResult } from "./LspResult.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface LspServiceShape {
  /**
   * Registers a provider for the lifetime of the current scope. All-or-nothing: either the id and every
   * extension are reserved together, or the call fails with `LSP_INVALID_PROVIDER` / `LSP_CONFLICT` and
   * reserves nothing. Closing the scope releases them together.
   */
  readonly registerProvider: (provider: LspProvider) => Effect.Effect<void, LspError.LspError, Scope.Scope>
  /**
   * Routes a query to the provider of the file's final extension (`LSP_UNAVAILABLE` when none) and returns
   * its answer. Provider failures reach the caller unchanged. `impact` is answered by the seam itself, from
   * the findReferences, goToDefinition, documentSymbol and incomingCalls answers it asks of the providers.
   */
  readonly query: (request: LspQueryRequest) => Effect.Effect<LspQueryResult, LspError.LspError>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class LspService extends Context.Tag("@lsp-seam/lsp/LspService")<LspService, LspServiceShape>() {}

// Compiled once: building a decoder per query cost as much as the rest of the routing.
const decodeRequest = LspDecode.decodeUnknownEither(LspQueryRequest)

/**
 * Builds the registry. When the surrounding scope closes, the service refuses new work with
 * `LSP_DISPOSED`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<LspServiceShape, never, Scope.Scope> = Effect.gen(function*() {
  const state = yield* Ref.make(Registry.empty)
  yield* Effect.addFinalizer(() => Ref.update(state, (s) => ({ ...s, disposed: true })))

  const registerProvider = (provider: LspProvider) =>
    Effect.acquireRelease(
      Ref.modify(state, (current): readonly [Either.Either<number, LspError.LspError>, Registry.RegistryState] => {
        const reserved = Either.flatMap(Registry.validate(provider), (valid) => Registry.reserve(current, valid))
        return Either.isRight(reserved)
          ? [Either.right(reserved.right[0]), reserved.right[1]]
          : [Either.left(reserved.left), current]
      }).pipe(Effect.flatMap((reserved) => reserved)),
      (token) => Ref.update(state, (current) => Registry.release(current, provider.id, token))
    ).pipe(Effect.asVoid, Effect.withSpan("LspService.registerProvider"))

  // No Effect.fn or withSpan here: both re-wrap failures to attach traces, and provider errors must reach the
  // caller as the very same values.
  const query = (input: LspQueryRequest): Effect.Effect<LspQueryResult, LspError.LspError> =>
    Effect.gen(function*() {
      const request = yield* Either.mapLeft(
        decodeRequest(input),
        (error) => LspError.invalidArguments(`Invalid LSP query: ${formatIssue(error)}`)
      )
      const current = yield* Ref.get(state)
      if (current.disposed) {
        return yield* LspError.disposed("The LSP service has been shut down.")
      }
      if (request.operation === "workspaceSymbol" && request.filePath === undefined) {
        return yield* searchAll(request, Registry.providers(current))
      }
      // Composed here from the providers' own answers, each a query of its own: providers never receive it.
      if (request.operation === "impact") {
        const testFiles = current.routes.get(finalExtension(request.filePath))?.provider.testFiles
        return yield* Impact.answer(request, query, testFiles?.(request.workspaceRoot))
      }
      const filePath = request.filePath ?? ""
      const extension = finalExtension(filePath)
      const route = current.routes.get(extension)
      if (route === undefined) {
        const known = [...current.routes.keys()].sort()
        return yield* LspError.unavailable(
          extension === ""
            ? `No language server handles "${filePath}": it has no file extension.`
            : `No language server is configured for "${extension}" files` +
              (known.length === 0 ? " (none is registered)." : ` (registered: ${known.join(", ")}).`),
          { filePath, extension }
        )
      }
      const result = yield* route.provider.query({ ...request, languageId: route.languageId })
      return yield* checked(route.provider, request, result)
    })

  return { registerProvider, query }
})

/**
 * The registry as a Layer. Provider Layers (`layerProvider`, the stdio host) are built on top of it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<LspService> = Layer.scoped(LspService, make)

/**
 * Registers `provider` for the lifetime of the Layer; building fails with the registration error.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerProvider = (provider: LspProvider): Layer.Layer<never, LspError.LspError, LspService> =>
  Layer.scopedDiscard(Effect.flatMap(LspService, (service) => service.registerProvider(provider)))

/**
 * Registers a provider with the `LspService` in context for the current scope.
 *
 * @since 0.1.0
 * @category accessors
 */
export const registerProvider = (
  provider: LspProvider
): Effect.Effect<void, LspError.LspError, LspService | Scope.Scope> =>
  Effect.flatMap(LspService, (service) => service.registerProvider(provider))

/**
 * Queries the `LspService` in context.
 *
 * @since 0.1.0
 * @category accessors
 */
export const query = (request: LspQueryRequest): Effect.Effect<LspQueryResult, LspError.LspError, LspService> =>
  Effect.flatMap(LspService, (service) => service.query(request))
