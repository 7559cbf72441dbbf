// The answer of incomingCalls and outgoingCalls: call-hierarchy items and the call edges between them. The
// public documentation of each is in LspResult.ts.
import * as Schema from "effect/Schema"
import { LspRange } from "../../LspQuery.js"
import * as Annotations from "./annotations.js"
import { SymbolKindName } from "./symbols.js"

export const LspCallItem = Schema.Struct({
  name: Schema.String,
  kind: SymbolKindName,
  detail: Schema.optional(Schema.String),
  uri: Schema.String,
  range: LspRange,
  selectionRange: LspRange
})

export type LspCallItem = typeof LspCallItem.Type

export const LspCall = Schema.Struct({
  ...LspCallItem.fields,
  fromUri: Schema.String,
  fromRanges: Schema.Array(LspRange)
})

export type LspCall = typeof LspCall.Type

export const LspCallsResult = Schema.Struct({
  kind: Schema.Literal("calls"),
  direction: Schema.Literal("incoming", "outgoing"),
  items: Schema.Array(LspCallItem),
  calls: Schema.Array(LspCall),
  resolvedWorkspaceUri: Schema.String,
  ...Annotations.fields
})

export type LspCallsResult = typeof LspCallsResult.Type

export const calls = (
  direction: "incoming" | "outgoing",
  items: ReadonlyArray<LspCallItem>,
  calls: ReadonlyArray<LspCall>,
  resolvedWorkspaceUri: string
): LspCallsResult => ({ kind: "calls", direction, items, calls, resolvedWorkspaceUri })
