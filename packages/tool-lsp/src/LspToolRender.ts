/**
 * The text the model reads. Locations become `path:line:character` lines (one-based, range start),
 * grouped by file in order of first appearance; hover becomes its contents. Before the answer come at most
 * one line saying what a `symbol` was resolved to and one line per reason the answer may be incomplete; an
 * empty answer off any identifier says so and lists the line's identifiers. Two caps keep the text
 * bounded: `maxLocations` lines, then `maxResultChars` characters for the whole text, notices included.
 * Rendering never changes the canonical result.
 *
 * @since 0.1.0
 */
import { LspIdentifiers, LspResult } from "@lsp-seam/lsp"
import * as UriPath from "./internal/uriPath.js"
import { fromSeamPosition, type LspToolInput } from "./LspToolInput.js"

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
}

/**
 * What the model asked, as far as rendering needs it: the path as the model gave it and whether it gave a
 * column and a symbol.
 *
 * @since 0.2.0
 * @category models
 */
export type RenderRequest = Pick<LspToolInput, "file_path" | "line" | "character" | "symbol">

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
 * The final line after `maxLocations` lines, when locations were left out.
 *
 * @since 0.1.0
 * @category rendering
 */
export const omissionLine = (omitted: number, maxLocations: number): string =>
  `${omitted} more location${omitted === 1 ? "" : "s"} omitted (limit: ${maxLocations}).`

/**
 * The notice that ends a text cut at `maxResultChars`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const truncationNotice = (totalChars: number, maxResultChars: number): string =>
  `[truncated: ${totalChars} characters in total, limit ${maxResultChars}]`

/**
 * Location lines, grouped by rendered path in order of first appearance (original order within a file),
 * at most `maxLocations` of them, then the omission line if any were left out; `No results.` when empty.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderLocations = (result: LspResult.LspLocationsResult, maxLocations: number): string => {
  if (result.locations.length === 0) return noResults
  const paths = new Map<string, string>()
  const groups = new Map<string, Array<string>>()
  for (const location of result.locations) {
    let path = paths.get(location.uri)
    if (path === undefined) {
      path = renderUri(location.uri, result.resolvedWorkspaceUri)
      paths.set(location.uri, path)
    }
    const { character, line } = fromSeamPosition(location.range.start)
    const entry = `${path}:${line}:${character}`
    const group = groups.get(path)
    if (group === undefined) groups.set(path, [entry])
    else group.push(entry)
  }
  const lines: Array<string> = []
  for (const group of groups.values()) {
    for (const entry of group) {
      if (lines.length === maxLocations) break
      lines.push(entry)
    }
  }
  const omitted = result.locations.length - lines.length
  if (omitted > 0) lines.push(omissionLine(omitted, maxLocations))
  return lines.join("\n")
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

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff

/**
 * Caps `text` at `maxResultChars` UTF-16 code units. A longer text is cut and ends with a newline and the
 * truncation notice, and is then exactly `maxResultChars` long; when even the notice does not fit, the text
 * is the notice cut to the cap. A cut never splits a surrogate pair: the orphaned half becomes `…`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const truncate = (text: string, maxResultChars: number): string => {
  if (text.length <= maxResultChars) return text
  const notice = truncationNotice(text.length, maxResultChars)
  if (notice.length >= maxResultChars) return notice.slice(0, maxResultChars)
  const keep = maxResultChars - notice.length - 1
  const kept = keep > 0 && isHighSurrogate(text.charCodeAt(keep - 1))
    ? text.slice(0, keep - 1) + "…"
    : text.slice(0, keep)
  return `${kept}\n${notice}`
}

/**
 * The line that names what `symbol` was resolved to, one-based: ``Resolved `add` to m.js:1:17.``, plus how
 * many occurrences the line has when there were several. With `request`, the path is the `file_path` the
 * model gave; without it, the position is given as a line and column.
 *
 * @since 0.2.0
 * @category rendering
 */
export const resolvedLine = (resolved: LspResult.Resolved, request?: RenderRequest): string => {
  const { character, line } = fromSeamPosition(resolved.position)
  const where = request === undefined
    ? `line ${line}, column ${character}`
    : `${request.file_path}:${line}:${character}`
  const several = resolved.occurrences > 1
    ? ` (${resolved.occurrences} occurrences on that line; character chooses among them)`
    : ""
  return `Resolved \`${resolved.symbol}\` to ${where}${several}.`
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
      `${request.file_path}:${request.line}:${request.character ?? 1} as given.`
    ]
  }
  const noColumn = request !== undefined && request.character === undefined
  return moved(resolved) || resolved.occurrences > 1 || noColumn ? [resolvedLine(resolved, request)] : []
}

/**
 * One line per reason an answer may be incomplete: `Incomplete (<reason>): <message>` (a message's line
 * breaks become spaces, so each reason stays one line).
 *
 * @since 0.2.0
 * @category rendering
 */
export const incompleteLine = (reason: LspResult.IncompleteReason): string =>
  `Incomplete (${reason.reason}): ${reason.message.trim().replace(/\s*[\r\n]+\s*/g, " ")}`

/**
 * The sentence after `No results.` / `No hover information.` when the position was off any identifier:
 * `Line 3, column 5 is not on an identifier; identifiers on line 3: add (column 17), x (column 21).`
 * (one-based, at most `LspIdentifiers.listLimit` identifiers).
 *
 * @since 0.2.0
 * @category rendering
 */
export const offIdentifierSentence = (off: LspResult.OffIdentifier): string =>
  `Line ${off.line + 1}, column ${off.character + 1} is not on an identifier; ${
    LspIdentifiers.describeLine(off.line, off.identifiers)
  }.`

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
  const answer = result.kind === "locations" ? renderLocations(result, options.maxLocations) : renderHover(result)
  const body = result.offIdentifier !== undefined && LspResult.isEmpty(result)
    ? `${answer} ${offIdentifierSentence(result.offIdentifier)}`
    : answer
  const header = [...resolution(result, request), ...LspResult.incompleteReasonsOf(result).map(incompleteLine)]
  return truncate(header.length === 0 ? body : `${header.join("\n")}\n${body}`, options.maxResultChars)
}

/**
 * The line that opens the text of an answer given while the server was still starting up.
 *
 * @since 0.1.0
 * @category rendering
 */
export const incompleteNote = incompleteLine(LspResult.readiness)
