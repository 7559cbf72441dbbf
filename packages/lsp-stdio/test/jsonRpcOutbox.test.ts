import { assert, describe, it } from "@effect/vitest"
import { LspError } from "@lsp-seam/lsp"
import { Chunk, Deferred, Effect, Exit, Fiber, Option, Ref, Sink, Stream } from "effect"
import * as Outbox from "../src/internal/wire/outbox.js"

const frame = (n: number) => new Uint8Array([n])

/** Runs the outbox's frames into a sink that records each pull's frames and waits for `gate` first. */
const drain = (outbox: Outbox.Outbox, gate: Effect.Effect<void> = Effect.void) =>
  Effect.gen(function*() {
    const pulls = yield* Ref.make<ReadonlyArray<ReadonlyArray<number>>>([])
    const sink = Sink.forEachChunk((chunk: Chunk.Chunk<Uint8Array>) =>
      Effect.zipRight(
        gate,
        Ref.update(pulls, (all) => [...all, Chunk.toReadonlyArray(chunk).map((bytes) => bytes[0]!)])
      )
    )
    const fiber = yield* Effect.fork(Stream.run(outbox.frames, sink))
    return { fiber, pulls: Ref.get(pulls) }
  })

const isDone = <A, E>(deferred: Deferred.Deferred<A, E>) => Deferred.isDone(deferred)

/** Lets every other fiber run until it waits. */
const settle = Effect.repeatN(Effect.yieldNow(), 9)

describe("outbox", () => {
  it.effect("hands everything queued in one step to the sink in one pull, in order", () =>
    Effect.gen(function*() {
      const outbox = yield* Outbox.make
      const { fiber, pulls } = yield* drain(outbox)
      yield* Effect.sync(() => [1, 2, 3].forEach((n) => outbox.offer(frame(n))))
      yield* settle
      yield* Effect.sync(() => outbox.offer(frame(4)))
      yield* Effect.sync(() => outbox.end())
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(yield* pulls, [[1, 2, 3], [4]])
    }))

  it.effect("completes a frame's written only when the sink asks for more", () =>
    Effect.gen(function*() {
      const outbox = yield* Outbox.make
      const gate = yield* Deferred.make<void>()
      yield* drain(outbox, Deferred.await(gate))
      const written = yield* Deferred.make<void, LspError.LspLocalError>()
      assert.isTrue(outbox.offer(frame(1), written))
      yield* settle
      assert.isFalse(yield* isDone(written), "the sink is still writing the frame")
      yield* Deferred.succeed(gate, void 0)
      yield* Deferred.await(written)
    }))

  it.effect("end lets what is queued go out, then ends the frames and refuses more", () =>
    Effect.gen(function*() {
      const outbox = yield* Outbox.make
      assert.isTrue(outbox.offer(frame(1)))
      assert.isTrue(outbox.offer(frame(2)))
      outbox.end()
      assert.isFalse(outbox.offer(frame(3)))
      const { fiber, pulls } = yield* drain(outbox)
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(yield* pulls, [[1, 2]])
    }))

  it.effect("abandon fails the frame being written and every queued one, and refuses more", () =>
    Effect.gen(function*() {
      const outbox = yield* Outbox.make
      yield* drain(outbox, Effect.never)
      const [inFlight, queued] = [
        yield* Deferred.make<void, LspError.LspLocalError>(),
        yield* Deferred.make<void, LspError.LspLocalError>()
      ]
      outbox.offer(frame(1), inFlight)
      yield* settle // the sink takes frame 1 and blocks
      outbox.offer(frame(2), queued)
      const broken = LspError.serverExited("gone")
      yield* outbox.abandon(broken)
      assert.deepStrictEqual(yield* Deferred.await(inFlight).pipe(Effect.exit), Exit.fail(broken))
      assert.deepStrictEqual(yield* Deferred.await(queued).pipe(Effect.exit), Exit.fail(broken))
      assert.isFalse(outbox.offer(frame(3)))
    }))

  it.effect("a frame queued before the writer starts is not lost", () =>
    Effect.gen(function*() {
      const outbox = yield* Outbox.make
      const written = yield* Deferred.make<void, LspError.LspLocalError>()
      outbox.offer(frame(7), written)
      const { fiber, pulls } = yield* drain(outbox)
      yield* settle
      outbox.end()
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(yield* pulls, [[7]])
      assert.isTrue(Option.isSome(yield* Deferred.poll(written)))
    }))
})
