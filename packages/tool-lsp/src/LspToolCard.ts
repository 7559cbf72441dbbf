/**
 * The UI card a client shows for an `lsp` call. A pure function of the raw arguments, so a client can draw
 * it before (or without) the result; it never reaches the model.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"

/**
 * A generic search card: the title carries the operation and the one-based cursor, the location lets an
 * editor follow the queried line.
 *
 * @since 0.1.0
 * @category models
 */
export interface LspToolCard {
  readonly card: "generic"
  readonly kind: "search"
  readonly title: string
  readonly locations: ReadonlyArray<{ readonly path: string; readonly line: number }>
}

const show = (value: unknown): string =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : "?"

/**
 * `{ card: "generic", kind: "search", title: "LSP <operation> <file_path>:<line>:<character>",
 * locations: [{ path: file_path, line }] }`; a call that names a `symbol` instead of giving a `character` is
 * titled `LSP <operation> <file_path>:<line> <symbol>`, a documentSymbol call `LSP documentSymbol <file_path>`
 * a workspaceSymbol call `LSP workspaceSymbol "<query>"` and a diagnostics call `LSP diagnostics <file_path>` (none
 * has a location); a renamePreview call ends its title with ` → <new_name>`. Arguments
 * that are missing or not primitives show as `?`; the location is left out unless `file_path` is a non-blank
 * string and `line` a positive integer.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (args: unknown): LspToolCard => {
  const { character, file_path, line, new_name, operation, query, symbol } = Predicate.isRecord(args) ? args : {}
  if (operation === "diagnostics") {
    return { card: "generic", kind: "search", title: `LSP diagnostics ${show(file_path)}`, locations: [] }
  }
  if (operation === "documentSymbol") {
    return { card: "generic", kind: "search", title: `LSP documentSymbol ${show(file_path)}`, locations: [] }
  }
  if (operation === "workspaceSymbol") {
    return { card: "generic", kind: "search", title: `LSP workspaceSymbol "${show(query)}"`, locations: [] }
  }
  const at = character === undefined && symbol !== undefined
    ? `LSP ${show(operation)} ${show(file_path)}:${show(line)} ${show(symbol)}`
    : `LSP ${show(operation)} ${show(file_path)}:${show(line)}:${show(character)}`
  const title = operation === "renamePreview" ? `${at} → ${show(new_name)}` : at
  const locations = typeof file_path === "string" && file_path.trim() !== "" && typeof line === "number" &&
      Number.isInteger(line) && line >= 1
    ? [{ path: file_path, line }]
    : []
  return { card: "generic", kind: "search", title, locations }
}
