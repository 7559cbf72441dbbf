/**
 * The prose the model reads about the tool: its description for the offered operations, the explanation of
 * each operation, and the description of each argument. Only words live here; the Schemas that carry them are
 * in `schema.ts`.
 */
import { LspIdentifiers, LspQuery } from "@lsp-seam/lsp"
import { canonical, isPositionOperation, offersBody, type Operations, type ToolOperation } from "./operations.js"

/** How each operation is named in the tool description (the reference's four exactly as the reference design names them). */
const descriptionTerm: Readonly<Record<ToolOperation, string>> = {
  goToDefinition: "goToDefinition",
  findReferences: "findReferences (always includes the declaration)",
  goToImplementation: "goToImplementation",
  hover: "hover (type and documentation)",
  goToTypeDefinition: "goToTypeDefinition",
  incomingCalls: "incomingCalls (callers)",
  outgoingCalls: "outgoingCalls (callees)",
  documentSymbol: "documentSymbol (a file's outline)",
  workspaceSymbol: "workspaceSymbol (find declarations by name)",
  diagnostics: "diagnostics (a file's current errors and warnings)",
  renamePreview: "renamePreview (the edits a rename would make, listed, never written)",
  impact: "impact (what a change to the symbol would touch: its uses, their callers, the tests)"
}

/** How each operation is explained in the `operation` argument's description. */
const operationMeaning: Readonly<Record<ToolOperation, string>> = {
  goToDefinition: "goToDefinition: where the symbol is defined.",
  findReferences: "findReferences: every use of the symbol, including its declaration.",
  goToImplementation: "goToImplementation: implementations of an interface or abstract member.",
  hover: "hover: the symbol's type and documentation.",
  goToTypeDefinition: "goToTypeDefinition: where the symbol's type is defined.",
  incomingCalls: "incomingCalls: the functions that call the function at the position, with call sites.",
  outgoingCalls: "outgoingCalls: the functions it calls, with call sites.",
  documentSymbol: "documentSymbol: the symbols declared in file_path, nested.",
  workspaceSymbol: "workspaceSymbol: declarations whose name matches query, across the workspace.",
  diagnostics: "diagnostics: the errors and warnings of file_path as it is on disk now.",
  renamePreview: "renamePreview: every edit renaming the symbol to new_name would make (nothing is written).",
  impact: "impact: the symbol's uses grouped by the declaration each is in, the callers of those declarations " +
    "level after level up to depth, and the test code among them."
}

const listed = (terms: ReadonlyArray<string>): string =>
  terms.length <= 2 ? terms.join(" and ") : `${terms.slice(0, -1).join(", ")}, and ${terms[terms.length - 1]}`

/** The tool description for the offered operations; with exactly the reference's four, that of 0.1.0. */
export const descriptionFor = (operations: Operations): string => {
  const offered = canonical(operations)
  const positional = offered.some(isPositionOperation)
  const others = offered.filter((operation) => !isPositionOperation(operation))
  const onlyLocations = offered.every((operation) => LspQuery.referenceOperations.includes(operation as never))
  return [
    `Precise, read-only code navigation through the project's language server: ${
      listed(offered.map((operation) => descriptionTerm[operation]))
    }.`,
    ...(positional
      ? ["Point at a symbol with file_path and its one-based line and character, or name it with symbol near line."]
      : []),
    ...(offered.includes("documentSymbol") ? ["documentSymbol takes file_path only."] : []),
    ...(offered.includes("workspaceSymbol")
      ? ["workspaceSymbol takes query, and file_path to search only that file's language server."]
      : []),
    ...(offered.includes("diagnostics")
      ? ["diagnostics takes file_path, and severity to include information or hints."]
      : []),
    ...(offered.includes("renamePreview") ? ["renamePreview also takes new_name."] : []),
    ...(offered.includes("impact")
      ? [`impact also takes depth, the levels of callers to follow (1 to ${LspQuery.maxImpactDepth}).`]
      : []),
    ...(offersBody(offered) ? ["include_body: true adds each definition's or symbol's code."] : []),
    ...(positional && others.length > 0 ? ["Arguments an operation does not take are ignored."] : []),
    `${onlyLocations ? "Locations" : "Results"} come back as path:line:character lines (one-based), grouped by ` +
    "file, relative to the workspace when inside it."
  ].join(" ")
}

/** The `operation` argument's description: each offered operation, explained. */
export const operationDescription = (offered: ReadonlyArray<ToolOperation>): string =>
  offered.map((operation) => operationMeaning[operation]).join(" ")

/** The `file_path` argument's description when every offered operation points at a symbol. */
export const filePath = "The file containing the symbol, relative to the workspace root or absolute."

/** The `file_path` argument's description for a tool whose operations do not all point at a symbol. */
export const filePathOfFile = (offered: ReadonlyArray<ToolOperation>): string =>
  "The file to query, relative to the workspace root or absolute" +
  (offered.includes("workspaceSymbol") ? "; optional for workspaceSymbol." : ".")

/** The `line` argument's description. */
export const line = "One-based line of the symbol (the first line is 1)."

/** The `character` argument's description. */
export const character =
  "One-based column of the symbol within its line, in UTF-16 code units (the first character is 1)."

/** The `symbol` argument's description. */
export const symbol = `The identifier to query, searched on line, then up to ${LspIdentifiers.symbolWindow} lines ` +
  "away; character is then optional."

/** The `query` argument's description. */
export const query = "workspaceSymbol: the name or part of a name to search for."

/** The `severity` argument's description. */
export const severity = "diagnostics: the least serious kind to include (default warning: errors and warnings)."

/** The `include_body` argument's description. */
export const includeBody = "goToDefinition, goToTypeDefinition, goToImplementation, documentSymbol, workspaceSymbol: " +
  "true to get each location's code (the whole declaration, with line numbers) in the same answer."

/** The `depth` argument's description. */
export const depth = `impact: how many levels of callers to follow above the uses (1 to ${LspQuery.maxImpactDepth}, ` +
  `default ${LspQuery.defaultImpactDepth}).`

/** The `new_name` argument's description. */
export const newName = "renamePreview: the new name of the symbol."
