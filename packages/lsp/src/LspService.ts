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
 * The seam's two capabilities, for providers whose queries fail with `E`: any `LspError` family by default
 * (`LspService`), every family but `LspRemoteError` for a seam of local providers (`LspLocalService`). `E` is what
 * a registered provider may fail with, so it is also what a query may fail with: the seam's own failures
 * (`LSP_INVALID_ARGUMENTS`, `LSP_UNAVAILABLE`, `LSP_DISPOSED`, `LSP_MALFORMED_RESPONSE`) are local families, in
 * both.
 *
 * @since 0.1.0
 * @category models
 */
export interface LspServiceShape<E extends LspError.LspError = LspError.LspError> {
  /**
   * Registers a provider for the lifetime of the current scope. All-or-nothing: either the id and every
   * extension are reserved together, or the call fails with `LSP_INVALID_PROVIDER` / `LSP_CONFLICT` (or
   * `LSP_DISPOSED` after shutdown) and reserves nothing. Closing the scope releases them together.
   */
  readonly registerProvider: (
    provider: LspProvider<E>
  ) => Effect.Effect<void, LspError.LspRegistrationError, Scope.Scope>
  /**
   * Routes a query to the provider of the file's final extension (`LSP_UNAVAILABLE` when none) and returns
   * its answer. Provider failures reach the caller unchanged. `impact` is answered by the seam itself, from
   * the findReferences, goToDefinition, documentSymbol and incomingCalls answers it asks of the providers.
   */
  readonly query: (request: LspQueryRequest) => Effect.Effect<LspQueryResult, E>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class LspService extends Context.Tag("@lsp-seam/lsp/LspService")<LspService, LspServiceShape>() {}

/**
 * The same seam, typed for a program whose providers all run on this machine: it registers only providers that
 * cannot fail with `LspRemoteError` (`LspProvider<LspError.LspLocalError>`, as the stdio host's are), so its
 * queries fail with `LspError.LspLocalError`. `layerLocal` (and `LspSeam.layer()` without `remote`) offers it
 * beside `LspService`, over one registry.
 *
 * @since 0.1.0
 * @category tags
 */
export class LspLocalService
  extends Context.Tag("@lsp-seam/lsp/LspLocalService")<LspLocalService, LspServiceShape<LspError.LspLocalError>>()
{}

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
      Ref.modify(state, (current): readonly [Registry.Reservation, Registry.RegistryState] => {
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

const isRemote = (error: LspError.LspError): error is LspError.LspRemoteError => error._tag === "LspRemoteError"

/**
 * The local face of `service`: the same registry, whose registration takes local providers only. A provider
 * registered through the `LspService` face that fails with `LspRemoteError` breaks what this face's type says, so
 * that failure is a defect here (register a remote host on a seam built with `layer`, and query it there).
 *
 * @since 0.1.0
 * @category constructors
 */
export const local = (service: LspServiceShape): LspServiceShape<LspError.LspLocalError> => ({
  registerProvider: service.registerProvider,
  query: (request) => Effect.catchIf(service.query(request), isRemote, Effect.die)
})

/**
 * One registry offered twice: as `LspService` (for the stdio host, the tool and every adapter) and as
 * `LspLocalService` (for a program that wants its queries typed without `LspRemoteError`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerLocal: Layer.Layer<LspService | LspLocalService> = Layer.scopedContext(
  Effect.map(make, (service) => Context.make(LspService, service).pipe(Context.add(LspLocalService, local(service))))
)

/**
 * Registers `provider` for the lifetime of the Layer; building fails with the registration error.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerProvider = (provider: LspProvider): Layer.Layer<never, LspError.LspRegistrationError, LspService> =>
  Layer.scopedDiscard(Effect.flatMap(LspService, (service) => service.registerProvider(provider)))

/**
 * Registers a provider with the `LspService` in context for the current scope.
 *
 * @since 0.1.0
 * @category accessors
 */
export const registerProvider = (
  provider: LspProvider
): Effect.Effect<void, LspError.LspRegistrationError, LspService | Scope.Scope> =>
  Effect.flatMap(LspService, (service) => service.registerProvider(provider))

/**
 * Queries the `LspService` in context.
 *
 * @since 0.1.0
 * @category accessors
 */
export const query = (request: LspQueryRequest): Effect.Effect<LspQueryResult, LspError.LspError, LspService> =>
  Effect.flatMap(LspService, (service) => service.query(request))

/**
 * Queries the `LspLocalService` in context: the error type of a seam of local providers, without
 * `LspRemoteError`.
 *
 * @since 0.1.0
 * @category accessors
 */
export const queryLocal = (
  request: LspQueryRequest
): Effect.Effect<LspQueryResult, LspError.LspLocalError, LspLocalService> =>
  Effect.flatMap(LspLocalService, (service) => service.query(request))
