/**
 * A connection's outgoing frames: a `Mailbox` filled in order from synchronous steps and drained by one
 * writer fiber, batch by batch. The one thing the library does not give is the per-frame acknowledgement:
 * a frame counts as written once the sink asks for the next batch.
 *
 * @internal
 */
import type { LspError } from "@lsp-seam/lsp"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"

/** Completed when its frame has been written, or failed when it never will be. */
export type Written = Deferred.Deferred<void, LspError.LspLocalError>

interface Outgoing {
  readonly frame: Uint8Array
  readonly written: Written | undefined
}

export interface Outbox {
  /** Queues a frame without waiting; `false` once the outbox has ended or been abandoned. */
  readonly offer: (frame: Uint8Array, written?: Written) => boolean
  /** Ends the outbox: what is queued still goes out, then `frames` ends. */
  readonly end: () => void
  /** Fails `written` of every frame not yet written with `error` and refuses later offers. */
  readonly abandon: (error: LspError.LspLocalError) => Effect.Effect<void>
  /** Everything queued since the last pull, in order; to be run once, into the sink. */
  readonly frames: Stream.Stream<Uint8Array>
}

const failAll = (outgoing: Iterable<Outgoing>, error: LspError.LspLocalError) => {
  for (const { written } of outgoing) if (written !== undefined) Deferred.unsafeDone(written, Exit.fail(error))
}

const frameOf = (outgoing: Outgoing) => outgoing.frame

export const make: Effect.Effect<Outbox> = Effect.map(Mailbox.make<Outgoing>(), (mailbox) => {
  let abandoned: LspError.LspLocalError | undefined = undefined
  /** Handed to the sink and not yet acknowledged. */
  let inFlight: Chunk.Chunk<Outgoing> = Chunk.empty()

  const ended = Effect.fail(Option.none())

  const batch = Effect.flatMap(mailbox.takeAll, ([taken]) => {
    if (abandoned !== undefined) {
      // Taken just as the outbox was abandoned: these will never be written.
      failAll(taken, abandoned)
      return ended
    }
    if (taken.length === 0) return ended
    inFlight = taken
    return Effect.succeed(Chunk.map(taken, frameOf))
  })

  /** The sink asking for more means it has written the previous batch. */
  const pull = Effect.suspend(() => {
    const written = inFlight
    inFlight = Chunk.empty()
    for (const outgoing of written) {
      if (outgoing.written !== undefined) Deferred.unsafeDone(outgoing.written, Exit.void)
    }
    return batch
  })

  return {
    offer: (frame, written) => abandoned === undefined && mailbox.unsafeOffer({ frame, written }),
    end: () => {
      mailbox.unsafeDone(Exit.void)
    },
    abandon: (error) =>
      Effect.suspend(() => {
        abandoned = error
        const writing = inFlight
        inFlight = Chunk.empty()
        failAll(writing, error)
        return Effect.map(mailbox.clear, (unsent) => failAll(unsent, error))
      }),
    frames: Stream.repeatEffectChunkOption(pull)
  }
})
