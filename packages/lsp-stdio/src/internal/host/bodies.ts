/**
 * Bodies (`includeBody`): each location or symbol of an answer given the source text of the whole declaration
 * it points at. The declaration is the smallest symbol of the file's documentSymbol answer that encloses the
 * location — asked through the pipeline's own documentSymbol path, on the query's server — its range widened to
 * its whole statement where the server gives only the name's (`statementEnd.ts`), then to whole lines; a location no symbol encloses gets its own lines, as does one in a file this server does not handle (it
 * has no symbols to ask for). The text is read from disk through the host's file access (inside the workspace,
 * checked on the opened file, within `maxDocumentBytes`); a file that cannot be read that way, or whose
 * documentSymbol query fails, gives its locations no body rather than a guessed one.
 */
import { type LspError, LspIdentifiers, type LspQuery, type LspResult } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import { readUriWith } from "../documents/source.js"
import type { FileServices } from "../files/fileAccess.js"
import type { Workspace } from "../files/workspace.js"
import * as StatementEnd from "./statementEnd.js"

/**
 * At most this many files of one answer get bodies (each may cost a documentSymbol request): the tool shows
 * far fewer bodies than this within its caps, and a wide workspaceSymbol answer should not open every file.
 */
export const maxBodyFiles = 20

export interface BodyContext {
  readonly services: FileServices
  readonly workspace: Workspace
  readonly maxDocumentBytes: number
  /** The language id this server gives the file at `path`, or undefined when the file is not this server's. */
  readonly languageOf: (path: string) => string | undefined
  /** The file's documentSymbol answer, asked through the pipeline on the query's server. */
  readonly documentSymbols: (
    path: string,
    languageId: string
  ) => Effect.Effect<LspResult.LspQueryResult, LspError.LspLocalError>
}

type Range = LspQuery.LspRange

const contains = (outer: Range, inner: Range): boolean =>
  (outer.start.line < inner.start.line ||
    (outer.start.line === inner.start.line && outer.start.character <= inner.start.character)) &&
  (outer.end.line > inner.end.line ||
    (outer.end.line === inner.end.line && outer.end.character >= inner.end.character))

/** The smallest of `ranges` that contains `target` (by lines, then by characters), if any. */
export const smallestEnclosing = (ranges: ReadonlyArray<Range>, target: Range): Range | undefined => {
  let best: Range | undefined
  for (const range of ranges) {
    if (!contains(range, target)) continue
    if (best === undefined || contains(best, range)) best = range
  }
  return best
}

/** The offset in `text` where each line starts, by the line terminators LSP counts (`\r\n`, `\n`, `\r`). */
const lineStarts = (text: string): ReadonlyArray<number> => {
  const starts = [0]
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 13 && text.charCodeAt(i + 1) === 10) i++
    if (code === 10 || code === 13) starts.push(i + 1)
  }
  return starts
}

/** The body of `range` in `source`: its whole lines, the text exactly as the file holds it. */
export const bodyOf = (
  source: { readonly text: string; readonly lines: ReadonlyArray<string>; readonly starts: ReadonlyArray<number> },
  range: Range
): LspResult.LspBody | undefined => {
  const last = source.lines.length - 1
  if (range.start.line > last) return undefined
  const endLine = Math.min(range.end.line, last)
  const start = source.starts[range.start.line]!
  const end = source.starts[endLine]! + source.lines[endLine]!.length
  return {
    range: {
      start: { line: range.start.line, character: 0 },
      end: { line: endLine, character: source.lines[endLine]!.length }
    },
    text: source.text.slice(start, end)
  }
}

/** The declarations of a file: the ranges of its documentSymbol answer, or undefined when it had none to give. */
const declarationsOf = (context: BodyContext, path: string, languageId: string | undefined) =>
  Effect.gen(function*() {
    if (languageId === undefined) return []
    const answer = yield* Effect.option(context.documentSymbols(path, languageId))
    if (answer._tag === "None" || answer.value.kind !== "symbols") return undefined
    return answer.value.symbols.map((symbol) => symbol.range)
  })

/** What one file gives the items that point into it: a body for a range, or undefined. */
type BodyFor = (range: Range) => LspResult.LspBody | undefined

/**
 * The bodies of one file. `own` are the ranges of the answer's own symbols in it (a documentSymbol answer:
 * each symbol is its own declaration); without them the file's declarations are asked for.
 */
const bodiesOfFile = (
  context: BodyContext,
  uri: string,
  own: ReadonlyArray<Range> | undefined
): Effect.Effect<BodyFor | undefined> =>
  Effect.gen(function*() {
    const source = yield* readUriWith(context.services, context.workspace, uri, context.maxDocumentBytes)
    if (source === undefined) return undefined
    const languageId = context.languageOf(source.path)
    const declarations = own ?? (yield* declarationsOf(context, source.path, languageId))
    if (declarations === undefined) return undefined
    const lines = LspIdentifiers.splitLines(source.text)
    const text = { text: source.text, lines, starts: lineStarts(source.text) }
    const widen = StatementEnd.widener(lines, declarations, StatementEnd.syntaxOf(languageId))
    if (own !== undefined) return (range) => bodyOf(text, widen(range))
    const widened = declarations.map(widen)
    const bodyFor: BodyFor = (range) => bodyOf(text, smallestEnclosing(widened, range) ?? range)
    return bodyFor
  })

/** The bodies of the first `maxBodyFiles` files of `uris`, by URI. */
const bodiesByFile = (
  context: BodyContext,
  items: ReadonlyArray<{ readonly uri: string; readonly range: Range }>,
  ownRanges: boolean
) =>
  Effect.map(
    Effect.forEach([...new Set(items.map((item) => item.uri))].slice(0, maxBodyFiles), (uri) =>
      Effect.map(
        bodiesOfFile(
          context,
          uri,
          ownRanges ? items.filter((item) => item.uri === uri).map((item) => item.range) : undefined
        ),
        (bodyFor) => [uri, bodyFor] as const
      )),
    (entries) => new Map(entries)
  )

const withBody = <A extends { readonly uri: string }>(
  item: A,
  byFile: ReadonlyMap<string, BodyFor | undefined>,
  range: Range
): A => {
  const body = byFile.get(item.uri)?.(range)
  return body === undefined ? item : { ...item, body }
}

/**
 * `result` with bodies on its locations or symbols (other answers are returned as they are). The symbols of
 * a documentSymbol answer are their own declarations; any other answer's items are looked up in their files'
 * documentSymbol answers.
 */
export const attach = (
  context: BodyContext,
  operation: LspQuery.LspProviderOperation,
  result: LspResult.LspQueryResult
): Effect.Effect<LspResult.LspQueryResult> => {
  switch (result.kind) {
    case "locations":
      return Effect.map(
        bodiesByFile(context, result.locations, false),
        (byFile) => ({ ...result, locations: result.locations.map((l) => withBody(l, byFile, l.range)) })
      )
    case "symbols":
      return Effect.map(
        bodiesByFile(context, result.symbols, operation === "documentSymbol"),
        (byFile) => ({ ...result, symbols: result.symbols.map((s) => withBody(s, byFile, s.range)) })
      )
    default:
      return Effect.succeed(result)
  }
}
