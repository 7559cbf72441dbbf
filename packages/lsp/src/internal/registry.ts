import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as LspError from "../LspError.js"
import { checkExtensionKeys } from "../LspExtension.js"
import type { LspProvider } from "../LspProvider.js"

/** One extension's owner. `token` identifies the registration, so a release removes only its own entries. */
export interface Route {
  readonly token: number
  readonly provider: LspProvider
  readonly languageId: string
}

/** The routing table. Immutable: every change makes a new state, swapped in one step. */
export interface RegistryState {
  readonly disposed: boolean
  readonly nextToken: number
  readonly ids: ReadonlyMap<string, number>
  readonly routes: ReadonlyMap<string, Route>
}

export const empty: RegistryState = { disposed: false, nextToken: 1, ids: new Map(), routes: new Map() }

/** A provider that passed every rule that does not depend on other registrations. */
export interface ValidProvider {
  readonly provider: LspProvider
  readonly extensions: ReadonlyArray<readonly [extension: string, languageId: string]>
}

const ExtensionMap = Schema.Record({ key: Schema.String, value: Schema.String })
const ProviderShape = Schema.Struct({
  id: Schema.String,
  extensionToLanguage: Schema.Unknown,
  query: Schema.declare((u): u is LspProvider["query"] => typeof u === "function", {
    identifier: "function"
  }),
  testFiles: Schema.optional(Schema.declare((u): u is LspProvider["testFiles"] => typeof u === "function", {
    identifier: "function"
  }))
})

const isBlank = (s: string) => s.trim().length === 0

/** Checks a provider on its own: id, query function, and every extension key and language id. */
export const validate = (input: LspProvider): Either.Either<ValidProvider, LspError.LspError> => {
  // Providers may come from plain JavaScript: check the shape, never trust the static type.
  const shape = Schema.decodeUnknownEither(ProviderShape)(input)
  if (Either.isLeft(shape)) {
    return Either.left(
      LspError.invalidProvider(
        `The provider is not a valid LspProvider: ${ParseResult.TreeFormatter.formatErrorSync(shape.left)}`
      )
    )
  }
  const { id } = shape.right
  if (isBlank(id)) {
    return Either.left(LspError.invalidProvider("The provider id must not be blank.", { providerId: id }))
  }
  const map = Schema.decodeUnknownEither(ExtensionMap)(shape.right.extensionToLanguage)
  if (Either.isLeft(map)) {
    return Either.left(
      LspError.invalidProvider(
        `Provider "${id}" has an invalid extensionToLanguage map: it must map strings to strings.`,
        {
          providerId: id
        }
      )
    )
  }
  const keys = Object.keys(map.right)
  if (keys.length === 0) {
    return Either.left(
      LspError.invalidProvider(`Provider "${id}" must register at least one extension.`, { providerId: id })
    )
  }
  const extensions: Array<readonly [string, string]> = []
  for (const checked of checkExtensionKeys(keys)) {
    const key = checked.key
    if (checked._tag === "Invalid") {
      return Either.left(
        LspError.invalidProvider(`Provider "${id}": ${checked.reason}.`, { providerId: id, extension: key })
      )
    }
    const languageId = map.right[key]!
    if (isBlank(languageId)) {
      return Either.left(
        LspError.invalidProvider(`Provider "${id}": the language id for "${key}" must not be blank.`, {
          providerId: id,
          extension: key
        })
      )
    }
    if (checked._tag === "Duplicate") {
      return Either.left(
        LspError.invalidProvider(
          `Provider "${id}": keys "${checked.previous}" and "${key}" both normalise to "${checked.extension}".`,
          { providerId: id, extension: checked.extension, keys: [checked.previous, key] }
        )
      )
    }
    extensions.push([checked.extension, languageId])
  }
  return Either.right({ provider: input, extensions })
}

/** Reserves the id and every extension in one step, or nothing at all. Returns the registration token. */
export const reserve = (
  state: RegistryState,
  valid: ValidProvider
): Either.Either<readonly [token: number, next: RegistryState], LspError.LspError> => {
  const id = valid.provider.id
  if (state.disposed) {
    return Either.left(LspError.disposed(`Cannot register provider "${id}": the LSP service has been shut down.`))
  }
  if (state.ids.has(id)) {
    return Either.left(LspError.conflict(`A provider with id "${id}" is already registered.`, { providerId: id }))
  }
  for (const [extension] of valid.extensions) {
    const owner = state.routes.get(extension)
    if (owner !== undefined) {
      return Either.left(
        LspError.conflict(
          `Provider "${id}" cannot register "${extension}": provider "${owner.provider.id}" already handles it.`,
          { providerId: id, extension, owner: owner.provider.id }
        )
      )
    }
  }
  const token = state.nextToken
  const ids = new Map(state.ids).set(id, token)
  const routes = new Map(state.routes)
  for (const [extension, languageId] of valid.extensions) {
    routes.set(extension, { token, provider: valid.provider, languageId })
  }
  return Either.right([token, { ...state, nextToken: token + 1, ids, routes }])
}

/** Removes everything registration `token` reserved; a no-op when it holds nothing any more. */
export const release = (state: RegistryState, id: string, token: number): RegistryState => {
  if (state.ids.get(id) !== token) return state
  const ids = new Map(state.ids)
  ids.delete(id)
  const routes = new Map<string, Route>()
  for (const [extension, route] of state.routes) {
    if (route.token !== token) routes.set(extension, route)
  }
  return { ...state, ids, routes }
}

/** Every registered provider once, in the order of its id (registration order must not matter). */
export const providers = (state: RegistryState): ReadonlyArray<LspProvider> => {
  const byId = new Map<string, LspProvider>()
  for (const route of state.routes.values()) byId.set(route.provider.id, route.provider)
  return [...byId.keys()].sort().map((id) => byId.get(id)!)
}
