/**
 * The LSP vocabulary lsp-seam speaks: for each seam operation, the server capability it needs and the
 * request it sends, and the rules for reading what a server advertises. The one place that maps the seam's
 * words to the protocol's.
 */
import type { LspQuery } from "@lsp-seam/lsp"

/**
 * The capability a server must advertise, and the request method, for each operation. The call hierarchy is
 * two requests: the prepare step at the position (`method`), then the calls of each prepared item
 * (`callsMethod` below).
 */
export const operations = {
  goToDefinition: { capability: "definitionProvider", method: "textDocument/definition" },
  findReferences: { capability: "referencesProvider", method: "textDocument/references" },
  goToImplementation: { capability: "implementationProvider", method: "textDocument/implementation" },
  hover: { capability: "hoverProvider", method: "textDocument/hover" },
  goToTypeDefinition: { capability: "typeDefinitionProvider", method: "textDocument/typeDefinition" },
  incomingCalls: { capability: "callHierarchyProvider", method: "textDocument/prepareCallHierarchy" },
  outgoingCalls: { capability: "callHierarchyProvider", method: "textDocument/prepareCallHierarchy" },
  documentSymbol: { capability: "documentSymbolProvider", method: "textDocument/documentSymbol" },
  workspaceSymbol: { capability: "workspaceSymbolProvider", method: "workspace/symbol" },
  // Pulled when the server advertises it; otherwise every server may push (see diagnostics.ts).
  diagnostics: { capability: "diagnosticProvider", method: "textDocument/diagnostic" },
  // Preceded by textDocument/prepareRename where the server offers it (`prepareProvider`); the WorkspaceEdit
  // it answers is listed, never applied.
  renamePreview: { capability: "renameProvider", method: "textDocument/rename" }
} as const satisfies Record<LspQuery.LspProviderOperation, { readonly capability: string; readonly method: string }>

/** The second request of the call hierarchy, per direction. */
export const callsMethod = {
  incomingCalls: "callHierarchy/incomingCalls",
  outgoingCalls: "callHierarchy/outgoingCalls"
} as const

/** The request method of `operation` (for the call hierarchy, its prepare step). */
export const methodOf = (operation: LspQuery.LspProviderOperation): string => operations[operation].method

/** The server capability `operation` needs. */
export const capabilityOf = (operation: LspQuery.LspProviderOperation) => operations[operation].capability

/** A position request's parameters: the document and position, and for references the declaration always. */
export const requestParams = (operation: LspQuery.LspPositionOperation, uri: string, position: LspQuery.LspPosition) =>
  operation === "findReferences"
    ? { textDocument: { uri }, position, context: { includeDeclaration: true } }
    : { textDocument: { uri }, position }

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/** A capability is on when it is `true` or an options object. */
export const advertised = (value: unknown): boolean => value === true || (isRecord(value) && !Array.isArray(value))

/** The request that asks whether a position can be renamed, before the rename. */
export const prepareRenameMethod = "textDocument/prepareRename"

/** Whether the server answers `textDocument/prepareRename`: its `renameProvider` says `prepareProvider: true`. */
export const preparesRename = (renameProvider: unknown): boolean =>
  isRecord(renameProvider) && renameProvider.prepareProvider === true

/** Transient open needs open/close notifications: sync kind Full (1) or Incremental (2), or `openClose`. */
export const opensTransiently = (sync: unknown): boolean =>
  sync === 1 || sync === 2 || (isRecord(sync) && sync.openClose === true)

/** Whether the server accepts didChange: sync kind Full (1) or Incremental (2), as a number or in options. */
export const acceptsChanges = (sync: unknown): boolean => {
  const kind = isRecord(sync) && "change" in sync ? sync.change : sync
  return kind === 1 || kind === 2
}

/**
 * Operations whose answer spans files: computed without the server's project model, they may miss what other
 * files hold (see `projectModel.ts`).
 */
export const isCrossFile = (operation: LspQuery.LspProviderOperation): boolean =>
  operation === "findReferences" || operation === "goToImplementation" || operation === "incomingCalls" ||
  operation === "outgoingCalls" || operation === "workspaceSymbol" || operation === "renamePreview"
