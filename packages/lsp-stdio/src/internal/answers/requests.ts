/**
 * What each operation asks a server, and how the answer becomes a seam result: one request for most, the
 * prepare step and then one request per prepared item for the call hierarchy. Every request is a
 * `Connection.request`, so interrupting any of them sends `$/cancelRequest` for it.
 */
import type { LspQuery } from "@lsp-seam/lsp"
import { type LspError, LspResult } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import type * as ServerInstance from "../servers/serverInstance.js"
import { callsMethod, methodOf, requestParams } from "../wire/capabilities.js"
import { normalizeHover, normalizeLocations } from "./normalize.js"
import { type Direction, normalizeCalls, normalizePrepared } from "./normalizeCalls.js"
import { normalizeDocumentSymbols, normalizeWorkspaceSymbols } from "./normalizeSymbols.js"

/** The call hierarchy: prepare at the position, then the calls of every prepared item, merged in order. */
const calls = (
  instance: ServerInstance.ServerInstance,
  direction: Direction,
  uri: string,
  position: LspQuery.LspPosition,
  workspaceUri: string
) =>
  Effect.gen(function*() {
    const prepared = yield* Effect.flatMap(
      instance.connection.request(methodOf(direction), { textDocument: { uri }, position }),
      (raw) => normalizePrepared(direction, raw)
    )
    const found = yield* Effect.forEach(prepared, ({ item, raw }) =>
      Effect.flatMap(
        instance.connection.request(callsMethod[direction], { item: raw }),
        (answer) => normalizeCalls(direction, item, answer)
      ))
    return LspResult.calls(
      direction === "incomingCalls" ? "incoming" : "outgoing",
      prepared.map(({ item }) => item),
      found.flat(),
      workspaceUri
    )
  })

/**
 * Asks `instance` the query (at its final position) about the document `uri`, which the server already holds,
 * and normalises the answer.
 */
export const ask = (
  instance: ServerInstance.ServerInstance,
  // Diagnostics are not one request but a wait on what the server pushes (see diagnostics.ts), and a rename
  // preview needs the host's files (see renamePreview.ts).
  query: Exclude<LspQuery.LspProviderQuery, { readonly operation: "diagnostics" | "renamePreview" }>,
  uri: string,
  /** The query's workspace, which the result's paths are shown relative to (the server may run below it). */
  workspaceUri: string
): Effect.Effect<LspResult.LspQueryResult, LspError.LspLocalError> => {
  const request = (params: unknown) => instance.connection.request(methodOf(query.operation), params)
  switch (query.operation) {
    case "documentSymbol":
      return Effect.flatMap(
        request({ textDocument: { uri } }),
        (raw) => Effect.map(normalizeDocumentSymbols(raw, uri), (found) => LspResult.symbols(found, workspaceUri))
      )
    case "workspaceSymbol":
      return Effect.flatMap(
        request({ query: query.query }),
        (raw) => Effect.map(normalizeWorkspaceSymbols(raw), (found) => LspResult.symbols(found, workspaceUri))
      )
    case "incomingCalls":
    case "outgoingCalls":
      return calls(instance, query.operation, uri, query.position, workspaceUri)
    case "hover":
      return Effect.flatMap(
        request(requestParams(query.operation, uri, query.position)),
        (raw) => Effect.map(normalizeHover(raw), LspResult.hover)
      )
    default:
      return Effect.flatMap(
        request(requestParams(query.operation, uri, query.position)),
        (raw) =>
          Effect.map(normalizeLocations(raw, query.operation), (found) => LspResult.locations(found, workspaceUri))
      )
  }
}
