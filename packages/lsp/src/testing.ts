/**
 * Test doubles for code built on lsp-seam. A scripted fake provider records every query it receives and
 * answers from a script; delays run on the Effect Clock, so `TestClock.adjust` drives a caller's timeouts
 * deterministically.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import type { LspError } from "./LspError.js"
import * as LspProvider from "./LspProvider.js"
import type { LspProviderQuery } from "./LspQuery.js"
import type { LspQueryResult } from "./LspResult.js"
import { LspService } from "./LspService.js"

/**
 * One scripted answer: succeed or fail (optionally after a delay on the Effect Clock), or never answer.
 *
 * @since 0.1.0
 * @category models
 */
export type FakeAnswer =
  | { readonly _tag: "Succeed"; readonly result: LspQueryResult; readonly delay?: Duration.DurationInput }
  | { readonly _tag: "Fail"; readonly error: LspError; readonly delay?: Duration.DurationInput }
  | { readonly _tag: "Never" }

/**
 * @since 0.1.0
 * @category constructors
 */
export const succeed = (result: LspQueryResult, options?: { readonly delay?: Duration.DurationInput }): FakeAnswer =>
  options?.delay === undefined ? { _tag: "Succeed", result } : { _tag: "Succeed", result, delay: options.delay }

/**
 * @since 0.1.0
 * @category constructors
 */
export const fail = (error: LspError, options?: { readonly delay?: Duration.DurationInput }): FakeAnswer =>
  options?.delay === undefined ? { _tag: "Fail", error } : { _tag: "Fail", error, delay: options.delay }

/**
 * @since 0.1.0
 * @category constructors
 */
export const never: FakeAnswer = { _tag: "Never" }

/**
 * A script: a fixed list of answers used in order (the last one repeats), or a function of the query and
 * its zero-based index.
 *
 * @since 0.1.0
 * @category models
 */
export type FakeScript =
  | ReadonlyArray<FakeAnswer>
  | ((query: LspProviderQuery, index: number) => FakeAnswer)

/**
 * A fake provider and what it observed.
 *
 * @since 0.1.0
 * @category models
 */
export interface FakeProvider {
  readonly provider: LspProvider.LspProvider
  /** Every query received, in order. */
  readonly queries: Effect.Effect<ReadonlyArray<LspProviderQuery>>
  /** How many queries were interrupted before they answered. */
  readonly interruptions: Effect.Effect<number>
}

/**
 * Makes a fake provider answering from `script`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeFakeProvider = (options: {
  readonly id: string
  readonly extensionToLanguage: Readonly<Record<string, string>>
  readonly script: FakeScript
}): Effect.Effect<FakeProvider> =>
  Effect.gen(function*() {
    const received = yield* Ref.make<ReadonlyArray<LspProviderQuery>>([])
    const interrupted = yield* Ref.make(0)
    const pick = (query: LspProviderQuery, index: number): FakeAnswer => {
      const script = options.script
      if (typeof script === "function") return script(query, index)
      if (script.length === 0) return never
      return script[Math.min(index, script.length - 1)]!
    }
    const answer = (scripted: FakeAnswer): Effect.Effect<LspQueryResult, LspError> => {
      switch (scripted._tag) {
        case "Never":
          return Effect.never
        case "Succeed":
          return Effect.delay(Effect.succeed(scripted.result), scripted.delay ?? 0)
        case "Fail":
          return Effect.delay(Effect.fail(scripted.error), scripted.delay ?? 0)
      }
    }
    const provider = LspProvider.make({
      id: options.id,
      extensionToLanguage: options.extensionToLanguage,
      query: (query) =>
        Ref.modify(received, (all) => [all.length, [...all, query]] as const).pipe(
          Effect.flatMap((index) => answer(pick(query, index))),
          Effect.onInterrupt(() => Ref.update(interrupted, (n) => n + 1))
        )
    })
    return { provider, queries: Ref.get(received), interruptions: Ref.get(interrupted) }
  })

/**
 * Registers a fake provider with the `LspService` in context for the current scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const registerFakeProvider = (
  options: Parameters<typeof makeFakeProvider>[0]
): Effect.Effect<FakeProvider, LspError, LspService | Scope.Scope> =>
  Effect.gen(function*() {
    const fake = yield* makeFakeProvider(options)
    const service = yield* LspService
    yield* service.registerProvider(fake.provider)
    return fake
  })
