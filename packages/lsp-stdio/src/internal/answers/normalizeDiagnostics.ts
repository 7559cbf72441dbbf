/**
 * Turning diagnostics into seam values, whether pulled (`textDocument/diagnostic`, a full report) or pushed
 * (`textDocument/publishDiagnostics`, kept by the diagnostics store). Only the asked document's own items are
 * kept, each with its related information; anything off the protocol is `LSP_MALFORMED_RESPONSE`, naming the
 * field.
 */
import { type LspError, LspQuery, type LspResult } from "@lsp-seam/lsp"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { severityName } from "../documents/diagnosticsStore.js"
import { decodeAt, describe, isRecord, malformed, unwrap } from "./normalize.js"

const RelatedInformation = Schema.Struct({
  location: Schema.Struct({ uri: Schema.String, range: LspQuery.LspRange }),
  message: Schema.String
})

const Diagnostic = Schema.Struct({
  range: LspQuery.LspRange,
  severity: Schema.optional(Schema.Int.pipe(Schema.between(1, 4))),
  code: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
  source: Schema.optional(Schema.String),
  message: Schema.String,
  relatedInformation: Schema.optional(Schema.Array(RelatedInformation))
})

// Related documents (`relatedDocuments`) are not asked for (the client does not announce them) and, if sent
// anyway, not read: a file's answer is that file's.
const FullReport = Schema.Struct({
  kind: Schema.Literal("full"),
  items: Schema.Array(Schema.Unknown)
})

/** One document's diagnostics, decoded; `where` names the field in errors. */
export const normalizeItems = (
  uri: string,
  items: ReadonlyArray<unknown>,
  where: string
): Either.Either<ReadonlyArray<LspResult.LspDiagnostic>, LspError.LspLocalError> => {
  const out: Array<LspResult.LspDiagnostic> = []
  for (let i = 0; i < items.length; i++) {
    const decoded = decodeAt(Diagnostic, "diagnostics", "expected a Diagnostic", `${where}[${i}]`, items[i])
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    const { code, message, range, relatedInformation, severity, source } = decoded.right
    out.push({
      uri,
      range,
      severity: severityName(severity),
      ...(code === undefined ? {} : { code: String(code) }),
      ...(source === undefined || source === "" ? {} : { source }),
      message,
      ...(relatedInformation === undefined || relatedInformation.length === 0 ? {} : {
        relatedInformation: relatedInformation.map((related) => ({
          uri: related.location.uri,
          range: related.location.range,
          message: related.message
        }))
      })
    })
  }
  return Either.right(out)
}

/**
 * A pulled report for `uri`: its items. An `unchanged` report is malformed here: no previous result id was
 * sent, so there is nothing to be unchanged from.
 */
export const normalizeReport = (
  raw: unknown,
  uri: string
): Either.Either<ReadonlyArray<LspResult.LspDiagnostic>, LspError.LspLocalError> => {
  const result = unwrap(raw)
  if (Option.isNone(result)) return Either.left(malformed("diagnostics", "the response has no result"))
  if (!isRecord(result.value)) {
    return Either.left(malformed("diagnostics", `expected a diagnostic report, got ${describe(result.value)}`))
  }
  const report = decodeAt(FullReport, "diagnostics", "expected a full diagnostic report", "", result.value)
  if (Either.isLeft(report)) return Either.left(report.left)
  return normalizeItems(uri, report.right.items, ".items")
}
