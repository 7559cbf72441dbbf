/**
 * Turning diagnostics into seam values, whether pulled (`textDocument/diagnostic`, a full report with its
 * related documents) or pushed (`textDocument/publishDiagnostics`, kept by the diagnostics store). Anything
 * off the protocol is `LSP_MALFORMED_RESPONSE`, naming the field.
 */
import { type LspError, LspQuery, type LspResult } from "@lsp-seam/lsp"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { severityName } from "../documents/diagnosticsStore.js"
import { decodeAt, describe, isRecord, malformed, unwrap } from "./normalize.js"

const Diagnostic = Schema.Struct({
  range: LspQuery.LspRange,
  severity: Schema.optional(Schema.Int.pipe(Schema.between(1, 4))),
  code: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
  source: Schema.optional(Schema.String),
  message: Schema.String
})

const FullReport = Schema.Struct({
  kind: Schema.Literal("full"),
  items: Schema.Array(Schema.Unknown),
  relatedDocuments: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})

/** One document's diagnostics, decoded; `where` names the field in errors. */
export const normalizeItems = (
  uri: string,
  items: ReadonlyArray<unknown>,
  where: string,
  related: boolean
): Either.Either<ReadonlyArray<LspResult.LspDiagnostic>, LspError.LspError> => {
  const out: Array<LspResult.LspDiagnostic> = []
  for (let i = 0; i < items.length; i++) {
    const decoded = decodeAt(Diagnostic, "diagnostics", "expected a Diagnostic", `${where}[${i}]`, items[i])
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    const { code, message, range, severity, source } = decoded.right
    out.push({
      uri,
      range,
      severity: severityName(severity),
      ...(code === undefined ? {} : { code: String(code) }),
      ...(source === undefined || source === "" ? {} : { source }),
      message,
      ...(related ? { related: true as const } : {})
    })
  }
  return Either.right(out)
}

/**
 * A pulled report for `uri`: its items, then the full reports of related documents (marked related). An
 * `unchanged` report is malformed here: no previous result id was sent, so there is nothing to be unchanged
 * from.
 */
export const normalizeReport = (
  raw: unknown,
  uri: string
): Either.Either<
  { readonly own: ReadonlyArray<LspResult.LspDiagnostic>; readonly related: ReadonlyArray<LspResult.LspDiagnostic> },
  LspError.LspError
> => {
  const result = unwrap(raw)
  if (Option.isNone(result)) return Either.left(malformed("diagnostics", "the response has no result"))
  if (!isRecord(result.value)) {
    return Either.left(malformed("diagnostics", `expected a diagnostic report, got ${describe(result.value)}`))
  }
  const report = decodeAt(FullReport, "diagnostics", "expected a full diagnostic report", "", result.value)
  if (Either.isLeft(report)) return Either.left(report.left)
  const own = normalizeItems(uri, report.right.items, ".items", false)
  if (Either.isLeft(own)) return Either.left(own.left)
  const related: Array<LspResult.LspDiagnostic> = []
  for (const [other, value] of Object.entries(report.right.relatedDocuments ?? {})) {
    // An unchanged related document carries no items; skip it rather than guess.
    if (isRecord(value) && value.kind === "unchanged") continue
    const full = decodeAt(
      FullReport,
      "diagnostics",
      "expected a full report",
      `.relatedDocuments[${JSON.stringify(other)}]`,
      value
    )
    if (Either.isLeft(full)) return Either.left(full.left)
    const items = normalizeItems(other, full.right.items, `.relatedDocuments[${JSON.stringify(other)}].items`, true)
    if (Either.isLeft(items)) return Either.left(items.left)
    related.push(...items.right)
  }
  return Either.right({ own: own.right, related })
}
