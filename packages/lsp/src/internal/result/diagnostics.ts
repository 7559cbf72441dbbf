// The answer of diagnostics: the asked file's diagnostics, each with the related information the server
// attached to it. The public documentation of each is in LspResult.ts.
import * as Schema from "effect/Schema"
import { LspRange, LspSeverity } from "../../LspQuery.js"
import * as Annotations from "./annotations.js"

export const LspRelatedInformation = Schema.Struct({
  uri: Schema.String,
  range: LspRange,
  message: Schema.String
})

export type LspRelatedInformation = typeof LspRelatedInformation.Type

export const LspDiagnostic = Schema.Struct({
  uri: Schema.String,
  range: LspRange,
  severity: LspSeverity,
  code: Schema.optional(Schema.String),
  source: Schema.optional(Schema.String),
  message: Schema.String,
  relatedInformation: Schema.optional(Schema.Array(LspRelatedInformation))
})

export type LspDiagnostic = typeof LspDiagnostic.Type

export const LspDiagnosticsResult = Schema.Struct({
  kind: Schema.Literal("diagnostics"),
  diagnostics: Schema.Array(LspDiagnostic),
  resolvedWorkspaceUri: Schema.String,
  ...Annotations.fields
})

export type LspDiagnosticsResult = typeof LspDiagnosticsResult.Type

export const diagnostics = (
  diagnostics: ReadonlyArray<LspDiagnostic>,
  resolvedWorkspaceUri: string
): LspDiagnosticsResult => ({ kind: "diagnostics", diagnostics, resolvedWorkspaceUri })
