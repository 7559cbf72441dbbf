/** How many queries of one connection run at once (`maxQueriesPerClient`): the rest wait for a permit. */
import { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"

/** Runs a client's query once fewer than `limit` of its queries run; a client's permits go with its last query. */
export const make = (limit: number) =>
  Effect.gen(function*() {
    if (!Number.isSafeInteger(limit) || limit < 1) {
      return yield* LspError.invalidConfig(`maxQueriesPerClient must be a positive integer (got ${limit}).`)
    }
    const clients = new Map<number, { readonly permits: Effect.Semaphore; users: number }>()
    return <A, E, R>(clientId: number, query: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          const entry = clients.get(clientId) ?? { permits: Effect.unsafeMakeSemaphore(limit), users: 0 }
          entry.users++
          clients.set(clientId, entry)
          return entry
        }),
        (entry) => entry.permits.withPermits(1)(query),
        (entry) =>
          Effect.sync(() => {
            entry.users--
            if (entry.users === 0) clients.delete(clientId)
          })
      )
  })
