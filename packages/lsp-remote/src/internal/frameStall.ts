/**
 * When a connection has stalled in the middle of a frame. A client that sends part of a frame (a WebSocket
 * frame's header, half a request line) and then nothing holds the host's buffers and a connection slot for as
 * long as it likes; one idle between whole frames holds nothing and may stay. A connection is stalled once it
 * has been mid-frame for `timeoutMs` without completing a request line (time the host itself stopped reading it,
 * for backpressure, does not count).
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberHandle from "effect/FiberHandle"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"

export interface Watch {
  /** Bytes arrived: when they leave the connection mid-frame, its time starts (unless it runs already). */
  readonly arrived: () => void
  /** A whole request line arrived: the connection's time starts again if it is still mid-frame. */
  readonly progressed: () => void
  /** The host reads the connection again after a pause: the time it was paused is not the client's. */
  readonly resumed: () => void
  /** Succeeds once the connection has stalled mid-frame. */
  readonly stalled: Effect.Effect<void>
}

/**
 * A watch over one connection, ended with the scope. `midFrame` says whether a frame is begun and not complete;
 * `paused` whether the host has stopped reading the connection.
 */
export const make = (options: {
  readonly timeoutMs: number
  readonly midFrame: () => boolean
  readonly paused: () => boolean
}): Effect.Effect<Watch, never, Scope.Scope> =>
  Effect.gen(function*() {
    const run = yield* FiberHandle.makeRuntime<never>()
    const runtime = yield* Effect.runtime<never>()
    const now = () => Runtime.runSync(runtime)(Clock.currentTimeMillis)
    const stalled = yield* Deferred.make<void>()
    /** When the connection's current time started; undefined while it is not mid-frame. */
    let since: number | undefined
    const watch = Effect.gen(function*() {
      while (since !== undefined) {
        const at = yield* Clock.currentTimeMillis
        if (!options.midFrame()) {
          since = undefined
          return
        }
        if (options.paused()) since = at
        const due = since + options.timeoutMs
        if (at >= due) {
          yield* Deferred.succeed(stalled, undefined)
          return
        }
        yield* Effect.sleep(due - at)
      }
    })
    const arrived = () => {
      if (since !== undefined || !options.midFrame()) return
      since = now()
      // Replaces a watch that has seen its connection whole and is about to end.
      run(watch)
    }
    return {
      arrived,
      progressed: () => {
        since = undefined
        arrived()
      },
      resumed: () => {
        if (since !== undefined) since = now()
      },
      stalled: Deferred.await(stalled)
    }
  })
