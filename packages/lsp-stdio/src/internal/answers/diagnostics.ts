/**
 * The diagnostics of a file's current text, and only that file's: pulled (`textDocument/diagnostic`) from
 * servers that offer it, in their capabilities or by registering it (pyright, whose pushed sets carry the
 * current version before its check of that version is done, so a version alone does not make them exact);
 * otherwise the set the server pushes for the text just synced — matched by document version when the server
 * says which, else the first set published after the sync — followed by a short quiet period for servers that
 * publish in phases. A set for an older text is never given: when the wait runs out, the answer holds none
 * and is flagged `diagnostics-pending`. typescript-language-server, which neither versions nor pulls, is asked
 * through tsserver's own diagnostics requests instead (`diagnosticsPull: "tsserver"`, tsserverDiagnostics.ts).
 */
import { type LspError, type LspQuery, LspResult } from "@lsp-seam/lsp"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { DiagnosticsWait } from "../../StdioConfig.js"
import type { DiagnosticsPull } from "../config/serverSettings.js"
import type { PublishedSet } from "../documents/diagnosticsStore.js"
import type * as ServerInstance from "../servers/serverInstance.js"
import { advertised } from "../wire/capabilities.js"
import { normalizeItems, normalizeReport } from "./normalizeDiagnostics.js"
import * as Tsserver from "./tsserverDiagnostics.js"

const rank: Record<LspQuery.LspSeverity, number> = { error: 0, warning: 1, information: 2, hint: 3 }

/** The asked file's diagnostics at `threshold` or worse, by severity then position. */
const ordered = (
  own: ReadonlyArray<LspResult.LspDiagnostic>,
  threshold: LspQuery.LspSeverity
): ReadonlyArray<LspResult.LspDiagnostic> =>
  own.filter((d) => rank[d.severity] <= rank[threshold]).sort((a, b) =>
    rank[a.severity] - rank[b.severity] || a.range.start.line - b.range.start.line ||
    a.range.start.character - b.range.start.character
  )

export interface Synced {
  readonly uri: string
  /** Its language, as the server was told (a registration may cover some languages only). */
  readonly languageId: string
  /** The document version the server now holds. */
  readonly version: number
  /** The diagnostics store's sequence when this document's text was last sent (0 if never). */
  readonly sentAt: number
  /** The store's sequence when the query began: publications after it are this query's. */
  readonly startedAt: number
}

/**
 * Whether a published set was computed for the synced text: published after the text was sent, and for its
 * version when the server says one. A server that states versions is never believed without one, and the
 * clearing set a server publishes when a document closes is no answer (should a server not clear on close,
 * the first empty set after a reopen is taken for one anyway: the answer may then be pending, never stale).
 */
const matches = (
  set: PublishedSet | undefined,
  synced: Synced,
  versionedServer: boolean
): set is PublishedSet =>
  set !== undefined && set.sequence > synced.sentAt && !set.clearing &&
  (set.version !== undefined ? set.version === synced.version : !versionedServer)

/** Waits for the next publication or until `untilMillis`; false when the time ran out. */
const nextPublication = (instance: ServerInstance.ServerInstance, untilMillis: number) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    now >= untilMillis ? Effect.succeed(false) : Effect.raceFirst(
      Effect.as(instance.diagnostics.changed(), true),
      Effect.as(Effect.sleep(untilMillis - now), false)
    ))

/** Pushed diagnostics for the synced text: the matching set after a quiet period, or none in time. */
const pushed = (instance: ServerInstance.ServerInstance, synced: Synced, untilMillis: number, quietMs: number) =>
  Effect.gen(function*() {
    const store = instance.diagnostics
    const fits = (set: PublishedSet | undefined): set is PublishedSet => matches(set, synced, store.versioned())
    // A set that already matches and came before this query (a held document, unchanged) is the answer.
    const held = store.get(synced.uri)
    if (fits(held) && held.sequence <= synced.startedAt) return held
    while (!fits(store.get(synced.uri))) {
      if (!(yield* nextPublication(instance, untilMillis))) return undefined
    }
    // Quiet: no further set for this document for quietMs (some servers publish in phases), or time is up.
    let latest = store.get(synced.uri)!
    while (true) {
      const more = yield* nextPublication(instance, Math.min(untilMillis, latest.at + quietMs))
      const now = store.get(synced.uri)
      if (now === undefined || !fits(now)) return latest
      if (now.sequence !== latest.sequence) {
        latest = now
        continue
      }
      // Nothing new for this document: quiet (or out of time) unless another document's set woke us.
      if (!more) return latest
    }
  })

/**
 * Before a transient reopen for a diagnostics query: a server that does not version its sets may still be
 * publishing for the document's previous open (a late set, the clearing set of its close), which could not be
 * told from the new open's. So wait until it has been quiet about the document for `quietMs` since the close
 * (bounded by `untilMillis`; nothing to wait for when the document was never closed, the server versions, or
 * it is pulled from, which answers for the text it holds).
 */
export const quietBeforeReopen = (
  instance: ServerInstance.ServerInstance,
  document: { readonly uri: string; readonly languageId: string },
  options: { readonly quietMs: number; readonly pull: DiagnosticsPull; readonly untilMillis: number }
): Effect.Effect<void> =>
  Effect.gen(function*() {
    const store = instance.diagnostics
    const { languageId, uri } = document
    const { quietMs, untilMillis } = options
    if (
      store.versioned() || store.lastActivity(uri) === 0 || pulls(instance, languageId) ||
      asksTsserver(instance, options.pull)
    ) return
    while (true) {
      const quietFrom = store.lastActivity(uri) + quietMs
      const now = yield* Clock.currentTimeMillis
      if (now >= quietFrom || now >= untilMillis) return
      yield* nextPublication(instance, Math.min(quietFrom, untilMillis))
    }
  })

/** Whether diagnostics are asked of tsserver: chosen by the configuration, and the server offers the command. */
const asksTsserver = (instance: ServerInstance.ServerInstance, pull: DiagnosticsPull) =>
  pull === "tsserver" && Tsserver.offered(instance.capabilities)

/** Whether the server offers pull diagnostics for the document: advertised, or registered after the handshake. */
const pulls = (instance: ServerInstance.ServerInstance, languageId: string) =>
  advertised(instance.capabilities.diagnosticProvider) ||
  instance.registrations.offers("textDocument/diagnostic", languageId)

const pending = (workspaceUri: string, waitedMs: number): LspResult.LspDiagnosticsResult =>
  LspResult.markIncomplete(LspResult.diagnostics([], workspaceUri), {
    reason: "diagnostics-pending",
    message: `The language server published no diagnostics for the file's current text within ${
      Math.round(waitedMs)
    } ms, so none are shown: this is not a clean result. Ask again in a moment.`
  })

/**
 * The diagnostics of the synced document at `threshold` or worse. Diagnostics the server reports for other
 * files (an importer the change broke, say) are not this file's and are not listed; what a diagnostic
 * relates to stays in its `relatedInformation`.
 */
export const collect = (
  instance: ServerInstance.ServerInstance,
  synced: Synced,
  options: {
    readonly threshold: LspQuery.LspSeverity
    readonly wait: DiagnosticsWait
    /** How a server that neither pulls nor versions is asked instead of waiting for pushed sets. */
    readonly pull: DiagnosticsPull
    readonly untilMillis: number
    /** The query's workspace, which the result's paths are shown relative to. */
    readonly workspaceUri: string
  }
): Effect.Effect<LspResult.LspDiagnosticsResult, LspError.LspLocalError> =>
  Effect.gen(function*() {
    const workspaceUri = options.workspaceUri
    const pull = Effect.gen(function*() {
      const raw = yield* instance.connection.request("textDocument/diagnostic", { textDocument: { uri: synced.uri } })
      return LspResult.diagnostics(ordered(yield* normalizeReport(raw, synced.uri), options.threshold), workspaceUri)
    })
    if (pulls(instance, synced.languageId)) return yield* pull
    if (asksTsserver(instance, options.pull)) {
      const own = yield* Tsserver.collect(instance, synced.uri)
      return LspResult.diagnostics(ordered(own, options.threshold), workspaceUri)
    }
    const started = yield* Clock.currentTimeMillis
    // A server just started may register pull diagnostics while this waits (and then push nothing): pull then.
    const set = yield* Effect.raceFirst(
      Effect.map(pushed(instance, synced, options.untilMillis, options.wait.quietMs), Either.left),
      Effect.as(instance.registrations.offered("textDocument/diagnostic", synced.languageId), Either.right(pull))
    )
    if (Either.isRight(set)) return yield* set.right
    if (set.left === undefined) return pending(workspaceUri, (yield* Clock.currentTimeMillis) - started)
    const own = yield* normalizeItems(synced.uri, set.left.diagnostics, "")
    return LspResult.diagnostics(ordered(own, options.threshold), workspaceUri)
  })
