/**
 * Callers found from references, for a call hierarchy the server cannot give across projects (see
 * `projects.ts`): of the references in a file, those that are calls — the name called (`f(`, `f<T>(`,
 * ``f`…` ``), constructed (`new F`), applied as a decorator (`@f`) or as a JSX element (`<F`) — each attributed
 * to the innermost declaration around it that the server itself prepares a call hierarchy for, else to the
 * file (a module-level call), as the server names callers in its own project.
 */
import { type LspError, type LspQuery, type LspResult } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import { normalizePrepared } from "../answers/normalizeCalls.js"
import { normalizeDocumentSymbols } from "../answers/normalizeSymbols.js"
import type * as ServerInstance from "../servers/serverInstance.js"
import { methodOf } from "../wire/capabilities.js"

/** Whether the reference at `range` on `lines` is a call of the name it covers. */
export const isCallSite = (lines: ReadonlyArray<string>, range: LspQuery.LspRange, jsx: boolean): boolean => {
  const line = lines[range.start.line] ?? ""
  const before = line.slice(0, range.start.character)
  const after = range.end.line === range.start.line ? line.slice(range.end.character) : ""
  return /^\s*(\?\.)?\s*(<[^()<>]*(<[^()<>]*>[^()<>]*)*>)?\s*(\?\.)?\s*[(`]/.test(after) ||
    /(^|[^\w$.])new\s+([\w$]+\s*\.\s*)*$/.test(before) ||
    /@\s*([\w$]+\s*\.\s*)*$/.test(before) ||
    (jsx && /<\s*([\w$]+\s*\.\s*)*$/.test(before))
}

const contains = (range: LspQuery.LspRange, position: LspQuery.LspPosition) =>
  (range.start.line < position.line ||
    (range.start.line === position.line && range.start.character <= position.character)) &&
  (position.line < range.end.line || (position.line === range.end.line && position.character <= range.end.character))

const sameRange = (a: LspQuery.LspRange, b: LspQuery.LspRange) =>
  a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line &&
  a.end.character === b.end.character

/** A document as `callersOf` needs it: the server holds it open. */
export interface CallerDocument {
  readonly uri: string
  readonly lines: ReadonlyArray<string>
  /** Whether the file may hold JSX (`.tsx`, `.jsx`). */
  readonly jsx: boolean
  /** The file's name, which names a module-level caller. */
  readonly name: string
  /** Where the references are. */
  readonly sites: ReadonlyArray<LspQuery.LspRange>
}

/** The callers of the call sites among `document.sites`, each with its call sites, as incoming calls. */
export const callersOf = (
  instance: ServerInstance.ServerInstance,
  document: CallerDocument
): Effect.Effect<ReadonlyArray<LspResult.LspCall>, LspError.LspError> =>
  Effect.gen(function*() {
    const sites = document.sites.filter((range) => isCallSite(document.lines, range, document.jsx))
    if (sites.length === 0) return []
    const symbols = yield* Effect.flatMap(
      instance.connection.request(methodOf("documentSymbol"), { textDocument: { uri: document.uri } }),
      (raw) => normalizeDocumentSymbols(raw, document.uri)
    )
    // The server's own item for a declaration, or none when it prepares none there (a constant, a type).
    const prepared = new Map<string, LspResult.LspCallItem | undefined>()
    const itemAt = (symbol: LspResult.LspSymbol) =>
      Effect.gen(function*() {
        const key = `${symbol.selectionRange.start.line}:${symbol.selectionRange.start.character}`
        if (prepared.has(key)) return prepared.get(key)
        const items = yield* Effect.flatMap(
          instance.connection.request(methodOf("incomingCalls"), {
            textDocument: { uri: document.uri },
            position: symbol.selectionRange.start
          }),
          (raw) => normalizePrepared("incomingCalls", raw)
        )
        const own = items.find(({ item }) =>
          item.uri === document.uri && sameRange(item.selectionRange, symbol.selectionRange)
        )
        prepared.set(key, own?.item)
        return own?.item
      })
    const lastLine = Math.max(0, document.lines.length - 1)
    const module: LspResult.LspCallItem = {
      name: document.name,
      kind: "Module",
      uri: document.uri,
      range: {
        start: { line: 0, character: 0 },
        end: { line: lastLine, character: document.lines[lastLine]?.length ?? 0 }
      },
      selectionRange: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }
    }
    const byCaller = new Map<string, { item: LspResult.LspCallItem; fromRanges: Array<LspQuery.LspRange> }>()
    for (const site of sites) {
      // Innermost first: the enclosing declaration with the latest start.
      const around = symbols.filter((symbol) => contains(symbol.range, site.start)).sort((a, b) =>
        b.range.start.line - a.range.start.line || b.range.start.character - a.range.start.character
      )
      let caller: LspResult.LspCallItem | undefined
      for (const symbol of around) {
        caller = yield* itemAt(symbol)
        if (caller !== undefined) break
      }
      const item = caller ?? module
      const key = `${item.selectionRange.start.line}:${item.selectionRange.start.character}`
      const entry = byCaller.get(key) ?? { item, fromRanges: [] }
      entry.fromRanges.push(site)
      byCaller.set(key, entry)
    }
    return [...byCaller.values()].map(({ fromRanges, item }) => ({ ...item, fromUri: document.uri, fromRanges }))
  })
