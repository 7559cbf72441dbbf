/**
 * A JSON-RPC 2.0 client connection to a language server over a byte transport.
 *
 * One reader fiber decodes and dispatches what the server sends; one writer fiber streams every outgoing
 * frame, in order, from a queue into the transport's sink (which stays open between messages until
 * `closeOutput`). Both live in the connection's scope. Any fatal fault — the input ending or failing, a framing or protocol violation, a
 * failed write — fails every pending request with the same coded reason, and every later call fails with
 * it immediately.
 *
 * @since 0.1.0
 */
import { LspError } from "@lsp-seam/lsp"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import * as Framing from "./Framing.js"
import * as Answers from "./internal/jsonRpcAnswers.js"
import * as Message from "./internal/jsonRpcMessage.js"

/**
 * Raw bytes both ways; the connection does the framing.
 *
 * @since 0.1.0
 * @category models
 */
export interface Transport {
  /** What the server writes. Its end means the server closed its output. */
  readonly input: Stream.Stream<Uint8Array, LspError.LspError>
  /**
   * Where the server's input goes: the connection runs one stream of complete frames into it, in order,
   * from one fiber. Its end (after `closeOutput`) should close the server's input; its failure is fatal.
   */
  readonly output: Sink.Sink<unknown, Uint8Array, never, LspError.LspError>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ConnectionOptions {
  /** The largest inbound message body, in bytes. */
  readonly maxMessageBytes: number
  /** The answer to every item of a `workspace/configuration` request (default `null`). */
  readonly configuration?: unknown
  /**
   * Receives every server notification, in order, on the reader fiber: keep it quick. Default: ignore.
   */
  readonly onNotification?: (method: string, params: unknown) => Effect.Effect<void>
  /** How long an interrupted request may take to settle after `$/cancelRequest` (timed on the Clock). */
  readonly cancelGrace: Duration.DurationInput
  /**
   * Called, on a fiber owned by the connection's scope, for each interrupted request that did not settle
   * within the grace. It must not wait for that scope to close (fork such work elsewhere).
   */
  readonly onCancelExpired?: (id: number) => Effect.Effect<void>
  /**
   * Builds the fatal error when the input ends (e.g. "server exited" with the stderr tail). Default: an
   * `LSP_TRANSPORT_FAILED` error.
   */
  readonly describeEnd?: Effect.Effect<LspError.LspError>
  /**
   * Builds the fatal error when writing fails (e.g. "server exited" when the write failed because the
   * process had just died). Default: the write's own error.
   */
  readonly describeWriteFailure?: (error: LspError.LspError) => Effect.Effect<LspError.LspError>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Connection {
  /**
   * Sends a request (ids are integers from 1) and waits for its response: `None` when the response has no
   * `result` member, `Some(null)` for `result: null`. An error response fails with `LSP_SERVER_ERROR`
   * (`detail`: `method`, `code`, `message` and `data` if any) and leaves the connection usable.
   *
   * Interrupting the caller sends `$/cancelRequest` at once and releases the caller at once; whether the
   * server then settles the request within the grace is reported by `awaitCancelled`.
   */
  readonly request: (method: string, params: unknown) => Effect.Effect<Option.Option<unknown>, LspError.LspError>
  /** Sends a notification; succeeds once it has been written. */
  readonly notify: (method: string, params?: unknown) => Effect.Effect<void, LspError.LspError>
  /**
   * Queues a notification without waiting for it to be written: it goes out in order with everything
   * queued before and after it, often in the same write. Fails only when the connection has already failed
   * or its output is closed; a write that fails later makes the connection fatal, which every pending and
   * later call reports.
   */
  readonly post: (method: string, params?: unknown) => Effect.Effect<void, LspError.LspError>
  /**
   * Writes what is queued, then ends the output (closing the server's input), and waits until that is
   * done or the connection has failed. Later messages fail with `LSP_DISPOSED`.
   */
  readonly closeOutput: Effect.Effect<void>
  /**
   * Waits until every request interrupted so far has settled or passed its grace. `true` if all settled in
   * time; `false` once any has expired (and stays `false`: that server ignores cancellation).
   */
  readonly awaitCancelled: Effect.Effect<boolean>
  /** Makes the connection fatal with `error` (e.g. when the process exits). The first reason wins. */
  readonly fail: (error: LspError.LspError) => Effect.Effect<void>
  /** Waits for the fatal reason. */
  readonly failure: Effect.Effect<LspError.LspError>
  /** False once the connection has failed or been closed. */
  readonly isOpen: Effect.Effect<boolean>
}

interface Outgoing {
  readonly frame: Uint8Array
  /** Completed when the frame has been written (or failed when it never will be). */
  readonly written?: Deferred.Deferred<void, LspError.LspError>
}

/** Queued after the last frame by `closeOutput`. */
const endOfOutput = { end: true } as const

type Queued = Outgoing | typeof endOfOutput

interface Pending {
  readonly method: string
  readonly response: Deferred.Deferred<Option.Option<unknown>, LspError.LspError>
}

const endedError = LspError.transportFailed("The language server closed its output.")

const outputClosed = LspError.disposed("The connection's output to the language server has been closed.")

const unexpected = (cause: Cause.Cause<LspError.LspError>): LspError.LspError =>
  Option.getOrElse(
    Cause.failureOption(cause),
    () =>
      LspError.transportFailed("The connection to the language server failed unexpectedly.", {
        cause: Cause.pretty(cause)
      })
  )

const serverError = (method: string, error: Message.ResponseError): LspError.LspError =>
  LspError.serverError(
    `The language server failed the "${method}" request (JSON-RPC error ${error.code}): ${error.message}`,
    error.data === undefined
      ? { method, code: error.code, message: error.message }
      : { method, code: error.code, message: error.message, data: error.data }
  )

/**
 * Opens a connection over `transport`. Closing the scope stops both fibers and fails whatever is pending
 * with `LSP_DISPOSED`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  transport: Transport,
  options: ConnectionOptions
): Effect.Effect<Connection, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    // Frames waiting for the writer, and the writer's wake-up when it waits for one.
    const outbox: Array<Queued> = []
    let wakeWriter: Deferred.Deferred<void> | undefined = undefined
    const outputDone = yield* Deferred.make<void>()
    const closed = yield* Deferred.make<LspError.LspError>()
    const graceMillis = Duration.toMillis(Duration.decode(options.cancelGrace))
    const configuration = options.configuration ?? null
    const onNotification = options.onNotification ?? (() => Effect.void)
    const onCancelExpired = options.onCancelExpired ?? (() => Effect.void)

    // Mutable state, only ever touched inside synchronous steps, so each check-and-update is atomic.
    const pending = new Map<number, Pending>()
    const cancellations = new Set<Deferred.Deferred<void>>()
    let nextId = 1
    let failure: LspError.LspError | undefined = undefined
    let outputClosing = false
    /** Frames handed to the sink and not yet acknowledged: written once the sink asks for more. */
    let inFlight: ReadonlyArray<Outgoing> = []
    let anyCancelExpired = false

    const fatal = (error: LspError.LspError): Effect.Effect<void> =>
      Effect.uninterruptible(Effect.suspend(() => {
        if (failure !== undefined) return Effect.void
        failure = error
        const requests = Array.from(pending.values())
        pending.clear()
        const writing = inFlight
        inFlight = []
        return Effect.gen(function*() {
          for (const request of requests) yield* Deferred.fail(request.response, error)
          const unsent = outbox.splice(0)
          for (const queued of [...writing, ...unsent]) {
            if ("written" in queued && queued.written !== undefined) yield* Deferred.fail(queued.written, error)
          }
          yield* Deferred.succeed(closed, error)
        })
      }))

    const offer = (queued: Queued) => {
      outbox.push(queued)
      const wake = wakeWriter
      wakeWriter = undefined
      if (wake !== undefined) Deferred.unsafeDone(wake, Exit.void)
    }

    /** Queues a frame unless the connection has failed; never waits, so the reader can use it too. */
    const enqueue = (message: unknown, written?: Outgoing["written"]): Either.Either<void, LspError.LspError> => {
      if (failure !== undefined) return Either.left(failure)
      if (outputClosing) return Either.left(outputClosed)
      const frame = Framing.encode(message)
      offer(written === undefined ? { frame } : { frame, written })
      return Either.void
    }

    // --- writer ---------------------------------------------------------------------------------------

    /** Acknowledges the frames of the previous pull: the sink asking for more means it has written them. */
    const acknowledge = () => {
      const written = inFlight
      inFlight = []
      for (const outgoing of written) {
        if (outgoing.written !== undefined) Deferred.unsafeDone(outgoing.written, Exit.void)
      }
    }

    let ending = false
    /** Everything queued since the last pull, once there is something; `None` ends the output. */
    const nextBatch: Effect.Effect<Chunk.Chunk<Uint8Array>, Option.Option<never>> = Effect.suspend(() => {
      acknowledge()
      if (ending) return Effect.fail(Option.none())
      if (outbox.length === 0) {
        const wake = Deferred.unsafeMake<void>(FiberId.none)
        wakeWriter = wake
        return Effect.zipRight(Deferred.await(wake), nextBatch)
      }
      const batch: Array<Outgoing> = []
      for (const queued of outbox.splice(0)) {
        if ("end" in queued) {
          ending = true
          break
        }
        batch.push(queued)
      }
      const failed = failure
      if (failed !== undefined) {
        // Taken just as the connection failed: these will never be written.
        for (const outgoing of batch) {
          if (outgoing.written !== undefined) Deferred.unsafeDone(outgoing.written, Exit.fail(failed))
        }
        return Effect.fail(Option.none())
      }
      if (batch.length === 0) return Effect.fail(Option.none())
      inFlight = batch
      return Effect.succeed(Chunk.unsafeFromArray(batch.map((outgoing) => outgoing.frame)))
    })
    const frames = Stream.repeatEffectChunkOption(nextBatch)
    const describeWriteFailure = options.describeWriteFailure ?? Effect.succeed

    yield* frames.pipe(
      Stream.run(transport.output),
      Effect.catchAll((error) => Effect.flatMap(describeWriteFailure(error), fatal)),
      Effect.catchAllCause((cause) => fatal(unexpected(cause))),
      Effect.ensuring(Deferred.succeed(outputDone, void 0)),
      Effect.forkScoped
    )

    // --- reader ---------------------------------------------------------------------------------------

    /** Settles the request a response answers; a response to an unknown id is only logged. */
    const onResponse = (response: Message.IncomingResponse): Effect.Effect<void> | undefined => {
      const id = response.id
      const entry = typeof id === "number" ? pending.get(id) : undefined
      if (typeof id !== "number" || entry === undefined) {
        return Effect.logDebug("Dropped a response to an unknown request id.").pipe(
          Effect.annotateLogs("jsonrpc.id", String(id))
        )
      }
      pending.delete(id)
      const outcome = Message.outcome(response)
      Deferred.unsafeDone(
        entry.response,
        outcome._tag === "Error" ? Exit.fail(serverError(entry.method, outcome.error)) : Exit.succeed(outcome.result)
      )
      return undefined
    }

    const onRequest = (id: Message.RequestId, method: string, params: unknown) => {
      const answer = Answers.answer(method, params, configuration)
      // If the connection has already failed there is nobody left to answer.
      enqueue(
        answer._tag === "Result"
          ? Message.resultResponse(id, answer.result)
          : Message.errorResponse(id, answer.code, answer.message)
      )
    }

    /**
     * Handles one message synchronously where it can (responses, requests); what needs an effect (a
     * notification's handler, a log line) is returned, to run before the next message.
     */
    const dispatch = (message: Message.Incoming): Effect.Effect<void> | undefined => {
      switch (message.kind) {
        case "response":
          return onResponse(message)
        case "request":
          onRequest(message.id, message.method, message.params)
          return undefined
        case "notification":
          return onNotification(message.method, message.params)
      }
    }

    const decoder = Framing.makeDecoder({ maxMessageBytes: options.maxMessageBytes })

    /**
     * Decodes and dispatches everything a chunk of input completes, in order, in one step unless a message
     * needs an effect. Messages completed before a fault in the same chunk are dispatched, then the fault
     * is fatal.
     */
    const onInput = (chunks: Chunk.Chunk<Uint8Array>): Effect.Effect<void, LspError.LspError> =>
      Effect.suspend(() => {
        const { fault, messages: raw } = Framing.pushAll(decoder, chunks)
        let index = 0
        const rest: Effect.Effect<void, LspError.LspError> = Effect.suspend(() => {
          while (index < raw.length) {
            const message = Message.decodeIncoming(raw[index++])
            if (Either.isLeft(message)) return Effect.fail(message.left)
            const effect = dispatch(message.right)
            if (effect !== undefined) return Effect.zipRight(effect, rest)
          }
          if (fault === undefined) return Effect.void
          // The decoder only throws LspErrors; anything else is a bug and surfaces as a defect.
          return LspError.isLspError(fault) ? Effect.fail(fault) : Effect.die(fault)
        })
        return rest
      })

    yield* transport.input.pipe(
      Stream.runForEachChunk(onInput),
      Effect.zipRight(options.describeEnd ?? Effect.succeed(endedError)),
      Effect.catchAllCause((cause) => Effect.succeed(unexpected(cause))),
      Effect.flatMap(fatal),
      Effect.forkScoped
    )

    // Runs before the fibers are interrupted, so callers learn at once that the connection is gone.
    yield* Effect.addFinalizer(() => fatal(LspError.disposed("The connection to the language server was closed.")))

    // --- cancellation ---------------------------------------------------------------------------------

    /** Waits, on the connection's scope, for an interrupted request to settle until `deadline`. */
    const watchCancellation = (id: number, entry: Pending, deadline: number, done: Deferred.Deferred<void>) =>
      Effect.gen(function*() {
        const remaining = deadline - (yield* Clock.currentTimeMillis)
        const settled = (yield* Deferred.isDone(entry.response)) || (yield* Deferred.await(entry.response).pipe(
          Effect.exit,
          Effect.as(true),
          Effect.timeoutTo({
            duration: Duration.millis(Math.max(0, remaining)),
            onSuccess: (settled) => settled,
            onTimeout: () => false
          })
        ))
        if (!settled) {
          anyCancelExpired = true
          // A late answer will now be dropped like any unknown id.
          if (pending.get(id) === entry) pending.delete(id)
        }
        cancellations.delete(done)
        yield* Deferred.succeed(done, void 0)
        if (!settled) yield* onCancelExpired(id)
      }).pipe(
        Effect.onInterrupt(() =>
          Effect.suspend(() => {
            cancellations.delete(done)
            return Deferred.succeed(done, void 0)
          })
        )
      )

    /** Sends `$/cancelRequest` and starts the grace without making the interrupted caller wait. */
    const cancel = (id: number, entry: Pending) =>
      Effect.gen(function*() {
        if (pending.get(id) !== entry || (yield* Deferred.isDone(entry.response))) return
        enqueue(Message.notification("$/cancelRequest", { id }))
        const deadline = (yield* Clock.currentTimeMillis) + graceMillis
        const done = yield* Deferred.make<void>()
        cancellations.add(done)
        // Forked from an interruption handler, the watcher would inherit its uninterruptibility, and then
        // its own timeout could never fire.
        yield* Effect.forkIn(Effect.interruptible(watchCancellation(id, entry, deadline, done)), scope)
      })

    // --- API ------------------------------------------------------------------------------------------

    const request = (method: string, params: unknown): Effect.Effect<Option.Option<unknown>, LspError.LspError> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(Deferred.make<Option.Option<unknown>, LspError.LspError>(), (response) =>
          Effect.suspend(() => {
            const id = nextId
            const queued = enqueue(Message.request(id, method, params))
            if (Either.isLeft(queued)) return Effect.fail(queued.left)
            nextId++
            const entry: Pending = { method, response }
            pending.set(id, entry)
            return restore(Deferred.await(response)).pipe(Effect.onInterrupt(() => cancel(id, entry)))
          }))
      )

    const notify = (method: string, params?: unknown): Effect.Effect<void, LspError.LspError> =>
      Effect.flatMap(Deferred.make<void, LspError.LspError>(), (written) =>
        Effect.suspend(() => {
          const queued = enqueue(Message.notification(method, params), written)
          return Either.isLeft(queued) ? Effect.fail(queued.left) : Deferred.await(written)
        }))

    const post = (method: string, params?: unknown): Effect.Effect<void, LspError.LspError> =>
      Effect.suspend(() => {
        const queued = enqueue(Message.notification(method, params))
        return Either.isLeft(queued) ? Effect.fail(queued.left) : Effect.void
      })

    const awaitCancelled: Effect.Effect<boolean> = Effect.suspend(() =>
      Effect.forEach(Array.from(cancellations), Deferred.await, { discard: true })
    ).pipe(Effect.map(() => !anyCancelExpired))

    const closeOutput: Effect.Effect<void> = Effect.suspend(() => {
      if (!outputClosing) {
        outputClosing = true
        offer(endOfOutput)
      }
      // Each side opts into interruption: called from a finaliser, the losing wait could not be stopped.
      return Effect.raceFirst(
        Effect.interruptible(Deferred.await(outputDone)),
        Effect.interruptible(Effect.asVoid(Deferred.await(closed)))
      )
    })

    return {
      request,
      notify,
      post,
      closeOutput,
      awaitCancelled,
      fail: fatal,
      failure: Deferred.await(closed),
      isOpen: Effect.sync(() => failure === undefined)
    }
  })
