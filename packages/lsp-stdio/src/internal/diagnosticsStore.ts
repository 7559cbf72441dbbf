/**
 * The diagnostics a server pushes (`textDocument/publishDiagnostics`), kept per document — the last set
 * for each, with the document version it was computed for when the server says — so a query can wait for
 * the set that matches the text it synced, or answer at once when the held one already does. Bounded: the
 * least recently published documents are forgotten first.
 */
import type { LspQuery } from "@lsp-seam/lsp"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Schema from "effect/Schema"

/** How many documents' diagnostics are kept. */
export const maxDocuments = 1_000

/** A diagnostic as the server sent it, checked just enough to be kept; `normalizeDiagnostics` reads it. */
const Published = Schema.Struct({
  uri: Schema.String,
  version: Schema.optional(Schema.NullOr(Schema.Int)),
  diagnostics: Schema.Array(Schema.Unknown)
})

const decodePublished = Schema.decodeUnknownOption(Published)

export interface PublishedSet {
  readonly uri: string
  /** The document version the set was computed for, when the server said. */
  readonly version: number | undefined
  readonly diagnostics: ReadonlyArray<unknown>
  /** A counter across the store, increasing with every publication: what came after what. */
  readonly sequence: number
  /** When it arrived (the Effect Clock). */
  readonly at: number
}

export interface DiagnosticsStore {
  /** Feed every server notification here; publications are kept, anything else ignored. */
  readonly observe: (method: string, params: unknown) => Effect.Effect<void>
  /** The last set published for `uri`. */
  readonly get: (uri: string) => PublishedSet | undefined
  /** Every set published after `sequence`, oldest first. */
  readonly since: (sequence: number) => ReadonlyArray<PublishedSet>
  /** The sequence number of the last publication so far (0 before any). */
  readonly sequence: () => number
  /** Completes at the next publication (made on demand, like readiness's). */
  readonly changed: () => Effect.Effect<void>
  /** Records that the client has just sent `uri`'s text (opened or changed): sets before now are older. */
  readonly markSent: (uri: string) => void
  /** The sequence at the last `markSent` of `uri` (0 if never). */
  readonly sentAt: (uri: string) => number
}

export const make = (clock: { readonly unsafeCurrentTimeMillis: () => number }): DiagnosticsStore => {
  // Plain state: publications arrive on the reader fiber, each recorded in one synchronous step. A Map keeps
  // insertion order, so re-inserting makes a document the most recently published.
  const sets = new Map<string, PublishedSet>()
  const sent = new Map<string, number>()
  let sequence = 0
  let wake: Deferred.Deferred<void> | undefined

  const observe = (method: string, params: unknown) =>
    Effect.sync(() => {
      if (method !== "textDocument/publishDiagnostics") return
      const published = decodePublished(params)
      if (published._tag === "None") return
      const { diagnostics, uri, version } = published.value
      sequence += 1
      sets.delete(uri)
      sets.set(uri, {
        uri,
        version: version === null ? undefined : version,
        diagnostics,
        sequence,
        at: clock.unsafeCurrentTimeMillis()
      })
      if (sets.size > maxDocuments) sets.delete(sets.keys().next().value!)
      const waiting = wake
      wake = undefined
      if (waiting !== undefined) Deferred.unsafeDone(waiting, Exit.void)
    })

  const changed = () => {
    if (wake === undefined) wake = Deferred.unsafeMake<void>(FiberId.none)
    return Deferred.await(wake)
  }

  return {
    observe,
    get: (uri) => sets.get(uri),
    since: (after) => [...sets.values()].filter((set) => set.sequence > after).sort((a, b) => a.sequence - b.sequence),
    sequence: () => sequence,
    changed,
    markSent: (uri) => {
      sent.delete(uri)
      sent.set(uri, sequence)
      if (sent.size > maxDocuments) sent.delete(sent.keys().next().value!)
    },
    sentAt: (uri) => sent.get(uri) ?? 0
  }
}

/** Severity names by LSP number (1–4); a diagnostic without one is an error, as the protocol suggests. */
export const severityName = (severity: number | undefined): LspQuery.LspSeverity =>
  severity === 2 ? "warning" : severity === 3 ? "information" : severity === 4 ? "hint" : "error"
