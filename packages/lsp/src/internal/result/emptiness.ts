// Whether an answer has anything in it. It reads the result types only (erased at run time), so the
// Schema-free readers (LspResultRead) and the facade (LspResult) can both publish it.
import type { LspCallsResult } from "./calls.js"
import type { LspDiagnosticsResult } from "./diagnostics.js"
import type { LspEditsResult } from "./edits.js"
import type { LspImpactResult } from "./impact.js"
import type { LspHoverResult, LspLocationsResult } from "./navigation.js"
import type { LspSymbolsResult } from "./symbols.js"

/** Any answer: the members of `LspResult.LspQueryResult`. */
export type Answer =
  | LspLocationsResult
  | LspHoverResult
  | LspSymbolsResult
  | LspCallsResult
  | LspDiagnosticsResult
  | LspEditsResult
  | LspImpactResult

/**
 * True for an answer with nothing in it: no locations, symbols, calls, diagnostics, edits or impact nodes, or a
 * hover that is null or blank.
 */
export const isEmpty = (result: Answer): boolean => {
  switch (result.kind) {
    case "locations":
      return result.locations.length === 0
    case "hover":
      return result.hover === null || result.hover.contents.trim() === ""
    case "symbols":
      return result.symbols.length === 0
    case "calls":
      return result.calls.length === 0
    case "diagnostics":
      return result.diagnostics.length === 0
    case "edits":
      return result.edits.length === 0 && result.resourceOperations.length === 0
    case "impact":
      return result.nodes.length === 0
  }
}
