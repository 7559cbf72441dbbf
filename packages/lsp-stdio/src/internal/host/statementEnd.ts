/**
 * A declaration's range widened to the end of its statement, where the server gives less than the whole.
 * pyright gives a module- or class-level assignment only its name's range (`SETTINGS` of a `SETTINGS = {`
 * spanning three lines), so its body came back as its first line; functions, classes (with their decorators),
 * TypeScript's `const`/`type` and C's `struct`/`typedef` already come with their whole range.
 *
 * The rule: only a range that lies on one line is widened — a server that gives a multi-line range gave the
 * declaration, and is trusted. From the range's start, the text is read forward counting brackets (`()[]{}`),
 * skipping strings and comments; the statement ends at the first line end, at or after the range's end, where
 * every bracket is closed, no string or comment is open and the line does not end with `\` (a continuation).
 * It is safe because it never cuts and never swallows: the widened range stops before the line where the next
 * declaration starts, and when the brackets do not close by then (a closing bracket without its opening one,
 * text the scan cannot read), the server's own range is kept. A one-line statement ends on its own line, so
 * its range is what the server gave.
 */
import type { LspQuery } from "@lsp-seam/lsp"

/** How a language writes comments and strings, as far as the scan needs. */
export interface Syntax {
  /** `#` starts a comment to the end of the line (else `//` does, and `/* … *\/` is a block comment). */
  readonly hashComments: boolean
  /** `"""` and `'''` open strings that span lines (Python). */
  readonly tripleQuotes: boolean
}

const hashLanguages = new Set([
  "python",
  "shellscript",
  "ruby",
  "perl",
  "r",
  "yaml",
  "toml",
  "dockerfile",
  "makefile",
  "cmake",
  "powershell",
  "elixir",
  "julia"
])

/** The syntax of a language id (LSP's): `#` comments for Python and the shell family, `//` for the rest. */
export const syntaxOf = (languageId: string | undefined): Syntax => ({
  hashComments: languageId !== undefined && hashLanguages.has(languageId),
  tripleQuotes: languageId === "python"
})

const opening = new Set(["(", "[", "{"])
const closing = new Set([")", "]", "}"])

/**
 * The line where the statement starting at `range.start` ends, at or after `range.end.line` and no later than
 * `lastLine`; undefined when its brackets do not close by then.
 */
export const statementEnd = (
  lines: ReadonlyArray<string>,
  range: LspQuery.LspRange,
  lastLine: number,
  syntax: Syntax
): number | undefined => {
  let depth = 0
  // An open string that spans lines (a template literal, a triple-quoted string), or a block comment.
  let open: string | undefined
  for (let line = range.start.line; line <= Math.min(lastLine, lines.length - 1); line++) {
    const text = lines[line]!
    let continued = false
    for (let i = line === range.start.line ? range.start.character : 0; i < text.length; i++) {
      const c = text[i]!
      if (open !== undefined) {
        if (open !== "*/" && c === "\\") i++
        else if (text.startsWith(open, i)) {
          i += open.length - 1
          open = undefined
        }
        continue
      }
      if (syntax.hashComments ? c === "#" : text.startsWith("//", i)) break
      if (!syntax.hashComments && text.startsWith("/*", i)) {
        open = "*/"
        i++
      } else if (syntax.tripleQuotes && (text.startsWith("\"\"\"", i) || text.startsWith("'''", i))) {
        open = text.slice(i, i + 3)
        i += 2
      } else if (c === "`" && !syntax.hashComments) open = "`"
      else if (c === "\"" || c === "'") {
        // A one-line string: it ends at its quote or, unclosed, at the line's end.
        for (i++; i < text.length && text[i] !== c; i++) if (text[i] === "\\") i++
      } else if (opening.has(c)) depth++
      else if (closing.has(c)) {
        depth--
        if (depth < 0) return undefined
      } else if (c === "\\" && i === text.length - 1) continued = true
    }
    if (line >= range.end.line && depth === 0 && open === undefined && !continued) return line
  }
  return undefined
}

const startLine = (range: LspQuery.LspRange) => range.start.line

/**
 * A widener for the declarations of one file: each range widened to the end of its statement (see the rule
 * above), never past the line before the next declaration that starts on a later line.
 */
export const widener = (
  lines: ReadonlyArray<string>,
  declarations: ReadonlyArray<LspQuery.LspRange>,
  syntax: Syntax
): (range: LspQuery.LspRange) => LspQuery.LspRange => {
  const starts = [...new Set(declarations.map(startLine))].sort((a, b) => a - b)
  /** The first declaration start line after `line`, by binary search; the file's end when there is none. */
  const nextStart = (line: number) => {
    let low = 0
    let high = starts.length
    while (low < high) {
      const middle = (low + high) >> 1
      if (starts[middle]! <= line) low = middle + 1
      else high = middle
    }
    return low < starts.length ? starts[low]! : lines.length
  }
  return (range) => {
    if (range.start.line !== range.end.line) return range
    const end = statementEnd(lines, range, nextStart(range.end.line) - 1, syntax)
    if (end === undefined || end === range.end.line) return range
    return { start: range.start, end: { line: end, character: lines[end]!.length } }
  }
}
