/**
 * The capabilities a server registers after the handshake (`client/registerCapability`), kept per method so
 * that a feature a server offers only that way is used: pyright offers pull diagnostics
 * (`textDocument/diagnostic`) only by registering them, and only to a client that announces dynamic
 * registration for them. Registrations the host cannot read (a malformed request) are ignored; an
 * unregistration removes its id.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

const DocumentFilter = Schema.Struct({
  language: Schema.optional(Schema.String),
  scheme: Schema.optional(Schema.String),
  pattern: Schema.optional(Schema.Unknown)
})

const Registration = Schema.Struct({
  id: Schema.String,
  method: Schema.String,
  registerOptions: Schema.optional(Schema.Unknown)
})

const RegistrationParams = Schema.Struct({ registrations: Schema.Array(Registration) })

// The protocol spells the field this way (LSP 3.x keeps the typo for compatibility).
const UnregistrationParams = Schema.Struct({
  unregisterations: Schema.Array(Schema.Struct({ id: Schema.String, method: Schema.String }))
})

const SelectorOptions = Schema.Struct({
  documentSelector: Schema.optional(Schema.NullOr(Schema.Array(DocumentFilter)))
})

const decodeRegistration = Schema.decodeUnknownOption(RegistrationParams)
const decodeUnregistration = Schema.decodeUnknownOption(UnregistrationParams)
const decodeSelector = Schema.decodeUnknownOption(SelectorOptions)

/** Which documents one registration covers: every one (no selector), or those its filters match. */
type Selector = ReadonlyArray<typeof DocumentFilter.Type> | null

/**
 * Whether a filter covers a `file:` document of `languageId`. A filter with a glob `pattern` is not trusted
 * to cover it (the host does not match globs): the feature is then simply not used for that document.
 */
const covers = (filter: typeof DocumentFilter.Type, languageId: string) =>
  filter.pattern === undefined && (filter.language === undefined || filter.language === languageId) &&
  (filter.scheme === undefined || filter.scheme === "file")

export interface Registrations {
  /** Feed every server→client request here; registrations and unregistrations are kept, the rest ignored. */
  readonly observe: (method: string, params: unknown) => void
  /** Whether the server has registered `method` for a `file:` document of `languageId`. */
  readonly offers: (method: string, languageId: string) => boolean
  /**
   * Completes once the server offers `method` for `languageId` (at once if it does): a server registers after
   * the handshake, and a query on a server just started may begin before the registration has been read.
   */
  readonly offered: (method: string, languageId: string) => Effect.Effect<void>
}

export const make = (): Registrations => {
  // Written on the reader fiber, one synchronous step per request.
  const byId = new Map<string, { readonly method: string; readonly selector: Selector }>()
  let wake: Deferred.Deferred<void> | undefined
  const offers = (method: string, languageId: string) =>
    [...byId.values()].some((registration) =>
      registration.method === method &&
      (registration.selector === null || registration.selector.some((filter) => covers(filter, languageId)))
    )
  const registered = () => {
    const waiting = wake
    wake = undefined
    if (waiting !== undefined) Deferred.unsafeDone(waiting, Exit.void)
  }
  const offered = (method: string, languageId: string): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (offers(method, languageId)) return Effect.void
      if (wake === undefined) wake = Deferred.unsafeMake<void>(FiberId.none)
      return Effect.zipRight(Deferred.await(wake), offered(method, languageId))
    })
  return {
    observe: (method, params) => {
      if (method === "client/registerCapability") {
        const decoded = decodeRegistration(params)
        if (Option.isNone(decoded)) return
        for (const registration of decoded.value.registrations) {
          const options = decodeSelector(registration.registerOptions ?? {})
          // Options the host cannot read leave the registration unused rather than guessed at.
          if (Option.isNone(options)) continue
          byId.set(registration.id, { method: registration.method, selector: options.value.documentSelector ?? null })
        }
        registered()
      } else if (method === "client/unregisterCapability") {
        const decoded = decodeUnregistration(params)
        if (Option.isNone(decoded)) return
        for (const unregistration of decoded.value.unregisterations) byId.delete(unregistration.id)
      }
    },
    offers,
    offered
  }
}
