/**
 * What the seam answers: locations for the three navigation operations, hover text for `hover`.
 * An empty answer is a success, never an error.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { type LspOperation, LspPosition, LspRange, LspSeverity } from "./LspQuery.js"

/**
 * A place in a document: a URI (usually `file:`) and a zero-based range.
 *
 * @since 0.1.0
 * @category models
 */
export const LspLocation = Schema.Struct({
  uri: Schema.String,
  range: LspRange
})

/**
 * @since 0.1.0
 * @category models
 */
export type LspLocation = typeof LspLocation.Type

/**
 * Hover contents normalised to one string (markdown or plain text), and the range it applies to.
 *
 * @since 0.1.0
 * @category models
 */
export const LspHover = Schema.Struct({
  contents: Schema.String,
  range: Schema.optional(LspRange)
})

/**
 * @since 0.1.0
 * @category models
 */
export type LspHover = typeof LspHover.Type

/**
 * Present (and `true`) only when the answer may be missing results: the server was still busy with its
 * startup work (indexing, loading the project) when the answer had to be given, or it answered a cross-file
 * question without a project model. `incompleteReasons` says which. Absent otherwise.
 *
 * @since 0.1.0
 * @category models
 */
export const Incomplete = Schema.Literal(true).annotations({
  description: "The answer may be incomplete; incompleteReasons says why."
})

/**
 * Why an answer may be incomplete: `readiness` — the server had not finished starting up; `no-project` —
 * a cross-file answer computed without the server's project model (no `tsconfig.json`, no
 * `compile_commands.json`, …); `provider-failed` — a workspaceSymbol search merged from several providers,
 * one of which failed (the message names it and its error); `diagnostics-pending` — the server had not
 * published diagnostics for the file's current text when the answer had to be given (the answer then
 * holds none: a set for an older text is never given).
 *
 * @since 0.2.0
 * @category models
 */
export const IncompleteReasonKind = Schema.Literal("readiness", "no-project", "provider-failed", "diagnostics-pending")

/**
 * @since 0.2.0
 * @category models
 */
export type IncompleteReasonKind = typeof IncompleteReasonKind.Type

/**
 * One reason an answer may be incomplete, with a one-line message for the model that includes the remedy.
 *
 * @since 0.2.0
 * @category models
 */
export const IncompleteReason = Schema.Struct({
  reason: IncompleteReasonKind,
  message: Schema.String
})

/**
 * @since 0.2.0
 * @category models
 */
export type IncompleteReason = typeof IncompleteReason.Type

/**
 * The standard message of a `readiness` reason.
 *
 * @since 0.2.0
 * @category constants
 */
export const readinessMessage =
  "The language server was still starting up (indexing); this answer may be incomplete. Repeat the query in " +
  "a few seconds for a complete answer."

/**
 * The `readiness` reason with its standard message (what `markIncomplete(result)` adds).
 *
 * @since 0.2.0
 * @category constants
 */
export const readiness: IncompleteReason = { reason: "readiness", message: readinessMessage }

/**
 * What a request with `symbol` was resolved to: the zero-based `position` actually queried, the
 * zero-based `requested` position, and how many whole-identifier occurrences of `symbol` the chosen line
 * holds (more than one means the provider chose among them).
 *
 * @since 0.2.0
 * @category models
 */
export const Resolved = Schema.Struct({
  symbol: Schema.String,
  position: LspPosition,
  requested: LspPosition,
  occurrences: Schema.Int.pipe(Schema.positive())
})

/**
 * @since 0.2.0
 * @category models
 */
export type Resolved = typeof Resolved.Type

/**
 * An identifier on a line: its name and the zero-based UTF-16 column where it starts.
 *
 * @since 0.2.0
 * @category models
 */
export const LspIdentifier = Schema.Struct({
  name: Schema.String,
  character: Schema.NonNegativeInt
})

/**
 * @since 0.2.0
 * @category models
 */
export type LspIdentifier = typeof LspIdentifier.Type

/**
 * Set by providers only on an empty answer (no locations, or a null hover) whose position is not on an
 * identifier: the zero-based position and every identifier on that line, in order.
 *
 * @since 0.2.0
 * @category models
 */
export const OffIdentifier = Schema.Struct({
  line: Schema.NonNegativeInt,
  character: Schema.NonNegativeInt,
  identifiers: Schema.Array(LspIdentifier)
})

/**
 * @since 0.2.0
 * @category models
 */
export type OffIdentifier = typeof OffIdentifier.Type

// Additive, optional facts any result may carry (since 0.2.0 except `incomplete`).
const annotations = {
  incomplete: Schema.optional(Incomplete),
  incompleteReasons: Schema.optional(Schema.Array(IncompleteReason)),
  resolved: Schema.optional(Resolved),
  offIdentifier: Schema.optional(OffIdentifier)
}

/**
 * The answer to goToDefinition, findReferences or goToImplementation. `resolvedWorkspaceUri` is the
 * provider's canonical `file:` URI of the workspace: relativise against it, never against the request's
 * (possibly symlinked) root.
 *
 * @since 0.1.0
 * @category models
 */
export const LspLocationsResult = Schema.Struct({
  kind: Schema.Literal("locations"),
  locations: Schema.Array(LspLocation),
  resolvedWorkspaceUri: Schema.String,
  ...annotations
})

/**
 * @since 0.1.0
 * @category models
 */
export type LspLocationsResult = typeof LspLocationsResult.Type

/**
 * The answer to hover; `null` when the server has nothing to say at that position.
 *
 * @since 0.1.0
 * @category models
 */
export const LspHoverResult = Schema.Struct({
  kind: Schema.Literal("hover"),
  hover: Schema.NullOr(LspHover),
  ...annotations
})

/**
 * @since 0.1.0
 * @category models
 */
export type LspHoverResult = typeof LspHoverResult.Type

/**
 * LSP's symbol kinds by name (`SymbolKind` 1–26), as results carry them.
 *
 * @since 0.2.0
 * @category models
 */
export const SymbolKindName = Schema.Literal(
  "File",
  "Module",
  "Namespace",
  "Package",
  "Class",
  "Method",
  "Property",
  "Field",
  "Constructor",
  "Enum",
  "Interface",
  "Function",
  "Variable",
  "Constant",
  "String",
  "Number",
  "Boolean",
  "Array",
  "Object",
  "Key",
  "Null",
  "EnumMember",
  "Struct",
  "Event",
  "Operator",
  "TypeParameter"
)

/**
 * @since 0.2.0
 * @category models
 */
export type SymbolKindName = typeof SymbolKindName.Type

/**
 * A symbol: its name and kind, where it is (`range`, the whole declaration) and where its name is
 * (`selectionRange`). `containerName` is the path of enclosing symbols (`Outer.Inner`) when known; `depth`
 * (document symbols) how deep it is nested; `provider` (workspace symbols merged from several providers)
 * which provider found it.
 *
 * @since 0.2.0
 * @category models
 */
export const LspSymbol = Schema.Struct({
  name: Schema.String,
  kind: SymbolKindName,
  containerName: Schema.optional(Schema.String),
  detail: Schema.optional(Schema.String),
  uri: Schema.String,
  range: LspRange,
  selectionRange: LspRange,
  depth: Schema.optional(Schema.NonNegativeInt),
  provider: Schema.optional(Schema.String)
})

/**
 * @since 0.2.0
 * @category models
 */
export type LspSymbol = typeof LspSymbol.Type

/**
 * The answer to documentSymbol (the file's symbols in document order, parents before their children) and
 * workspaceSymbol (the matches, in the servers' order).
 *
 * @since 0.2.0
 * @category models
 */
export const LspSymbolsResult = Schema.Struct({
  kind: Schema.Literal("symbols"),
  symbols: Schema.Array(LspSymbol),
  resolvedWorkspaceUri: Schema.String,
  ...annotations
})

/**
 * @since 0.2.0
 * @category models
 */
export type LspSymbolsResult = typeof LspSymbolsResult.Type

/**
 * A function-like item of the call hierarchy: a caller, a callee, or the item the calls were asked about.
 *
 * @since 0.2.0
 * @category models
 */
export const LspCallItem = Schema.Struct({
  name: Schema.String,
  kind: SymbolKindName,
  detail: Schema.optional(Schema.String),
  uri: Schema.String,
  range: LspRange,
  selectionRange: LspRange
})

/**
 * @since 0.2.0
 * @category models
 */
export type LspCallItem = typeof LspCallItem.Type

/**
 * One call edge: the caller (incomingCalls) or callee (outgoingCalls), and the call sites `fromRanges`,
 * which lie in `fromUri` — the caller's document for incoming calls, the asked item's for outgoing ones.
 *
 * @since 0.2.0
 * @category models
 */
export const LspCall = Schema.Struct({
  ...LspCallItem.fields,
  fromUri: Schema.String,
  fromRanges: Schema.Array(LspRange)
})

/**
 * @since 0.2.0
 * @category models
 */
export type LspCall = typeof LspCall.Type

/**
 * The answer to incomingCalls and outgoingCalls: the items the position prepared (usually one), and the
 * calls of all of them, merged.
 *
 * @since 0.2.0
 * @category models
 */
export const LspCallsResult = Schema.Struct({
  kind: Schema.Literal("calls"),
  direction: Schema.Literal("incoming", "outgoing"),
  items: Schema.Array(LspCallItem),
  calls: Schema.Array(LspCall),
  resolvedWorkspaceUri: Schema.String,
  ...annotations
})

/**
 * @since 0.2.0
 * @category models
 */
export type LspCallsResult = typeof LspCallsResult.Type

/**
 * One diagnostic: where, how serious, what. `related` marks a diagnostic of another file of the workspace
 * that the server reported while checking the asked one (an importer broken by a changed export, say).
 *
 * @since 0.2.0
 * @category models
 */
export const LspDiagnostic = Schema.Struct({
  uri: Schema.String,
  range: LspRange,
  severity: LspSeverity,
  code: Schema.optional(Schema.String),
  source: Schema.optional(Schema.String),
  message: Schema.String,
  related: Schema.optional(Schema.Literal(true))
})

/**
 * @since 0.2.0
 * @category models
 */
export type LspDiagnostic = typeof LspDiagnostic.Type

/**
 * The answer to diagnostics: the asked file's first (by position), then related ones. Empty means clean
 * only when `incomplete` is absent.
 *
 * @since 0.2.0
 * @category models
 */
export const LspDiagnosticsResult = Schema.Struct({
  kind: Schema.Literal("diagnostics"),
  diagnostics: Schema.Array(LspDiagnostic),
  resolvedWorkspaceUri: Schema.String,
  ...annotations
})

/**
 * @since 0.2.0
 * @category models
 */
export type LspDiagnosticsResult = typeof LspDiagnosticsResult.Type

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
  LspDiagnosticsResult
)

/**
 * @since 0.1.0
 * @category models
 */
export type LspQueryResult = typeof LspQueryResult.Type

/**
 * @since 0.1.0
 * @category constructors
 */
export const locations = (
  locations: ReadonlyArray<LspLocation>,
  resolvedWorkspaceUri: string
): LspLocationsResult => ({ kind: "locations", locations, resolvedWorkspaceUri })

/**
 * @since 0.1.0
 * @category constructors
 */
export const hover = (hover: LspHover | null): LspHoverResult => ({ kind: "hover", hover })

/**
 * Marks a result as possibly incomplete: sets `incomplete: true` and appends `reason` (default: the
 * `readiness` reason) to `incompleteReasons`, unless a reason of the same kind is already there.
 *
 * @since 0.1.0
 * @category constructors
 */
export const markIncomplete = <A extends LspQueryResult>(result: A, reason: IncompleteReason = readiness): A => {
  const reasons = result.incompleteReasons ?? []
  return {
    ...result,
    incomplete: true,
    incompleteReasons: reasons.some((r) => r.reason === reason.reason) ? reasons : [...reasons, reason]
  }
}

/**
 * The reasons an answer may be incomplete: `incompleteReasons`, or the `readiness` reason for a result that
 * only says `incomplete: true` (as providers before 0.2.0 did); empty for a complete answer.
 *
 * @since 0.2.0
 * @category utils
 */
export const incompleteReasonsOf = (result: LspQueryResult): ReadonlyArray<IncompleteReason> =>
  result.incompleteReasons !== undefined && result.incompleteReasons.length > 0
    ? result.incompleteReasons
    : result.incomplete === true
    ? [readiness]
    : []

/**
 * Records what a request with `symbol` was resolved to.
 *
 * @since 0.2.0
 * @category constructors
 */
export const withResolved = <A extends LspQueryResult>(result: A, resolved: Resolved): A => ({ ...result, resolved })

/**
 * Records that an empty answer was asked at a position off any identifier (see `OffIdentifier`).
 *
 * @since 0.2.0
 * @category constructors
 */
export const withOffIdentifier = <A extends LspQueryResult>(result: A, offIdentifier: OffIdentifier): A => ({
  ...result,
  offIdentifier
})

/**
 * True for an answer with nothing in it: no locations, or a hover that is null or blank.
 *
 * @since 0.2.0
 * @category utils
 */
export const isEmpty = (result: LspQueryResult): boolean => {
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
  }
}

/**
 * @since 0.2.0
 * @category constructors
 */
export const diagnostics = (
  diagnostics: ReadonlyArray<LspDiagnostic>,
  resolvedWorkspaceUri: string
): LspDiagnosticsResult => ({ kind: "diagnostics", diagnostics, resolvedWorkspaceUri })

/**
 * @since 0.2.0
 * @category constructors
 */
export const symbols = (symbols: ReadonlyArray<LspSymbol>, resolvedWorkspaceUri: string): LspSymbolsResult => ({
  kind: "symbols",
  symbols,
  resolvedWorkspaceUri
})

/**
 * @since 0.2.0
 * @category constructors
 */
export const calls = (
  direction: "incoming" | "outgoing",
  items: ReadonlyArray<LspCallItem>,
  calls: ReadonlyArray<LspCall>,
  resolvedWorkspaceUri: string
): LspCallsResult => ({ kind: "calls", direction, items, calls, resolvedWorkspaceUri })

/**
 * The result kind each operation answers with.
 *
 * @since 0.2.0
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
    default:
      return "locations"
  }
}
