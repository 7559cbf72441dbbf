/**
 * The error messages of argument validation: each says what was wrong with which argument, quoting what the
 * model sent, and what to send instead. The checks that pick a message are in `validate.ts`.
 */
import { LspError, LspQuery } from "@lsp-seam/lsp"
import { isPositionOperation, type ToolOperation } from "./operations.js"

/** What the model sent, as a message quotes it: strings shortened, objects and arrays by kind. */
export const describeValue = (value: unknown): string => {
  if (typeof value === "string") {
    return value.length > 40
      ? `${JSON.stringify(value.slice(0, 40))}… (a string)`
      : `${JSON.stringify(value)} (a string)`
  }
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value)
  if (value === undefined) return "nothing"
  if (Array.isArray(value)) return "an array"
  return typeof value === "object" ? "an object" : `a value of type ${typeof value}`
}

/** `LSP_INVALID_ARGUMENTS` for one argument: missing or invalid (quoting `value`), then `fix`. */
export const problem = (argument: string, value: unknown, fix: string): LspError.LspArgumentsError =>
  LspError.invalidArguments(
    value === undefined
      ? `Missing "${argument}": ${fix}`
      : `Invalid "${argument}" (got ${describeValue(value)}): ${fix}`,
    { argument }
  )

/** `LSP_INVALID_ARGUMENTS` for input that is not an object. */
export const notAnObject = (offered: ReadonlyArray<ToolOperation>, input: unknown): LspError.LspArgumentsError =>
  LspError.invalidArguments(
    offered.every(isPositionOperation)
      ? `The lsp tool takes an object with "operation", "file_path", "line", and "character" or "symbol" (got ${
        describeValue(input)
      }).`
      : `The lsp tool takes an object with "operation" and that operation's arguments (got ${describeValue(input)}).`
  )

/** How to fix `operation`: a known operation the tool does not offer is named as such. */
export const operationFix = (offered: ReadonlyArray<ToolOperation>, known: string | undefined): string => {
  const fix = `use one of ${offered.join(", ")}.`
  return known === undefined ? fix : `this tool does not offer ${known}; ${fix}`
}

/** How to fix `file_path` of a position operation. */
export const positionFilePathFix =
  "give the path of the file containing the symbol, relative to the workspace root or absolute."

/** How to fix `line`. */
export const lineFix = "give the symbol's line as an integer counted from 1 (the first line is 1)."

/** How to fix `character`. */
export const characterFix =
  "give the symbol's column as an integer counted from 1 in UTF-16 code units (the first character is 1)."

/** How to fix a missing `character` when `symbol` could stand in for it. */
export const characterOrSymbolFix = `${characterFix} Or send "symbol", the identifier's name.`

/** How to fix a `symbol` that is not a string. */
export const symbolFix = "give the identifier's name as a string, e.g. \"parseConfig\"."

/** How to fix `file_path` of documentSymbol. */
export const documentFilePathFix =
  "documentSymbol needs file_path, the file whose symbols to list, relative to the workspace root or " +
  "absolute (it takes no line or character)."

/** How to fix `query` of workspaceSymbol. */
export const queryFix = "workspaceSymbol needs query: the name or part of a name to search for, e.g. \"parseConfig\"."

/** How to fix `file_path` of workspaceSymbol. */
export const workspaceSymbolFilePathFix =
  "for workspaceSymbol, file_path is optional: leave it out to search every language server, or give a " +
  "file (relative to the workspace root or absolute) to search only its language server."

/** How to fix `file_path` of diagnostics. */
export const diagnosticsFilePathFix =
  "diagnostics needs file_path, the file to check, relative to the workspace root or absolute (it takes no " +
  "line or character)."

/** How to fix `severity`. */
export const severityFix =
  "give the least serious kind to include: \"error\", \"warning\" (the default), \"information\" or \"hint\"."

/** How to fix `include_body`. */
export const includeBodyFix =
  "give true to have each location's code (the whole declaration) in the answer, or leave it out."

/** How to fix `new_name` of renamePreview. */
export const newNameFix = "renamePreview needs new_name, the symbol's new name, e.g. \"parseSettings\"."

/** How to fix `depth` of impact. */
export const depthFix =
  `impact's depth is the levels of callers to follow: an integer from 1 to ${LspQuery.maxImpactDepth} ` +
  `(default ${LspQuery.defaultImpactDepth}), or leave it out.`
