import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as LspError from "../LspError.js"
import type { LspProvider } from "../LspProvider.js"
import type { LspQueryRequest } from "../LspQuery.js"
import { kindOf, type LspQueryResult } from "../LspResult.js"
import * as LspResultCheck from "../LspResultCheck.js"

/** A Schema failure as the one-paragraph text an `LspError` message quotes. */
export const formatIssue = (error: ParseResult.ParseError): string => ParseResult.TreeFormatter.formatErrorSync(error)

/** The provider's answer, checked against the contract: providers may be plain JavaScript or remote. */
export const checked = (
  provider: LspProvider,
  request: LspQueryRequest,
  result: unknown
): Effect.Effect<LspQueryResult, LspError.LspError> =>
  Effect.gen(function*() {
    const valid = yield* Either.mapLeft(LspResultCheck.validate(result), (error) =>
      LspError.malformedResponse(
        `Provider "${provider.id}" returned an invalid result: ${formatIssue(error)}`,
        { providerId: provider.id }
      ))
    if (valid.kind !== kindOf(request.operation)) {
      return yield* LspError.malformedResponse(
        `Provider "${provider.id}" answered ${request.operation} with a "${valid.kind}" result.`,
        { providerId: provider.id }
      )
    }
    return valid
  })
