/**
 * Callers found from references, for a call hierarchy the server cannot give across projects (see
 * `projects.ts`): of the references in a file, those that are calls — the name called (`f(`, `f<T>(`,
 * ``f`…` ``), constructed (`new F`), applied as a decorator (`@f`) or as a JSX element (`<F`) — each attributed
 * to the innermost declaration around it (`LspEnclosing`, in the seam) that the server itself prepares a call hierarchy for,
 * asked on the declaration's name, else to the file (a module-level call), as the server names callers in its
 * own project.
 */
import { LspEnclosing, type LspError, type LspQuery, type LspResult } from "@lsp-seam/lsp"
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

const sameRange = (a: LspQuery.LspRange, b: LspQuery.LspRange) =>
  a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line &&
  a.end.character === b.end.character

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Where to ask the server for `symbol`'s call hierarchy item: on its name. typescript-language-server gives an
 * overload's later declarations (the implementation among them) the whole declaration as `selectionRange`, which
 * starts on `export` or `function`, where tsserver prepares nothing; there the name is the first whole word
 * `symbol.name` within the range. A name not found there (a computed or quoted name) keeps the server's start.
 */
export const namePosition = (lines: ReadonlyArray<string>, symbol: LspResult.LspSymbol): LspQuery.LspPosition => {
  const { range, selectionRange } = symbol
  const whole = sameRange(selectionRange, range)
  if (!whole) return selectionRange.start
  const word = new RegExp(`(^|[^\\w$])(${escape(symbol.name)})(?![\\w$])`)
  for (let line = range.start.line; line <= range.end.line && line < lines.length; line++) {
    const from = line === range.start.line ? range.start.character : 0
    const to = line === range.end.line ? range.end.character : undefined
    const found = word.exec((lines[line] ?? "").slice(from, to))
    if (found !== null) return { line, character: from + found.index + found[1]!.length }
  }
  return selectionRange.start
}

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
): Effect.Effect<ReadonlyArray<LspResult.LspCall>, LspError.LspLocalError> =>
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
        const position = namePosition(document.lines, symbol)
        const key = `${symbol.range.start.line}:${symbol.range.start.character}@${position.line}:${position.character}`
        if (prepared.has(key)) return prepared.get(key)
        const items = yield* Effect.flatMap(
          instance.connection.request(methodOf("incomingCalls"), { textDocument: { uri: document.uri }, position }),
          (raw) => normalizePrepared("incomingCalls", raw)
        )
        // The server's item for this declaration: its name where the symbol names it, else its whole range.
        const own = items.find(({ item }) =>
          item.uri === document.uri &&
          (sameRange(item.selectionRange, symbol.selectionRange) || sameRange(item.range, symbol.range))
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
      const around = LspEnclosing.enclosingAll(symbols, site.start)
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
