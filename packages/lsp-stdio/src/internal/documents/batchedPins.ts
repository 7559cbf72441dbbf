/**
 * Files pinned a batch at a time: the one file of each project a server is to load (`host/projects`). A server
 * such as tsserver handles one message at a time, in order, and loads a project when a file of it is opened; had
 * every file been opened at once, a later query's requests would wait behind every one of those loads. So a
 * batch is opened only once the server has answered a request sent after the previous one (a documentSymbol of
 * its last file, which the server handles after the opens before it): at any time the server's queue holds at
 * most one batch of loads ahead of a query's own requests.
 *
 * Opening a batch changes the server's documents, so it is done by whoever holds the server's permit (a query,
 * or the host's background loader between queries); the answer that confirms it is awaited on a fiber of the
 * host's, never interrupted by a query's deadline, so a cancelled confirmation can never leave the server with a
 * request it has not settled. The state is per retained set, that is per server instance: a restarted server
 * starts with nothing queued.
 */
import type { LspError } from "@lsp-seam/lsp"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as JsonRpc from "../../JsonRpc.js"
import type { FileServices } from "../files/fileAccess.js"
import type { Workspace } from "../files/workspace.js"
import * as RetainedDocuments from "./retainedDocuments.js"

/** One file to pin, with what it is opened for (a project's name, say). */
export interface Entry {
  readonly label: string
  /** Absolute. */
  readonly path: string
}

/** A batch whose files were opened and whose confirmation has not come back yet. */
export interface InFlight {
  readonly entries: ReadonlyArray<Entry>
  /** Completed once the server has answered the request sent after the batch (or the request failed). */
  readonly done: Deferred.Deferred<void>
}

/** Plain state: every change happens in one synchronous step. */
interface State {
  queue: ReadonlyArray<Entry>
  inFlight: InFlight | undefined
  /** The claim of the background loader running for this set, if one is (see `claimBackground`). */
  background: object | undefined
}

const states = new WeakMap<RetainedDocuments.RetainedSet, State>()

const stateOf = (set: RetainedDocuments.RetainedSet): State => {
  let state = states.get(set)
  if (state === undefined) {
    state = { queue: [], inFlight: undefined, background: undefined }
    states.set(set, state)
  }
  return state
}

/** The paths not loaded yet: queued, or opened and not yet confirmed. */
export const unloaded = (set: RetainedDocuments.RetainedSet): ReadonlySet<string> => {
  const state = stateOf(set)
  return new Set([...state.queue, ...(state.inFlight?.entries ?? [])].map((entry) => entry.path))
}

/** Whether anything is queued or in flight. */
export const isBusy = (set: RetainedDocuments.RetainedSet): boolean => {
  const state = stateOf(set)
  return state.queue.length > 0 || state.inFlight !== undefined
}

/**
 * Queues `entries` ahead of what earlier calls queued (the latest question's most relevant projects load first);
 * an entry in flight is left where it is, one queued already moves to its new place.
 */
export const enqueue = (set: RetainedDocuments.RetainedSet, entries: ReadonlyArray<Entry>): Effect.Effect<void> =>
  Effect.sync(() => {
    const state = stateOf(set)
    const flying = new Set((state.inFlight?.entries ?? []).map((entry) => entry.path))
    const fresh = entries.filter((entry) => !flying.has(entry.path))
    const paths = new Set(fresh.map((entry) => entry.path))
    state.queue = [...fresh, ...state.queue.filter((entry) => !paths.has(entry.path))]
  })

/**
 * Claims the background loader's place, unless a loader has it or nothing is left: the claim when the caller is
 * to start one, which gives it back with `releaseBackground` when it ends.
 */
export const claimBackground = (set: RetainedDocuments.RetainedSet): Effect.Effect<object | undefined> =>
  Effect.sync(() => {
    const state = stateOf(set)
    if (state.background !== undefined || (state.queue.length === 0 && state.inFlight === undefined)) return undefined
    const claim = {}
    state.background = claim
    return claim
  })

/** Gives the place back, if `claim` still holds it. */
export const releaseBackground = (set: RetainedDocuments.RetainedSet, claim: object): Effect.Effect<void> =>
  Effect.sync(() => {
    const state = stateOf(set)
    if (state.background === claim) state.background = undefined
  })

/** What `next` needs of the server and the host. */
export interface Pinning {
  readonly services: FileServices
  readonly set: RetainedDocuments.RetainedSet
  readonly connection: JsonRpc.Connection
  readonly workspace: Workspace
  readonly languageOf: (path: string) => string
  readonly maxDocumentBytes: number
  readonly onSent: (uri: string) => void
  /** How many files a batch opens at most. */
  readonly batchSize: number
  /** Runs the confirmation on a fiber of the host's, so that it outlives the caller. */
  readonly fork: (effect: Effect.Effect<void>) => Effect.Effect<void>
}

/**
 * The batch in flight; or, when none is, the next batch opened (its confirmation sent on `fork`'s fiber); or
 * undefined when nothing is left. The caller holds the server's permit. Opening and sending the confirmation
 * are one uninterruptible step (reading a batch's few files), so a batch is never left opened but unconfirmed.
 */
export const next = (pinning: Pinning): Effect.Effect<InFlight | undefined, LspError.LspLocalError> =>
  Effect.uninterruptible(Effect.gen(function*() {
    const state = stateOf(pinning.set)
    if (state.inFlight !== undefined) return state.inFlight
    if (state.queue.length === 0) return undefined
    const entries = state.queue.slice(0, pinning.batchSize)
    state.queue = state.queue.slice(entries.length)
    const flight: InFlight = { entries, done: yield* Deferred.make<void>() }
    state.inFlight = flight
    const settle = Effect.zipRight(
      Effect.sync(() => {
        if (state.inFlight === flight) state.inFlight = undefined
      }),
      Deferred.succeed(flight.done, undefined)
    )
    const pinned = yield* Effect.either(RetainedDocuments.pin(pinning.services, pinning.set, pinning.connection, {
      workspace: pinning.workspace,
      paths: entries.map((entry) => entry.path),
      languageOf: pinning.languageOf,
      maxDocumentBytes: pinning.maxDocumentBytes,
      onSent: pinning.onSent
    }))
    if (pinned._tag === "Left") {
      // The connection has failed: nothing more can be opened on this server.
      state.queue = [...entries, ...state.queue]
      yield* settle
      return yield* Effect.fail(pinned.left)
    }
    // A file of the batch the server holds (any: the request goes out after every open of the batch).
    const paths = new Set(entries.map((entry) => entry.path))
    const held = [...(yield* Ref.get(pinning.set)).values()].find((document) => paths.has(document.path))
    if (held === undefined) {
      yield* settle
      return flight
    }
    yield* pinning.fork(Effect.ensuring(
      Effect.ignore(pinning.connection.request("textDocument/documentSymbol", { textDocument: { uri: held.uri } })),
      settle
    ))
    return flight
  }))
