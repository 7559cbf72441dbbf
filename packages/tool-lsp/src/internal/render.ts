/**
 * The text the model reads. Locations become `path:line:character` lines (one-based, range start),
 * grouped by file in order of first appearance; hover becomes its contents; symbols become
 * `path:line:character  Kind  container.name` lines grouped by file; calls a line naming the asked function,
 * then one `name  path:line:character` line per caller or callee with its call sites indented below. Before the answer come at most
 * one line saying what a `symbol` was resolved to and one line per reason the answer may be incomplete; an
 * empty answer off any identifier says so and lists the line's identifiers. Two caps keep the text
 * bounded: `maxLocations` location, symbol or call lines, then `maxResultChars` characters for the whole text,
 * notices included. With `include_body`, each location or symbol is followed by its code (see `renderBody.ts`);
 * a rename preview is a list of edits (see `renderEdits.ts`); an impact answer a tree of the declarations
 * that use the symbol and their callers, the tests apart (see `renderImpact.ts`).
 * Rendering never changes the canonical result. `LspToolRender` publishes what callers need of it.
 */
// LspResultRead, not LspResult: rendering must not load the Schemas (the command's remote edge renders too).
import { type LspResult, LspResultRead } from "@lsp-seam/lsp"
import { capped, type Entry } from "./capped.js"
import { fromSeamPosition } from "./input/convert.js"
import { type Bodies, bodyOf, makeBodies } from "./renderBody.js"
import { renderEdits } from "./renderEdits.js"
import { renderImpact } from "./renderImpact.js"
import { truncate } from "./truncate.js"
import * as UriPath from "./uriPath.js"

export { leftOutLine, omissionLine } from "./capped.js"
export { truncate, truncationNotice } from "./truncate.js"

/**
 * The text for a navigation result without locations.
 *
 * @since 0.1.0
 * @category constants
 */
export const noResults = "No results."

/**
 * The text for a hover result without contents.
 *
 * @since 0.1.0
 * @category constants
 */
export const noHoverInformation = "No hover information."

/**
 * @since 0.1.0
 * @category models
 */
export interface RenderOptions {
  readonly maxLocations: number
  readonly maxResultChars: number
  /** Lines of code per body (default 150). */
  readonly maxBodyLines?: number | undefined
  /** UTF-8 bytes of code per answer, all bodies together (default 12 000). */
  readonly maxBodyBytes?: number | undefined
}

/**
 * What the model asked, as far as rendering needs it: the path as the model gave it and whether it gave a
 * column and a symbol. Any validated `LspToolInput` is one.
 *
 * @since 0.1.0
 * @category models
 */
export interface RenderRequest {
  readonly file_path?: string | undefined
  readonly line?: number | undefined
  readonly character?: number | undefined
  readonly symbol?: string | undefined
  /** Whether the model asked for code: a location without a body then says why. */
  readonly include_body?: boolean | undefined
}

/**
 * How `uri` appears in a location line: relative to the workspace URI when inside it, absolute when outside,
 * verbatim when it is not a decodable `file:` URI or the workspace is not one. Paths follow the workspace's
 * world (POSIX, or Windows for a drive or UNC workspace, shown with `/` and compared case-insensitively),
 * not the host's.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderUri = (uri: string, resolvedWorkspaceUri: string): string =>
  UriPath.render(uri, resolvedWorkspaceUri)

/**
 * Location lines, grouped by rendered path in order of first appearance (original order within a file),
 * at most `maxLocations` of them, then the omission line if any were left out; `No results.` when empty.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderLocations = (
  result: LspResult.LspLocationsResult,
  maxLocations: number,
  bodies?: Bodies
): string => {
  if (result.locations.length === 0) return noResults
  const paths = new Map<string, string>()
  const groups = new Map<string, Array<Entry>>()
  for (const location of result.locations) {
    let path = paths.get(location.uri)
    if (path === undefined) {
      path = renderUri(location.uri, result.resolvedWorkspaceUri)
      paths.set(location.uri, path)
    }
    const { character, line } = fromSeamPosition(location.range.start)
    const entry: Entry = { text: `${path}:${line}:${character}`, path, more: bodyOf(bodies, path, location.body) }
    const group = groups.get(path)
    if (group === undefined) groups.set(path, [entry])
    else group.push(entry)
  }
  return capped([...groups.values()].flat(), maxLocations, "location")
}

const at = (path: string, position: LspResult.LspLocation["range"]["start"]): string => {
  const { character, line } = fromSeamPosition(position)
  return `${path}:${line}:${character}`
}

const comparePositions = (a: LspResult.LspLocation["range"]["start"], b: LspResult.LspLocation["range"]["start"]) =>
  a.line - b.line || a.character - b.character

/**
 * One symbol's line: `path:line:character  Kind  container.name` at the start of its name (one-based),
 * indented two spaces per nesting level (`depth`), and `  [provider]` when `labelled`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const symbolLine = (symbol: LspResult.LspSymbol, path: string, labelled = false): string => {
  const qualified = symbol.containerName === undefined || symbol.containerName === ""
    ? symbol.name
    : `${symbol.containerName}.${symbol.name}`
  const provider = labelled && symbol.provider !== undefined ? `  [${symbol.provider}]` : ""
  return `${"  ".repeat(symbol.depth ?? 0)}${
    at(path, symbol.selectionRange.start)
  }  ${symbol.kind}  ${qualified}${provider}`
}

/**
 * Symbol lines, grouped by rendered path in order of first appearance — the workspace's own files first, then
 * files outside it (absolute paths) and other URIs — and by position within a file (a parent before its
 * children); at most `maxLocations` of them, then the omission line; `No results.` when empty. Each line is
 * labelled with its provider when the symbols come from more than one (a merged workspaceSymbol search).
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderSymbols = (
  result: LspResult.LspSymbolsResult,
  maxLocations: number,
  bodies?: Bodies
): string => {
  if (result.symbols.length === 0) return noResults
  const places = new Map<string, { readonly text: string; readonly inside: boolean }>()
  const groups = new Map<string, Array<LspResult.LspSymbol>>()
  const outside = new Map<string, Array<LspResult.LspSymbol>>()
  for (const symbol of result.symbols) {
    let place = places.get(symbol.uri)
    if (place === undefined) {
      place = UriPath.place(symbol.uri, result.resolvedWorkspaceUri)
      places.set(symbol.uri, place)
    }
    const target = place.inside ? groups : outside
    const group = target.get(place.text)
    if (group === undefined) target.set(place.text, [symbol])
    else group.push(symbol)
  }
  const labelled = new Set(result.symbols.map((symbol) => symbol.provider)).size > 1
  const lines: Array<Entry> = []
  for (const [path, group] of [...groups, ...outside]) {
    // A stable sort: equal positions keep the provider's order, so a parent stays before its children.
    const sorted = [...group].sort((a, b) =>
      comparePositions(a.range.start, b.range.start) || (a.depth ?? 0) - (b.depth ?? 0)
    )
    for (const symbol of sorted) {
      lines.push({ text: symbolLine(symbol, path, labelled), path, more: bodyOf(bodies, path, symbol.body) })
    }
  }
  return capped(lines, maxLocations, "symbol")
}

const itemLabel = (item: LspResult.LspCallItem, resolvedWorkspaceUri: string): string =>
  `${item.name} (${item.kind}) at ${at(renderUri(item.uri, resolvedWorkspaceUri), item.selectionRange.start)}`

/**
 * The line that opens a calls answer: `Calls to add (Function) at m.ts:1:17:` (incoming) or
 * `Calls from main (Function) at m.ts:9:10:` (outgoing), naming every item the position prepared.
 *
 * @since 0.1.0
 * @category rendering
 */
export const callsHeader = (result: LspResult.LspCallsResult): string =>
  `Calls ${result.direction === "incoming" ? "to" : "from"} ${
    result.items.map((item) => itemLabel(item, result.resolvedWorkspaceUri)).join(", ")
  }:`

/**
 * Calls: the header line, then per caller (incomingCalls) or callee (outgoingCalls) a line
 * `name  path:line:character` at the start of its name, followed by its call sites indented two spaces, one
 * `path:line:character` each (in the caller's file for incoming calls, in the asked function's for outgoing
 * ones), in position order. Callers are grouped by file in order of first appearance, by position within a
 * file; at most `maxLocations` of them, then the omission line; `No results.` when there are no calls.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderCalls = (result: LspResult.LspCallsResult, maxLocations: number): string => {
  if (result.calls.length === 0) return noResults
  const workspace = result.resolvedWorkspaceUri
  const paths = new Map<string, string>()
  const pathOf = (uri: string) => {
    let path = paths.get(uri)
    if (path === undefined) {
      path = renderUri(uri, workspace)
      paths.set(uri, path)
    }
    return path
  }
  const groups = new Map<string, Array<LspResult.LspCall>>()
  for (const call of result.calls) {
    const path = pathOf(call.uri)
    const group = groups.get(path)
    if (group === undefined) groups.set(path, [call])
    else group.push(call)
  }
  const entries: Array<Entry> = []
  for (const [path, group] of groups) {
    const sorted = [...group].sort((a, b) => comparePositions(a.selectionRange.start, b.selectionRange.start))
    for (const call of sorted) {
      const from = pathOf(call.fromUri)
      const sites = [...call.fromRanges].sort((a, b) => comparePositions(a.start, b.start))
      entries.push({
        text: [
          `${call.name}  ${at(path, call.selectionRange.start)}`,
          ...sites.map((site) => `  ${at(from, site.start)}`)
        ]
          .join("\n"),
        path
      })
    }
  }
  return `${callsHeader(result)}\n${capped(entries, maxLocations, "call")}`
}

/**
 * The hover contents as normalised by the provider; `No hover information.` for `null` or blank contents.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderHover = (result: LspResult.LspHoverResult): string =>
  result.hover === null || result.hover.contents.trim() === ""
    ? noHoverInformation
    // Servers often wrap markdown in blank lines; they cost tokens and say nothing.
    : result.hover.contents.replace(/^(?:[ \t]*\r?\n)+|(?:\r?\n[ \t]*)+$/g, "")

/**
 * The line that names what `symbol` was resolved to, one-based: ``Resolved `add` to m.js:1:17.``, plus how
 * many occurrences the line has when there were several, and a warning when the occurrence is in a string or
 * a comment. With `request`, the path is the `file_path` the model gave; without it, the position is given
 * as a line and column.
 *
 * @since 0.1.0
 * @category rendering
 */
export const resolvedLine = (resolved: LspResult.Resolved, request?: RenderRequest): string => {
  const { character, line } = fromSeamPosition(resolved.position)
  const where = request?.file_path === undefined
    ? `line ${line}, column ${character}`
    : `${request.file_path}:${line}:${character}`
  const several = resolved.occurrences > 1
    ? ` (${resolved.occurrences} occurrences on that line; character chooses among them)`
    : ""
  const text = resolved.inStringOrComment === true
    ? " It is inside a string or a comment there: no line within 3 has it in code, so the answer may be empty."
    : ""
  return `Resolved \`${resolved.symbol}\` to ${where}${several}.${text}`
}

const moved = (resolved: LspResult.Resolved) =>
  resolved.position.line !== resolved.requested.line || resolved.position.character !== resolved.requested.character

/** The resolution line, when the answer is not plainly at the position the model gave. */
const resolution = (result: LspResult.LspQueryResult, request?: RenderRequest): ReadonlyArray<string> => {
  const resolved = result.resolved
  if (resolved === undefined) {
    // A provider that ignores `symbol` answered at column 1 of the line: say so rather than look resolved.
    return request?.symbol === undefined ? [] : [
      `Note: \`${request.symbol}\` was not resolved by the language server's provider; this answer is for ` +
      `${request.file_path ?? "?"}:${request.line ?? "?"}:${request.character ?? 1} as given.`
    ]
  }
  const noColumn = request !== undefined && request.character === undefined
  return moved(resolved) || resolved.occurrences > 1 || noColumn || resolved.inStringOrComment === true
    ? [resolvedLine(resolved, request)]
    : []
}

/**
 * One line per reason an answer may be incomplete: `Incomplete (<reason>): <message>` (a message's line
 * breaks become spaces, so each reason stays one line).
 *
 * @since 0.1.0
 * @category rendering
 */
export const incompleteLine = (reason: LspResult.IncompleteReason): string =>
  `Incomplete (${reason.reason}): ${reason.message.trim().replace(/\s*[\r\n]+\s*/g, " ")}`

/**
 * The sentence after `No results.` / `No hover information.` when the position was off any identifier:
 * `Line 3, column 5 is not on an identifier; identifiers on line 3: add (column 17), x (column 21).`
 * (one-based, at most `LspResultRead.listLimit` identifiers).
 *
 * @since 0.1.0
 * @category rendering
 */
export const offIdentifierSentence = (off: LspResult.OffIdentifier): string =>
  `Line ${off.line + 1}, column ${off.character + 1} is not on an identifier; ${
    LspResultRead.describeLine(off.line, off.identifiers)
  }.`

const oneLine = (message: string) => message.trim().replace(/\s*[\r\n]+\s*/g, " ")

/**
 * Diagnostics, one line each: `path:line:character  severity  message  [source code]` at the start of the
 * range, the message on one line, by file as the result orders them (errors first), at most `maxLocations`,
 * then the omission line; under each, its related places (`  related: path:line:character  message`, not counted).
 * `No diagnostics.` when there are none and the answer is known to be for the current text; an incomplete
 * empty answer says so instead (its reason line comes first), never that the file is clean.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderDiagnostics = (result: LspResult.LspDiagnosticsResult, maxLocations: number): string => {
  if (result.diagnostics.length === 0) {
    return result.incomplete === true ? "No diagnostics were received for the file's current text." : "No diagnostics."
  }
  const where = (uri: string, range: LspResult.LspLocation["range"]) =>
    at(renderUri(uri, result.resolvedWorkspaceUri), range.start)
  const groups = new Map<string, Array<Entry>>()
  for (const { code, message, range, relatedInformation: related = [], severity, source, uri } of result.diagnostics) {
    const path = renderUri(uri, result.resolvedWorkspaceUri)
    const origin = [source, code].filter((part) => part !== undefined && part !== "").join(" ")
    const entry: Entry = {
      text: `${where(uri, range)}  ${severity}  ${oneLine(message)}${origin === "" ? "" : `  [${origin}]`}`,
      path,
      more: () =>
        related.map((place) => `  related: ${where(place.uri, place.range)}  ${oneLine(place.message)}`).join("\n")
    }
    groups.set(path, [...(groups.get(path) ?? []), entry])
  }
  return capped([...groups.values()].flat(), maxLocations, "diagnostic")
}

const renderAnswer = (result: LspResult.LspQueryResult, options: RenderOptions, request?: RenderRequest): string => {
  const asked = request?.include_body === true
  const maxLocations = options.maxLocations
  switch (result.kind) {
    case "locations":
      return renderLocations(result, maxLocations, makeBodies(options, asked))
    case "hover":
      return renderHover(result)
    case "symbols":
      return renderSymbols(result, maxLocations, makeBodies(options, asked))
    case "calls":
      return renderCalls(result, maxLocations)
    case "diagnostics":
      return renderDiagnostics(result, maxLocations)
    case "edits":
      return renderEdits(
        result,
        (uri) => renderUri(uri, result.resolvedWorkspaceUri),
        (entries, noun) => capped(entries, maxLocations, noun)
      )
    case "impact":
      return renderImpact(result, maxLocations, request)
  }
}

/**
 * The model's text for a seam result: the resolution line and the incomplete-answer lines first (so a cap
 * never cuts them off), then the answer; capped as a whole. `request` is the validated tool input, used to
 * echo the model's own path and to tell whether it gave a column.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (
  result: LspResult.LspQueryResult,
  options: RenderOptions,
  request?: RenderRequest
): string => {
  const answer = renderAnswer(result, options, request)
  const body = result.offIdentifier !== undefined && LspResultRead.isEmpty(result)
    ? `${answer} ${offIdentifierSentence(result.offIdentifier)}`
    : answer
  const header = [...resolution(result, request), ...LspResultRead.incompleteReasonsOf(result).map(incompleteLine)]
  return truncate(header.length === 0 ? body : `${header.join("\n")}\n${body}`, options.maxResultChars)
}

/**
 * The line that opens the text of an answer given while the server was still starting up.
 *
 * @since 0.1.0
 * @category rendering
 */
export const incompleteNote = incompleteLine(LspResultRead.readiness)
