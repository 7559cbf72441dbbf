/**
 * Turning a server's symbol answers into seam symbols: `textDocument/documentSymbol` (a tree of
 * `DocumentSymbol`, or a flat list of `SymbolInformation`) and `workspace/symbol` (`SymbolInformation` or
 * `WorkspaceSymbol`). Both shapes give the same result: every symbol with its kind by name, its container
 * path, its ranges, and (in a document) how deep it is nested. Anything off the protocol is
 * `LSP_MALFORMED_RESPONSE`, naming the field.
 */
import { type LspError, LspQuery, LspResult } from "@lsp-seam/lsp"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { decodeAt, describe, isRecord, Location, malformed, unwrap, Uri } from "./normalize.js"

/** LSP's numeric symbol kind (1–26), decoded to its name. */
export const SymbolKind = Schema.Int.pipe(
  Schema.filter((n) => n >= 1 && n <= LspResult.SymbolKindName.literals.length, {
    message: (issue) => `Expected a SymbolKind from 1 to 26, actual ${JSON.stringify(issue.actual)}`
  })
)

export const kindName = (kind: number): LspResult.SymbolKindName => LspResult.SymbolKindName.literals[kind - 1]!

// `selectionRange` is required by the protocol; a server that leaves it out still says where the symbol is.
const DocumentSymbol = Schema.Struct({
  name: Schema.String,
  detail: Schema.optional(Schema.NullOr(Schema.String)),
  kind: SymbolKind,
  range: LspQuery.LspRange,
  selectionRange: Schema.optional(LspQuery.LspRange),
  children: Schema.optional(Schema.NullOr(Schema.Array(Schema.Unknown)))
})

const SymbolInformation = Schema.Struct({
  name: Schema.String,
  kind: SymbolKind,
  location: Location,
  containerName: Schema.optional(Schema.NullOr(Schema.String))
})

// A workspace symbol may name only its document when the client could resolve the rest; this client cannot,
// but a server that sends a bare URI still says which file.
const WorkspaceSymbol = Schema.Struct({
  name: Schema.String,
  kind: SymbolKind,
  location: Schema.Union(Location, Schema.Struct({ uri: Uri })),
  containerName: Schema.optional(Schema.NullOr(Schema.String))
})

const startOf = (range: LspQuery.LspRange) => range.start

const before = (a: LspQuery.LspPosition, b: LspQuery.LspPosition) =>
  a.line < b.line || (a.line === b.line && a.character < b.character)

const compareStart = (a: { readonly range: LspQuery.LspRange }, b: { readonly range: LspQuery.LspRange }) =>
  before(startOf(a.range), startOf(b.range)) ? -1 : before(startOf(b.range), startOf(a.range)) ? 1 : 0

const contains = (outer: LspQuery.LspRange, inner: LspQuery.LspRange) =>
  !before(inner.start, outer.start) && !before(outer.end, inner.end)

const zeroRange: LspQuery.LspRange = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }

/** Nesting beyond this is not a program a person wrote: refuse it rather than walk it. */
const maxDepth = 256

const optionalText = (value: string | null | undefined) =>
  value === undefined || value === null || value === "" ? undefined : value

const symbol = (fields: {
  readonly name: string
  readonly kind: number
  readonly uri: string
  readonly range: LspQuery.LspRange
  readonly selectionRange: LspQuery.LspRange
  readonly containerName: string | undefined
  readonly detail?: string | undefined
  readonly depth?: number
}): LspResult.LspSymbol => ({
  name: fields.name,
  kind: kindName(fields.kind),
  ...(fields.containerName === undefined ? {} : { containerName: fields.containerName }),
  ...(fields.detail === undefined ? {} : { detail: fields.detail }),
  uri: fields.uri,
  range: fields.range,
  selectionRange: fields.selectionRange,
  ...(fields.depth === undefined ? {} : { depth: fields.depth })
})

/** A `DocumentSymbol` tree, depth first, siblings in document order, each with its container path. */
const fromTree = (
  roots: ReadonlyArray<unknown>,
  uri: string
): Either.Either<ReadonlyArray<LspResult.LspSymbol>, LspError.LspLocalError> => {
  interface Frame {
    readonly node: typeof DocumentSymbol.Type
    readonly where: string
    readonly path: ReadonlyArray<string>
  }
  /** Decodes one level of siblings, in document order whatever order the server sent them in. */
  const level = (
    entries: ReadonlyArray<unknown>,
    where: string,
    path: ReadonlyArray<string>
  ): Either.Either<ReadonlyArray<Frame>, LspError.LspLocalError> => {
    const frames: Array<Frame> = []
    for (let i = 0; i < entries.length; i++) {
      const at = `${where}[${i}]`
      const node = decodeAt(DocumentSymbol, "documentSymbol", "expected a DocumentSymbol", at, entries[i])
      if (Either.isLeft(node)) return Either.left(node.left)
      frames.push({ node: node.right, where: at, path })
    }
    return Either.right(frames.sort((a, b) => compareStart(a.node, b.node)))
  }
  const out: Array<LspResult.LspSymbol> = []
  // An explicit stack: a hostile answer nested a million deep must not overflow the host's.
  const first = level(roots, "", [])
  if (Either.isLeft(first)) return Either.left(first.left)
  const stack = [...first.right].reverse()
  while (stack.length > 0) {
    const { node, path, where } = stack.pop()!
    if (path.length >= maxDepth) {
      return Either.left(malformed("documentSymbol", `symbols are nested more than ${maxDepth} deep`, where))
    }
    out.push(symbol({
      name: node.name,
      kind: node.kind,
      uri,
      range: node.range,
      selectionRange: node.selectionRange ?? node.range,
      containerName: path.length === 0 ? undefined : path.join("."),
      detail: optionalText(node.detail),
      depth: path.length
    }))
    const children = level(node.children ?? [], `${where}.children`, [...path, node.name])
    if (Either.isLeft(children)) return Either.left(children.left)
    for (let k = children.right.length - 1; k >= 0; k--) stack.push(children.right[k]!)
  }
  return Either.right(out)
}

/**
 * `SymbolInformation[]` in document order; each symbol's depth is the number of symbols whose range holds
 * it, so a flat answer is indented like a tree.
 */
const fromFlat = (
  entries: ReadonlyArray<unknown>
): Either.Either<ReadonlyArray<LspResult.LspSymbol>, LspError.LspLocalError> => {
  const decoded: Array<typeof SymbolInformation.Type> = []
  for (let i = 0; i < entries.length; i++) {
    const entry = decodeAt(SymbolInformation, "documentSymbol", "expected a SymbolInformation", `[${i}]`, entries[i])
    if (Either.isLeft(entry)) return Either.left(entry.left)
    decoded.push(entry.right)
  }
  const ordered = decoded.map((info) => ({ info, range: info.location.range })).sort(compareStart)
  const open: Array<LspQuery.LspRange> = []
  return Either.right(ordered.map(({ info, range }) => {
    while (open.length > 0 && !contains(open[open.length - 1]!, range)) open.pop()
    const depth = open.length
    open.push(range)
    return symbol({
      name: info.name,
      kind: info.kind,
      uri: info.location.uri,
      range,
      selectionRange: range,
      containerName: optionalText(info.containerName),
      depth
    })
  }))
}

/**
 * Normalises the answer to `textDocument/documentSymbol` for the document `uri`: `null` gives no symbols;
 * an array of `DocumentSymbol` (recognised by its `range` without a `location`) or of `SymbolInformation`
 * gives every symbol, parents before children, in document order. A missing `selectionRange` falls back to
 * `range`. A missing result, a mix of the two shapes, or a malformed entry is `LSP_MALFORMED_RESPONSE`.
 */
export const normalizeDocumentSymbols = (
  raw: unknown,
  uri: string
): Either.Either<ReadonlyArray<LspResult.LspSymbol>, LspError.LspLocalError> => {
  const result = unwrap(raw)
  if (Option.isNone(result)) return Either.left(malformed("documentSymbol", "the response has no result"))
  const value = result.value
  if (value === null) return Either.right([])
  if (!Array.isArray(value)) {
    return Either.left(
      malformed("documentSymbol", `expected null or an array of symbols, got ${describe(value)}`)
    )
  }
  const entries: ReadonlyArray<unknown> = value
  const flat = entries.filter((entry) => isRecord(entry) && "location" in entry).length
  if (flat > 0 && flat < entries.length) {
    return Either.left(
      malformed("documentSymbol", "the array mixes SymbolInformation and DocumentSymbol entries")
    )
  }
  return flat > 0 ? fromFlat(entries) : fromTree(entries, uri)
}

/**
 * Normalises the answer to `workspace/symbol`: `null` gives none; `SymbolInformation[]` or
 * `WorkspaceSymbol[]` give every symbol in the server's order (a `WorkspaceSymbol` that names only its
 * document is placed at its start). A malformed entry is `LSP_MALFORMED_RESPONSE`.
 */
export const normalizeWorkspaceSymbols = (
  raw: unknown
): Either.Either<ReadonlyArray<LspResult.LspSymbol>, LspError.LspLocalError> => {
  const result = unwrap(raw)
  if (Option.isNone(result)) return Either.left(malformed("workspaceSymbol", "the response has no result"))
  const value = result.value
  if (value === null) return Either.right([])
  if (!Array.isArray(value)) {
    return Either.left(
      malformed("workspaceSymbol", `expected null or an array of symbols, got ${describe(value)}`)
    )
  }
  const entries: ReadonlyArray<unknown> = value
  const out: Array<LspResult.LspSymbol> = []
  for (let i = 0; i < entries.length; i++) {
    const entry = decodeAt(WorkspaceSymbol, "workspaceSymbol", "expected a SymbolInformation", `[${i}]`, entries[i])
    if (Either.isLeft(entry)) return Either.left(entry.left)
    const { containerName, kind, location, name } = entry.right
    const range = "range" in location ? location.range : zeroRange
    out.push(symbol({
      name,
      kind,
      uri: location.uri,
      range,
      selectionRange: range,
      containerName: optionalText(containerName)
    }))
  }
  return Either.right(out)
}
