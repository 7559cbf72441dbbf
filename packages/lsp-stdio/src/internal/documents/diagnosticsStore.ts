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
  /**
   * An empty set without a version that came first after the client closed the document: the clearing set
   * many servers publish on close, never an answer for a later open.
   */
  readonly clearing: boolean
}

export interface DiagnosticsStore {
  /** Feed every server notification here; publications are kept, anything else ignored. */
  readonly observe: (method: string, params: unknown) => Effect.Effect<void>
  /** The last set published for `uri`. */
  readonly get: (uri: string) => PublishedSet | undefined
  /** The sequence number of the last publication so far (0 before any). */
  readonly sequence: () => number
  /** Completes at the next publication (made on demand, like readiness's). */
  readonly changed: () => Effect.Effect<void>
  /** Records that the client has just sent `uri`'s text (opened or changed): sets before now are older. */
  readonly markSent: (uri: string) => void
  /** The sequence at the last `markSent` of `uri` (0 if never). */
  readonly sentAt: (uri: string) => number
  /** Whether the server has ever said which document version a set is for. */
  readonly versioned: () => boolean
  /**
   * The version for the next transient open of `uri`: one more than the last (from 1). Never reusing a
   * version lets a set for an earlier open (or the clearing set a server publishes on close) be told apart.
   */
  readonly nextOpenVersion: (uri: string) => number
  /** The version of the last transient open of `uri` (0 if never). */
  readonly openVersion: (uri: string) => number
  /** Records that the client closed `uri`: the next set published for it may be the server's clearing one. */
  readonly markClosed: (uri: string) => void
  /** When the client last closed `uri` or the server last published for it (the Effect Clock; 0 if never). */
  readonly lastActivity: (uri: string) => number
}

export const make = (clock: { readonly unsafeCurrentTimeMillis: () => number }): DiagnosticsStore => {
  // Plain state: publications arrive on the reader fiber, each recorded in one synchronous step. A Map keeps
  // insertion order, so re-inserting makes a document the most recently published.
  const sets = new Map<string, PublishedSet>()
  const sent = new Map<string, number>()
  const opened = new Map<string, number>()
  const closed = new Set<string>()
  const closedAt = new Map<string, number>()
  let sequence = 0
  let versioned = false
  let wake: Deferred.Deferred<void> | undefined

  const observe = (method: string, params: unknown) =>
    Effect.sync(() => {
      if (method !== "textDocument/publishDiagnostics") return
      const published = decodePublished(params)
      if (published._tag === "None") return
      const { diagnostics, uri, version } = published.value
      sequence += 1
      if (version !== undefined && version !== null) versioned = true
      const clearing = closed.delete(uri) && diagnostics.length === 0 && (version === undefined || version === null)
      sets.delete(uri)
      sets.set(uri, {
        uri,
        version: version === null ? undefined : version,
        diagnostics,
        sequence,
        at: clock.unsafeCurrentTimeMillis(),
        clearing
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
    sequence: () => sequence,
    changed,
    markSent: (uri) => {
      sent.delete(uri)
      sent.set(uri, sequence)
      if (sent.size > maxDocuments) sent.delete(sent.keys().next().value!)
    },
    sentAt: (uri) => sent.get(uri) ?? 0,
    versioned: () => versioned,
    nextOpenVersion: (uri) => {
      const next = (opened.get(uri) ?? 0) + 1
      opened.delete(uri)
      opened.set(uri, next)
      if (opened.size > maxDocuments) opened.delete(opened.keys().next().value!)
      return next
    },
    openVersion: (uri) => opened.get(uri) ?? 0,
    markClosed: (uri) => {
      closed.add(uri)
      if (closed.size > maxDocuments) closed.delete(closed.values().next().value!)
      closedAt.delete(uri)
      closedAt.set(uri, clock.unsafeCurrentTimeMillis())
      if (closedAt.size > maxDocuments) closedAt.delete(closedAt.keys().next().value!)
    },
    lastActivity: (uri) => Math.max(closedAt.get(uri) ?? 0, sets.get(uri)?.at ?? 0)
  }
}

/** Severity names by LSP number (1–4); a diagnostic without one is an error, as the protocol suggests. */
export const severityName = (severity: number | undefined): LspQuery.LspSeverity =>
  severity === 2 ? "warning" : severity === 3 ? "information" : severity === 4 ? "hint" : "error"
