/**
 * Turning a server's call hierarchy answers into seam calls: the items `textDocument/prepareCallHierarchy`
 * finds at a position, and the calls `callHierarchy/incomingCalls` / `outgoingCalls` give for each. The raw
 * item goes back to the server as it came (its `data` is the server's own); what the caller sees is
 * validated and normalised. Anything off the protocol is `LSP_MALFORMED_RESPONSE`, naming the field.
 */
import { type LspError, LspQuery, type LspResult } from "@lsp-seam/lsp"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { decodeAt, describe, malformed, unwrap, Uri } from "./normalize.js"
import { kindName, SymbolKind } from "./normalizeSymbols.js"

const CallHierarchyItem = Schema.Struct({
  name: Schema.String,
  kind: SymbolKind,
  detail: Schema.optional(Schema.NullOr(Schema.String)),
  uri: Uri,
  range: LspQuery.LspRange,
  selectionRange: LspQuery.LspRange
})

const Incoming = Schema.Struct({ from: Schema.Unknown, fromRanges: Schema.Array(LspQuery.LspRange) })
const Outgoing = Schema.Struct({ to: Schema.Unknown, fromRanges: Schema.Array(LspQuery.LspRange) })

export type Direction = "incomingCalls" | "outgoingCalls"

/** A prepared item: what the caller sees, and the server's own value to send back for its calls. */
export interface PreparedItem {
  readonly item: LspResult.LspCallItem
  readonly raw: unknown
}

const item = (
  operation: Direction,
  raw: unknown,
  where: string
): Either.Either<LspResult.LspCallItem, LspError.LspLocalError> =>
  Either.map(
    decodeAt(CallHierarchyItem, operation, "expected a CallHierarchyItem", where, raw),
    ({ detail, kind, name, range, selectionRange, uri }) => ({
      name,
      kind: kindName(kind),
      ...(detail === undefined || detail === null || detail === "" ? {} : { detail }),
      uri,
      range,
      selectionRange
    })
  )

const array = (operation: Direction, raw: unknown, what: string) => {
  const result = unwrap(raw)
  if (Option.isNone(result)) return Either.left(malformed(operation, `the ${what} response has no result`))
  const value = result.value
  if (value === null) return Either.right<ReadonlyArray<unknown>>([])
  if (!Array.isArray(value)) {
    return Either.left(malformed(operation, `expected null or an array from ${what}, got ${describe(value)}`))
  }
  return Either.right<ReadonlyArray<unknown>>(value)
}

/** The items prepared at a position (`null` or an array of `CallHierarchyItem`), in the server's order. */
export const normalizePrepared = (
  operation: Direction,
  raw: unknown
): Either.Either<ReadonlyArray<PreparedItem>, LspError.LspLocalError> =>
  Either.flatMap(array(operation, raw, "prepareCallHierarchy"), (entries) => {
    const out: Array<PreparedItem> = []
    for (let i = 0; i < entries.length; i++) {
      const decoded = item(operation, entries[i], `[${i}]`)
      if (Either.isLeft(decoded)) return Either.left(decoded.left)
      out.push({ item: decoded.right, raw: entries[i] })
    }
    return Either.right(out)
  })

/**
 * The calls of one prepared item: for incoming calls each caller (`from`) with its call sites, which lie in
 * the caller's document; for outgoing calls each callee (`to`), whose call sites lie in the prepared item's
 * document.
 */
/** Each call site once: pyright lists every incoming call site twice (raw pyright 1.1.414 does too). */
const distinct = (ranges: ReadonlyArray<LspQuery.LspRange>): ReadonlyArray<LspQuery.LspRange> => {
  const seen = new Set<string>()
  return ranges.filter((r) => {
    const key = `${r.start.line}:${r.start.character}:${r.end.line}:${r.end.character}`
    return seen.has(key) ? false : (seen.add(key), true)
  })
}

export const normalizeCalls = (
  operation: Direction,
  prepared: LspResult.LspCallItem,
  raw: unknown
): Either.Either<ReadonlyArray<LspResult.LspCall>, LspError.LspLocalError> =>
  Either.flatMap(array(operation, raw, operation), (entries) => {
    const out: Array<LspResult.LspCall> = []
    for (let i = 0; i < entries.length; i++) {
      const where = `[${i}]`
      if (operation === "incomingCalls") {
        const call = decodeAt(Incoming, operation, "expected a CallHierarchyIncomingCall", where, entries[i])
        if (Either.isLeft(call)) return Either.left(call.left)
        const from = item(operation, call.right.from, `${where}.from`)
        if (Either.isLeft(from)) return Either.left(from.left)
        out.push({ ...from.right, fromUri: from.right.uri, fromRanges: distinct(call.right.fromRanges) })
      } else {
        const call = decodeAt(Outgoing, operation, "expected a CallHierarchyOutgoingCall", where, entries[i])
        if (Either.isLeft(call)) return Either.left(call.left)
        const to = item(operation, call.right.to, `${where}.to`)
        if (Either.isLeft(to)) return Either.left(to.left)
        out.push({ ...to.right, fromUri: prepared.uri, fromRanges: distinct(call.right.fromRanges) })
      }
    }
    return Either.right(out)
  })
