/**
 * What the seam answers: locations for the three navigation operations, hover text for `hover`, symbols,
 * calls and diagnostics for the others, and edits for renamePreview. An empty answer is a success, never an
 * error.
 *
 * The schemas live by concept in `internal/result/` (navigation, symbols, calls, diagnostics, and the
 * annotations every answer may carry); this module is their public face and owns the union of answers.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Body from "./internal/result/body.js"
import * as Calls from "./internal/result/calls.js"
import * as Diagnostics from "./internal/result/diagnostics.js"
import * as Edits from "./internal/result/edits.js"
import * as Emptiness from "./internal/result/emptiness.js"
import * as Impact from "./internal/result/impact.js"
import * as Navigation from "./internal/result/navigation.js"
import * as Symbols from "./internal/result/symbols.js"
import type { LspOperation } from "./LspQuery.js"

/**
 * The source text of the declaration a location or symbol points at, present when the request asked for it
 * (`includeBody`): `text` is exactly the file's text (as it is on disk, without a byte order mark) within
 * `range`, which spans whole lines — from the start of the first line of the smallest symbol of the file's
 * documentSymbol answer that encloses the location, to the end of that symbol's last line (without its line
 * break); for a location no symbol encloses, the location's own lines. Absent when the file could not be read
 * through the host (outside the workspace, not a text file, too large).
 *
 * @since 0.1.0
 * @category models
 */
export const LspBody: typeof Body.LspBody = Body.LspBody

/**
 * @since 0.1.0
 * @category models
 */
export interface LspBody extends Schema.Schema.Type<typeof Body.LspBody> {}

/**
 * A place in a document: a URI (usually `file:`) and a zero-based range; `body` when asked for.
 *
 * @since 0.1.0
 * @category models
 */
export const LspLocation: typeof Navigation.LspLocation = Navigation.LspLocation

/**
 * @since 0.1.0
 * @category models
 */
export interface LspLocation extends Schema.Schema.Type<typeof Navigation.LspLocation> {}

/**
 * Hover contents normalised to one string (markdown or plain text), and the range it applies to.
 *
 * @since 0.1.0
 * @category models
 */
export const LspHover: typeof Navigation.LspHover = Navigation.LspHover

/**
 * @since 0.1.0
 * @category models
 */
export interface LspHover extends Schema.Schema.Type<typeof Navigation.LspHover> {}

/**
 * What every answer may carry besides its content: whether it may be incomplete and why (`Incomplete`,
 * `IncompleteReason`, `markIncomplete`, `incompleteReasonsOf`, the standard `readiness` reason), what a request
 * with `symbol` was resolved to (`Resolved`, `withResolved`), and the identifiers of a line an empty answer was
 * asked off (`OffIdentifier`, `LspIdentifier`, `withOffIdentifier`). Each is documented where it is defined.
 *
 * @since 0.1.0
 */
export {
  Incomplete,
  IncompleteReason,
  IncompleteReasonKind,
  incompleteReasonsOf,
  LspIdentifier,
  markIncomplete,
  OffIdentifier,
  readiness,
  readinessMessage,
  Resolved,
  withOffIdentifier,
  withResolved
} from "./internal/result/annotations.js"

/**
 * The answer to goToDefinition, findReferences or goToImplementation. `resolvedWorkspaceUri` is the
 * provider's canonical `file:` URI of the workspace: relativise against it, never against the request's
 * (possibly symlinked) root.
 *
 * @since 0.1.0
 * @category models
 */
export const LspLocationsResult: typeof Navigation.LspLocationsResult = Navigation.LspLocationsResult

/**
 * @since 0.1.0
 * @category models
 */
export interface LspLocationsResult extends Schema.Schema.Type<typeof Navigation.LspLocationsResult> {}

/**
 * The answer to hover; `null` when the server has nothing to say at that position.
 *
 * @since 0.1.0
 * @category models
 */
export const LspHoverResult: typeof Navigation.LspHoverResult = Navigation.LspHoverResult

/**
 * @since 0.1.0
 * @category models
 */
export interface LspHoverResult extends Schema.Schema.Type<typeof Navigation.LspHoverResult> {}

/**
 * LSP's symbol kinds by name (`SymbolKind` 1–26), as results carry them.
 *
 * @since 0.1.0
 * @category models
 */
export const SymbolKindName: typeof Symbols.SymbolKindName = Symbols.SymbolKindName

/**
 * @since 0.1.0
 * @category models
 */
export type SymbolKindName = Symbols.SymbolKindName

/**
 * A symbol: its name and kind, where it is (`range`, the whole declaration) and where its name is
 * (`selectionRange`). `containerName` is the path of enclosing symbols (`Outer.Inner`) when known; `depth`
 * (document symbols) how deep it is nested; `provider` (workspace symbols merged from several providers)
 * which provider found it; `body` (see `LspBody`) when asked for.
 *
 * @since 0.1.0
 * @category models
 */
export const LspSymbol: typeof Symbols.LspSymbol = Symbols.LspSymbol

/**
 * @since 0.1.0
 * @category models
 */
export interface LspSymbol extends Schema.Schema.Type<typeof Symbols.LspSymbol> {}

/**
 * The answer to documentSymbol (the file's symbols in document order, parents before their children) and
 * workspaceSymbol (the matches, in the servers' order).
 *
 * @since 0.1.0
 * @category models
 */
export const LspSymbolsResult: typeof Symbols.LspSymbolsResult = Symbols.LspSymbolsResult

/**
 * @since 0.1.0
 * @category models
 */
export interface LspSymbolsResult extends Schema.Schema.Type<typeof Symbols.LspSymbolsResult> {}

/**
 * A function-like item of the call hierarchy: a caller, a callee, or the item the calls were asked about.
 *
 * @since 0.1.0
 * @category models
 */
export const LspCallItem: typeof Calls.LspCallItem = Calls.LspCallItem

/**
 * @since 0.1.0
 * @category models
 */
export interface LspCallItem extends Schema.Schema.Type<typeof Calls.LspCallItem> {}

/**
 * One call edge: the caller (incomingCalls) or callee (outgoingCalls), and the call sites `fromRanges`,
 * which lie in `fromUri` — the caller's document for incoming calls, the asked item's for outgoing ones.
 *
 * @since 0.1.0
 * @category models
 */
export const LspCall: typeof Calls.LspCall = Calls.LspCall

/**
 * @since 0.1.0
 * @category models
 */
export interface LspCall extends Schema.Schema.Type<typeof Calls.LspCall> {}

/**
 * The answer to incomingCalls and outgoingCalls: the items the position prepared (usually one), and the
 * calls of all of them, merged.
 *
 * @since 0.1.0
 * @category models
 */
export const LspCallsResult: typeof Calls.LspCallsResult = Calls.LspCallsResult

/**
 * @since 0.1.0
 * @category models
 */
export interface LspCallsResult extends Schema.Schema.Type<typeof Calls.LspCallsResult> {}

/**
 * A place the server relates to a diagnostic (the declaration a type error conflicts with, the other
 * definition of a duplicate): part of that diagnostic, never a diagnostic of its own. It may be in another file.
 *
 * @since 0.1.0
 * @category models
 */
export const LspRelatedInformation: typeof Diagnostics.LspRelatedInformation = Diagnostics.LspRelatedInformation

/**
 * @since 0.1.0
 * @category models
 */
export interface LspRelatedInformation extends Schema.Schema.Type<typeof Diagnostics.LspRelatedInformation> {}

/**
 * One diagnostic of the asked file: where, how serious, what, and the places the server related to it
 * (`relatedInformation`, when it gave any).
 *
 * @since 0.1.0
 * @category models
 */
export const LspDiagnostic: typeof Diagnostics.LspDiagnostic = Diagnostics.LspDiagnostic

/**
 * @since 0.1.0
 * @category models
 */
export interface LspDiagnostic extends Schema.Schema.Type<typeof Diagnostics.LspDiagnostic> {}

/**
 * The answer to diagnostics: the asked file's own, most severe first, then by position; never a diagnostic
 * located in another file. Empty means clean only when `incomplete` is absent.
 *
 * @since 0.1.0
 * @category models
 */
export const LspDiagnosticsResult: typeof Diagnostics.LspDiagnosticsResult = Diagnostics.LspDiagnosticsResult

/**
 * @since 0.1.0
 * @category models
 */
export interface LspDiagnosticsResult extends Schema.Schema.Type<typeof Diagnostics.LspDiagnosticsResult> {}

/**
 * One text edit of a rename preview: replace `range` of `uri` with `newText`. `oldText` is the text the range
 * holds on disk (absent when the host could not read the file); `outsideWorkspace` (true) flags an edit of a
 * file outside the workspace — listed, never hidden.
 *
 * @since 0.1.0
 * @category models
 */
export const LspTextEdit: typeof Edits.LspTextEdit = Edits.LspTextEdit

/**
 * @since 0.1.0
 * @category models
 */
export interface LspTextEdit extends Schema.Schema.Type<typeof Edits.LspTextEdit> {}

/**
 * A file operation of a rename preview (a server may rename the file of a module with it): `create` or
 * `delete` of `uri`, or `rename` of `uri` to `newUri`; `outsideWorkspace` (true) when either URI lies outside
 * the workspace.
 *
 * @since 0.1.0
 * @category models
 */
export const LspResourceOperation: typeof Edits.LspResourceOperation = Edits.LspResourceOperation

/**
 * @since 0.1.0
 * @category models
 */
export interface LspResourceOperation extends Schema.Schema.Type<typeof Edits.LspResourceOperation> {}

/**
 * The answer to renamePreview: the server's `WorkspaceEdit` as a flat list of text edits sorted by file and
 * position, and its file operations in the server's order. Nothing of it has been applied: lsp-seam never
 * writes.
 *
 * @since 0.1.0
 * @category models
 */
export const LspEditsResult: typeof Edits.LspEditsResult = Edits.LspEditsResult

/**
 * @since 0.1.0
 * @category models
 */
export interface LspEditsResult extends Schema.Schema.Type<typeof Edits.LspEditsResult> {}

/**
 * The symbol an impact answer is about: its declaration as the server's documentSymbol gives it (absent when
 * the server gave no symbol at the definition).
 *
 * @since 0.1.0
 * @category models
 */
export const LspImpactTarget: typeof Impact.LspImpactTarget = Impact.LspImpactTarget

/**
 * @since 0.1.0
 * @category models
 */
export interface LspImpactTarget extends Schema.Schema.Type<typeof Impact.LspImpactTarget> {}

/**
 * A declaration an impact answer found: at `level` 0 one that holds uses of the symbol itself (a function,
 * method, class, or a file's top level as kind `Module`, named by the file), with those uses in `uses`; at
 * level n a caller of declarations of level n − 1, with its call sites in `uses` and the ids of the
 * declarations it calls in `calls` (a declaration found again at a later level adds an edge, never a second
 * node, so cycles end). `id` is its index in `nodes`; `test` (true) marks test code, by the workspace's
 * conventions: test directories, `*.test.*`, `*.spec.*`, `*_test.go`, `test_*.py` and the like. Test code is
 * listed, never followed further.
 *
 * @since 0.1.0
 * @category models
 */
export const LspImpactNode: typeof Impact.LspImpactNode = Impact.LspImpactNode

/**
 * @since 0.1.0
 * @category models
 */
export interface LspImpactNode extends Schema.Schema.Type<typeof Impact.LspImpactNode> {}

/**
 * One level of an impact answer: how many declarations it `found`, how many are `shown` as nodes, how many
 * were `cut` by the request's `maxGroups` (neither listed nor followed), and how many of the shown are tests.
 *
 * @since 0.1.0
 * @category models
 */
export const LspImpactLevel: typeof Impact.LspImpactLevel = Impact.LspImpactLevel

/**
 * @since 0.1.0
 * @category models
 */
export interface LspImpactLevel extends Schema.Schema.Type<typeof Impact.LspImpactLevel> {}

/**
 * The answer to impact: `references` uses of `target` (its declaration not counted), grouped in the level-0
 * `nodes`, and their callers level after level up to `depth`; `levels` counts each level; `testFiles` lists
 * the files of the test nodes, the tests to run after the change. `incomplete` says what was not searched:
 * the findReferences and incomingCalls answers' own reasons, `capped` levels, `no-call-hierarchy` (the uses
 * are grouped, their callers not searched), `deadline`.
 *
 * @since 0.1.0
 * @category models
 */
export const LspImpactResult: typeof Impact.LspImpactResult = Impact.LspImpactResult

/**
 * @since 0.1.0
 * @category models
 */
export interface LspImpactResult extends Schema.Schema.Type<typeof Impact.LspImpactResult> {}

/**
 * The closed union of answers, discriminated by `kind`.
 *
 * @since 0.1.0
 * @category models
 */
export const LspQueryResult = Schema.Union(
  LspLocationsResult,
  LspHoverResult,
  LspSymbolsResult,
  LspCallsResult,
  LspDiagnosticsResult,
  LspEditsResult,
  LspImpactResult
)

/**
 * @since 0.1.0
 * @category models
 */
export type LspQueryResult =
  | LspLocationsResult
  | LspHoverResult
  | LspSymbolsResult
  | LspCallsResult
  | LspDiagnosticsResult
  | LspEditsResult
  | LspImpactResult

/**
 * @since 0.1.0
 * @category constructors
 */
export const locations: (
  locations: ReadonlyArray<LspLocation>,
  resolvedWorkspaceUri: string
) => LspLocationsResult = Navigation.locations

/**
 * @since 0.1.0
 * @category constructors
 */
export const hover: (hover: LspHover | null) => LspHoverResult = Navigation.hover

/**
 * True for an answer with nothing in it: no locations, symbols, calls, diagnostics, edits or impact nodes, or a
 * hover that is null or blank.
 *
 * @since 0.1.0
 * @category utils
 */
export const isEmpty: (result: LspQueryResult) => boolean = Emptiness.isEmpty

/**
 * @since 0.1.0
 * @category constructors
 */
export const diagnostics: (
  diagnostics: ReadonlyArray<LspDiagnostic>,
  resolvedWorkspaceUri: string
) => LspDiagnosticsResult = Diagnostics.diagnostics

/**
 * @since 0.1.0
 * @category constructors
 */
export const symbols: (symbols: ReadonlyArray<LspSymbol>, resolvedWorkspaceUri: string) => LspSymbolsResult =
  Symbols.symbols

/**
 * @since 0.1.0
 * @category constructors
 */
export const calls: (
  direction: "incoming" | "outgoing",
  items: ReadonlyArray<LspCallItem>,
  calls: ReadonlyArray<LspCall>,
  resolvedWorkspaceUri: string
) => LspCallsResult = Calls.calls

/**
 * A rename preview's answer: the edits are sorted by file and position.
 *
 * @since 0.1.0
 * @category constructors
 */
export const edits: (
  edits: ReadonlyArray<LspTextEdit>,
  resourceOperations: ReadonlyArray<LspResourceOperation>,
  resolvedWorkspaceUri: string
) => LspEditsResult = Edits.edits

/**
 * The result kind each operation answers with.
 *
 * @since 0.1.0
 * @category utils
 */
export const kindOf = (operation: LspOperation): LspQueryResult["kind"] => {
  switch (operation) {
    case "hover":
      return "hover"
    case "documentSymbol":
    case "workspaceSymbol":
      return "symbols"
    case "incomingCalls":
    case "outgoingCalls":
      return "calls"
    case "diagnostics":
      return "diagnostics"
    case "renamePreview":
      return "edits"
    case "impact":
      return "impact"
    default:
      return "locations"
  }
}
