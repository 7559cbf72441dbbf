// The answer of renamePreview: the server's WorkspaceEdit as a flat list of text edits, and the file
// operations it would make. The public documentation of each is in LspResult.ts.
import * as Schema from "effect/Schema"
import { LspRange } from "../../LspQuery.js"
import * as Annotations from "./annotations.js"

const OutsideWorkspace = Schema.optional(Schema.Literal(true))

export const LspTextEdit = Schema.Struct({
  uri: Schema.String,
  range: LspRange,
  newText: Schema.String,
  oldText: Schema.optional(Schema.String),
  outsideWorkspace: OutsideWorkspace
})

export type LspTextEdit = typeof LspTextEdit.Type

export const LspResourceOperation = Schema.Struct({
  kind: Schema.Literal("create", "rename", "delete"),
  uri: Schema.String,
  newUri: Schema.optional(Schema.String),
  outsideWorkspace: OutsideWorkspace
})

export type LspResourceOperation = typeof LspResourceOperation.Type

export const LspEditsResult = Schema.Struct({
  kind: Schema.Literal("edits"),
  edits: Schema.Array(LspTextEdit),
  resourceOperations: Schema.Array(LspResourceOperation),
  resolvedWorkspaceUri: Schema.String,
  ...Annotations.fields
})

export type LspEditsResult = typeof LspEditsResult.Type

const compare = (a: LspTextEdit, b: LspTextEdit) =>
  (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0) || a.range.start.line - b.range.start.line ||
  a.range.start.character - b.range.start.character || a.range.end.line - b.range.end.line ||
  a.range.end.character - b.range.end.character

export const edits = (
  edits: ReadonlyArray<LspTextEdit>,
  resourceOperations: ReadonlyArray<LspResourceOperation>,
  resolvedWorkspaceUri: string
): LspEditsResult => ({ kind: "edits", edits: [...edits].sort(compare), resourceOperations, resolvedWorkspaceUri })
