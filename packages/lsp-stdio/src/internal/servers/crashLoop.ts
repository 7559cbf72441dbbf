/**
 * The crash-loop budget: remembers recent crashes per key (provider + workspace) and refuses to start a
 * server again after too many crashes in a short window, until the window has passed.
 */
import { LspError } from "@lsp-seam/lsp"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type { CrashLoop as Budget } from "../../StdioConfig.js"

export interface Crash {
  readonly at: number
  readonly error: LspError.LspLocalError
}

export interface CrashLoop {
  readonly record: (key: string, error: LspError.LspLocalError) => Effect.Effect<void>
  /** Fails with `LSP_CRASH_LOOP` while `key` has crashed `maxCrashes` times within `windowMs`. */
  readonly check: (key: string, providerId: string, budget: Budget) => Effect.Effect<void, LspError.LspLocalError>
  readonly last: (key: string) => Effect.Effect<Crash | undefined>
}

export const make: Effect.Effect<CrashLoop> = Effect.gen(function*() {
  const crashes = yield* Ref.make(new Map<string, ReadonlyArray<Crash>>())

  const record = (key: string, error: LspError.LspLocalError) =>
    Effect.flatMap(
      Clock.currentTimeMillis,
      (at) => Ref.update(crashes, (map) => new Map(map).set(key, [...(map.get(key) ?? []), { at, error }]))
    )

  const check = (key: string, providerId: string, budget: Budget) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      // Forget what has left the window, so the map does not grow with old crashes.
      const recent = yield* Ref.modify(crashes, (map) => {
        const kept = (map.get(key) ?? []).filter((crash) => now - crash.at < budget.windowMs)
        const next = new Map(map)
        if (kept.length === 0) next.delete(key)
        else next.set(key, kept)
        return [kept, next] as const
      })
      if (recent.length < budget.maxCrashes) return
      const retryAt = recent[recent.length - budget.maxCrashes]!.at + budget.windowMs
      const last = recent[recent.length - 1]!.error
      const seconds = Math.ceil((retryAt - now) / 1000)
      return yield* LspError.crashLoop(
        `The "${providerId}" language server crashed ${recent.length} times in the last ` +
          `${Math.round(budget.windowMs / 1000)} s, so it is not being restarted for now; try again in ${seconds} s ` +
          `(at ${new Date(retryAt).toISOString()}). Last crash: ${last.message}`,
        { providerId, crashes: recent.length, retryAt, lastError: { code: last.code, message: last.message } }
      )
    })

  const last = (key: string) => Effect.map(Ref.get(crashes), (map) => map.get(key)?.at(-1))

  return { record, check, last }
})
