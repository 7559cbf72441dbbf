/**
 * A one-line spinner on stderr while something slow runs (a cold TypeScript server takes seconds to
 * answer its first query). Only when stderr is a terminal, only after a short delay so fast answers show
 * nothing, and erased when the work ends, so the terminal keeps just the result.
 */
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { CliIO } from "../command/cliIO.js"

const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

/** Carriage return, then erase the line. */
export const clearLine = "\r\x1b[2K"

export interface ProgressOptions {
  readonly delay?: Duration.DurationInput
  readonly interval?: Duration.DurationInput
}

export const withProgress = <A, E, R>(
  label: string,
  effect: Effect.Effect<A, E, R>,
  options: ProgressOptions = {}
): Effect.Effect<A, E, R | CliIO> =>
  Effect.flatMap(CliIO, (io) => {
    if (!io.stderrIsTTY) return effect
    return Effect.gen(function*() {
      const started = yield* Clock.currentTimeMillis
      const frame = yield* Ref.make(0)
      const shown = yield* Ref.make(false)
      // Registered before the spinner fiber, so it runs after that fiber is interrupted: nothing redraws it.
      yield* Effect.addFinalizer(() =>
        Effect.flatMap(Ref.get(shown), (wasShown) => wasShown ? io.stderr(clearLine) : Effect.void)
      )
      const draw = Effect.gen(function*() {
        const elapsed = (yield* Clock.currentTimeMillis) - started
        const index = yield* Ref.getAndUpdate(frame, (n) => (n + 1) % frames.length)
        yield* io.stderr(`${clearLine}${frames[index]} ${label} ${(elapsed / 1000).toFixed(1)} s`)
        yield* Ref.set(shown, true)
      })
      yield* Effect.sleep(options.delay ?? "400 millis").pipe(
        Effect.zipRight(Effect.forever(Effect.zipRight(draw, Effect.sleep(options.interval ?? "100 millis")))),
        Effect.forkScoped
      )
      return yield* effect
    }).pipe(Effect.scoped)
  })
