/**
 * The text the model reads. Locations become `path:line:character` lines (one-based, range start),
 * grouped by file in order of first appearance; hover becomes its contents. Two caps keep the text
 * bounded: `maxLocations` lines, then `maxResultChars` characters for the whole text, notices included.
 * Rendering never changes the canonical result.
 *
 * @since 0.1.0
 */
import type { LspResult } from "@lsp-seam/lsp"
import * as UriPath from "./internal/uriPath.js"
import { fromSeamPosition } from "./LspToolInput.js"

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
 * The model's text for a seam result: rendered, then capped as a whole.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (result: LspResult.LspQueryResult, options: RenderOptions): string => {
  const body = result.kind === "locations" ? renderLocations(result, options.maxLocations) : renderHover(result)
  // First, so that a cap never cuts it off.
  return truncate(result.incomplete === true ? `${incompleteNote}\n${body}` : body, options.maxResultChars)
}

/**
 * The line that opens the text of an answer given while the server was still starting up.
 *
 * @since 0.1.0
 * @category rendering
 */
export const incompleteNote =
  "Note: the language server was still starting up (indexing); this answer may be incomplete. " +
  "Repeat the query in a few seconds for a complete answer."
