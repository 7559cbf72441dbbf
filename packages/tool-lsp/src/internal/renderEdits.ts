/**
 * A rename preview as the model reads it: a line with the count of edits and files and the reminder that
 * nothing was written, then one line per edit, `path:line:character  old → new`, grouped by file in the
 * answer's order (sorted by file and position), at most `maxLocations` of them; edits of files outside the
 * workspace and file operations are marked, never left out.
 */
import type { LspResult } from "@lsp-seam/lsp"
import { fromSeamPosition } from "./input/convert.js"

/** Text as an edit line shows it: verbatim, or quoted when it is empty or spans lines. */
const shown = (text: string | undefined): string =>
  text === undefined ? "(text not read)" : text === "" || /[\r\n]/.test(text) ? JSON.stringify(text) : text

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`

const outside = "  (outside the workspace)"

/** One file operation: `rename a.ts → b.ts`, `create a.ts`, `delete a.ts`, marked when outside. */
const operationLine = (operation: LspResult.LspResourceOperation, pathOf: (uri: string) => string): string =>
  `${operation.kind} ${pathOf(operation.uri)}${operation.newUri === undefined ? "" : ` → ${pathOf(operation.newUri)}`}${
    operation.outsideWorkspace === true ? outside : ""
  }`

/** The text of an edits result; `pathOf` renders a URI as location lines do, `capped` caps the edit lines. */
export const renderEdits = (
  result: LspResult.LspEditsResult,
  pathOf: (uri: string) => string,
  capped: (entries: ReadonlyArray<{ readonly text: string; readonly path: string }>, noun: string) => string
): string => {
  if (result.edits.length === 0 && result.resourceOperations.length === 0) {
    return "No edits: the rename changes nothing."
  }
  const files = new Set(result.edits.map((edit) => edit.uri)).size
  const away = result.edits.filter((edit) => edit.outsideWorkspace === true).length
  const header = `Rename preview: ${plural(result.edits.length, "edit")} in ${plural(files, "file")}` +
    (away > 0 ? ` (${away} outside the workspace)` : "") +
    ". Nothing was written: apply these edits with your own edit tool."
  const entries = result.edits.map((edit) => {
    const path = pathOf(edit.uri)
    const { character, line } = fromSeamPosition(edit.range.start)
    return {
      text: `${path}:${line}:${character}  ${shown(edit.oldText)} → ${shown(edit.newText)}${
        edit.outsideWorkspace === true ? outside : ""
      }`,
      path
    }
  })
  const operations = result.resourceOperations.length === 0 ? [] : [
    `File operations (${result.resourceOperations.length}), also not done:`,
    ...result.resourceOperations.map((operation) => `  ${operationLine(operation, pathOf)}`)
  ]
  return [header, ...(entries.length === 0 ? [] : [capped(entries, "edit")]), ...operations].join("\n")
}
