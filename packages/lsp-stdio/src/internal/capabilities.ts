/**
 * The LSP vocabulary lsp-seam speaks: for each seam operation, the server capability it needs and the
 * request it sends, and the rules for reading what a server advertises. The one place that maps the seam's
 * words to the protocol's.
 */
import type { LspQuery } from "@lsp-seam/lsp"

/** The capability a server must advertise, and the request method, for each operation. */
export const operations = {
  goToDefinition: { capability: "definitionProvider", method: "textDocument/definition" },
  findReferences: { capability: "referencesProvider", method: "textDocument/references" },
  goToImplementation: { capability: "implementationProvider", method: "textDocument/implementation" },
  hover: { capability: "hoverProvider", method: "textDocument/hover" }
} as const satisfies Record<LspQuery.LspOperation, { readonly capability: string; readonly method: string }>

/** The request method of `operation`. */
export const methodOf = (operation: LspQuery.LspOperation): string => operations[operation].method

/** The server capability `operation` needs. */
export const capabilityOf = (operation: LspQuery.LspOperation) => operations[operation].capability

/** The request's parameters: a position in the document, and for references the declaration always included. */
export const requestParams = (operation: LspQuery.LspOperation, uri: string, position: LspQuery.LspPosition) =>
  operation === "findReferences"
    ? { textDocument: { uri }, position, context: { includeDeclaration: true } }
    : { textDocument: { uri }, position }

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/** A capability is on when it is `true` or an options object. */
export const advertised = (value: unknown): boolean => value === true || (isRecord(value) && !Array.isArray(value))

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
export const isCrossFile = (operation: LspQuery.LspOperation): boolean =>
  operation === "findReferences" || operation === "goToImplementation"
