/**
 * Whether a freshly started server has finished its startup work. Servers announce long work with
 * `$/progress` (begin … end) once the client advertises `window.workDoneProgress`; some say it only in their
 * log (`readyLog`: pyright's "Found N source files") or by a notification of their own (`readyNotification`:
 * yaml-language-server's "yaml/schema/store/initialized"); some announce nothing and only need a moment of quiet
 * (which is no proof: a loaded machine can hold a server silent for seconds mid-startup). The rule is data (`Readiness` in the server config), not language logic.
 */
import { LspDeadline } from "@lsp-seam/lsp"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Readiness } from "../../StdioConfig.js"
import * as WakeUp from "./wakeUp.js"

const Progress = Schema.Struct({
  token: Schema.Union(Schema.String, Schema.Number),
  value: Schema.Struct({ kind: Schema.Literal("begin", "report", "end") })
})

const decodeProgress = Schema.decodeUnknownOption(Progress)

const decodeLogMessage = Schema.decodeUnknownOption(Schema.Struct({ message: Schema.String }))

export interface ReadinessTracker {
  /** Feed every server notification here. */
  readonly observe: (method: string, params: unknown) => Effect.Effect<void>
  /** Restarts the quiet period (the handshake has just ended, say). */
  readonly touch: Effect.Effect<void>
  /**
   * Waits until the server has settled, or until `untilMillis` (Effect Clock). True when it settled (now or
   * earlier: once settled, always settled); false when the wait was cut short. With `expectProgress` (the
   * rule's `openStartsProgress`, for a file a project marker governs), a server that has not yet begun a
   * progress is not settled: its work starts only now that a file is open.
   */
  readonly awaitSettled: (untilMillis: number, expectProgress?: boolean) => Effect.Effect<boolean>
  /** True once the server has been seen settled (which is for good); a synchronous look, no waiting. */
  readonly isSettled: () => boolean
  /** Progress tokens now active, for introspection. */
  readonly activeTokens: Effect.Effect<number>
}

export const make = (rule: Readiness): Effect.Effect<ReadinessTracker> =>
  Effect.map(Effect.clock, (clock) => {
    // Plain state: every change happens in one synchronous step (notifications arrive on the reader fiber,
    // and a settled server costs a query a single step).
    const active = new Set<string | number>()
    let lastActivity = clock.unsafeCurrentTimeMillis()
    let settled = false
    // A server that says in its log when its startup work is done is not settled before it has said so.
    const readyLog = rule.readyLog === null ? undefined : new RegExp(rule.readyLog)
    let logged = readyLog === undefined
    // A server that announces the end of its startup work with a notification is not settled before it has.
    let announced = rule.readyNotification === null
    let progressBegun = false
    // Signalled on every change, so a waiter wakes up as soon as the state moves.
    const changed = WakeUp.make()
    const signal = changed.signal

    const observe = (method: string, params: unknown) =>
      Effect.sync(() => {
        lastActivity = clock.unsafeCurrentTimeMillis()
        if (!logged && method === "window/logMessage") {
          const log = decodeLogMessage(params)
          if (log._tag === "Some" && readyLog!.test(log.value.message)) logged = true
        }
        if (!announced && method === rule.readyNotification) announced = true
        if (method === "$/progress" && rule.progress) {
          const progress = decodeProgress(params)
          if (progress._tag === "Some") {
            const { token, value } = progress.value
            if (value.kind === "end") active.delete(token)
            else {
              active.add(token)
              progressBegun = true
            }
          }
        }
        signal()
      })

    /** One look at the state: settled, cut short, or how long to wait for the next change. */
    const check = (
      untilMillis: number,
      expectProgress: boolean
    ): boolean | { readonly wake: Deferred.Deferred<void>; readonly forMs: number } => {
      if (settled) return true
      const now = clock.unsafeCurrentTimeMillis()
      const quietUntil = lastActivity + rule.quietMs
      const busy = active.size > 0 || !logged || !announced || (expectProgress && rule.progress && !progressBegun)
      if (!busy && now >= quietUntil) {
        settled = true
        return true
      }
      if (now >= untilMillis) return false
      const nextCheck = busy ? untilMillis : Math.min(quietUntil, untilMillis)
      return { wake: changed.next(), forMs: Math.max(0, nextCheck - now) }
    }

    const awaitSettled = (untilMillis: number, expectProgress = false): Effect.Effect<boolean> =>
      Effect.suspend(() => {
        const state = check(untilMillis, expectProgress)
        if (typeof state === "boolean") return Effect.succeed(state)
        return Effect.zipRight(
          Effect.raceFirst(Deferred.await(state.wake), Effect.sleep(state.forMs)),
          awaitSettled(untilMillis, expectProgress)
        )
      })

    const touch = Effect.sync(() => {
      lastActivity = clock.unsafeCurrentTimeMillis()
    })

    return { observe, touch, awaitSettled, isSettled: () => settled, activeTokens: Effect.sync(() => active.size) }
  })

/**
 * Until when a query may wait for a starting server to settle: `maxWaitMs` from now, and never so long that
 * the request itself could not finish before the caller's published deadline (a quarter of what is left, at
 * most 2 s, is kept for it).
 */
export const deadlineFor = (rule: Readiness): Effect.Effect<number> => deadlineWithin(rule.maxWaitMs)

/**
 * Until when a query may wait for something of the server's: `maxWaitMs` from now, and never so close to the
 * caller's published deadline that the answer could not be given in time (see `deadlineFor`).
 */
export const deadlineWithin = (maxWaitMs: number): Effect.Effect<number> =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const deadline = yield* FiberRef.get(LspDeadline.current)
    const byRule = now + maxWaitMs
    return Option.match(deadline, {
      onNone: () => byRule,
      onSome: (d) => Math.min(byRule, d - Math.min(2_000, Math.max(0, d - now) / 4))
    })
  })
