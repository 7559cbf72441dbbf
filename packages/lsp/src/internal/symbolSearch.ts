import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as LspError from "../LspError.js"
import type { LspProvider } from "../LspProvider.js"
import type { LspWorkspaceSymbolRequest } from "../LspQuery.js"
import { type LspQueryResult, type LspSymbolsResult, markIncomplete } from "../LspResult.js"
import { checked } from "./providerAnswer.js"

/** Two providers' answers as one; each keeps its own workspace URI per symbol only through `uri`. */
const mergeSymbols = (
  merged: LspSymbolsResult,
  next: LspSymbolsResult,
  labelled: LspSymbolsResult["symbols"]
): LspSymbolsResult => {
  const reasons = [...(merged.incompleteReasons ?? []), ...(next.incompleteReasons ?? [])]
  return {
    ...merged,
    symbols: [...merged.symbols, ...labelled],
    ...(merged.incomplete === true || next.incomplete === true ? { incomplete: true } : {}),
    ...(reasons.length > 0 ? { incompleteReasons: reasons } : {})
  }
}

/**
 * A workspaceSymbol search without a file: every provider is asked at once and the symbols merged in
 * provider order, each labelled with its provider. A provider that fails leaves the others' answer,
 * flagged `provider-failed`. When every one fails, or those that answered found nothing, the search fails with
 * the first error: an empty list flagged incomplete would read as "no such symbol" to a caller (and exit 0).
 */
export const searchAll = (
  request: LspWorkspaceSymbolRequest,
  providers: ReadonlyArray<LspProvider>
): Effect.Effect<LspQueryResult, LspError.LspError> =>
  Effect.gen(function*() {
    if (providers.length === 0) {
      return yield* LspError.unavailable("No language server is registered to search for symbols.", {})
    }
    const answers = yield* Effect.forEach(
      providers,
      (provider) =>
        Effect.either(Effect.flatMap(
          provider.query({ ...request, languageId: "" }),
          (result) => checked(provider, request, result)
        )),
      { concurrency: "unbounded" }
    )
    const failures: Array<readonly [LspProvider, LspError.LspError]> = []
    let merged: LspSymbolsResult | undefined
    for (let i = 0; i < answers.length; i++) {
      const answer = answers[i]!
      const provider = providers[i]!
      if (Either.isLeft(answer)) {
        failures.push([provider, answer.left])
        continue
      }
      if (answer.right.kind !== "symbols") continue
      const labelled = answer.right.symbols.map((symbol) => ({ ...symbol, provider: provider.id }))
      merged = merged === undefined
        ? { ...answer.right, symbols: labelled }
        : mergeSymbols(merged, answer.right, labelled)
    }
    if (merged === undefined || (merged.symbols.length === 0 && failures.length > 0)) {
      return yield* Effect.fail(failures[0]![1])
    }
    return failures.reduce(
      (result, [provider, error]) =>
        markIncomplete(result, {
          reason: "provider-failed",
          message: `The "${provider.id}" language server could not search (error[${error.code}]: ${error.message}); ` +
            "its symbols are missing."
        }),
      merged
    )
  })
