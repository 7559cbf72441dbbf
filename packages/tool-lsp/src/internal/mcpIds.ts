/**
 * Request ids between an MCP client and @effect/rpc. JSON-RPC ids are strings or numbers, and an answer must
 * carry the very id of its request; @effect/rpc reads every id with `BigInt` (so `"abc"` or `1.5` throws and
 * stops the session) and writes it back with `Number` (so `"17"` comes back as `17`). Each request the client
 * sends is therefore given a fresh integer id of the session's own, and each answer gets the client's id
 * back; a cancellation names the request by the client's id, so it is translated the same way, and the
 * cancelled request's answer (the server's report of its interruption) is dropped, as MCP asks.
 *
 * @internal
 */

/** The client's id, kept apart from an equal-looking id of the other type (`"17"` is not `17`). */
type ClientId = string | number

const keyOf = (id: ClientId) => `${typeof id}:${id}`

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

export interface IdMap {
  /** `message` (checked: a request, notification or answer) as the server is to see it. */
  readonly admit: (message: Record<string, unknown>) => Record<string, unknown> | undefined
  /** One line the server wrote, with each answer's id restored to the client's; `undefined` when none is left. */
  readonly restore: (line: string) => string | undefined
}

export const makeIdMap = (): IdMap => {
  let next = 0
  const clientIds = new Map<number, ClientId>()
  const inFlight = new Map<string, number>()
  const cancelled = new Set<number>()

  const admit = (message: Record<string, unknown>): Record<string, unknown> | undefined => {
    const { id, method, params } = message
    if (typeof method !== "string") return message
    if (method === "notifications/cancelled") {
      if (!isRecord(params) || (typeof params.requestId !== "string" && typeof params.requestId !== "number")) {
        return message
      }
      const ours = inFlight.get(keyOf(params.requestId))
      // Nothing in flight by that id (answered already, or never sent): nothing to cancel.
      if (ours === undefined) return undefined
      cancelled.add(ours)
      return { ...message, params: { ...params, requestId: ours } }
    }
    if (typeof id !== "string" && typeof id !== "number") return message
    const ours = next++
    clientIds.set(ours, id)
    inFlight.set(keyOf(id), ours)
    return { ...message, id: ours }
  }

  /** The message as the client is to see it; `undefined` for the answer to a cancelled request. */
  const restoreOne = (message: unknown): unknown => {
    // Only answers are restored: a message with a method is the server's own request or notification.
    if (!isRecord(message) || "method" in message || typeof message.id !== "number") return message
    const ours = message.id
    const theirs = clientIds.get(ours)
    if (theirs === undefined) return message
    clientIds.delete(ours)
    if (inFlight.get(keyOf(theirs)) === ours) inFlight.delete(keyOf(theirs))
    if (cancelled.delete(ours)) return undefined
    return { ...message, id: theirs }
  }

  const restore = (line: string): string | undefined => {
    if (clientIds.size === 0) return line
    const parsed: unknown = JSON.parse(line)
    if (!Array.isArray(parsed)) {
      const restored = restoreOne(parsed)
      return restored === undefined ? undefined : `${JSON.stringify(restored)}\n`
    }
    const restored = parsed.map(restoreOne).filter((message) => message !== undefined)
    return restored.length === 0 ? undefined : `${JSON.stringify(restored)}\n`
  }

  return { admit, restore }
}
