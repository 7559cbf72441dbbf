/**
 * A JSON-RPC 2.0 client connection to a language server over a byte transport.
 *
 * One reader fiber decodes and dispatches what the server sends; one writer fiber streams every outgoing
 * frame, in order, from an outbox into the transport's sink (which stays open between messages until
 * `closeOutput`). Both live in the connection's scope. Any fatal fault — the input ending or failing, a
 * framing or JSON error, a failed write — fails every pending request with the same coded reason, and
 * every later call fails with it immediately. A valid JSON value that is not a valid JSON-RPC message is
 * logged, counted and skipped (failing the request it answers, if it names one).
 *
 * @since 0.1.0
 */
import { LspError } from "@lsp-seam/lsp"
import * as Cause from "effect/Cause"
import type * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import * as Framing from "./Framing.js"
import * as Answers from "./internal/wire/jsonRpcAnswers.js"
import * as Cancellation from "./internal/wire/jsonRpcCancellation.js"
import * as Message from "./internal/wire/jsonRpcMessage.js"
import * as Outbox from "./internal/wire/outbox.js"

/**
 * Raw bytes both ways; the connection does the framing.
 *
 * @since 0.1.0
 * @category models
 */
export interface Transport {
  /** What the server writes. Its end means the server closed its output. */
  readonly input: Stream.Stream<Uint8Array, LspError.LspLocalError>
  /**
   * Where the server's input goes: the connection runs one stream of complete frames into it, in order,
   * from one fiber. Its end (after `closeOutput`) should close the server's input; its failure is fatal.
   */
  readonly output: Sink.Sink<unknown, Uint8Array, never, LspError.LspLocalError>
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
  /**
   * Sees every server→client request (method and params), in order, on the reader fiber, just before its
   * fixed answer is queued: a registration a server makes this way (`client/registerCapability`) is then
   * known before anything the server sends after it. Synchronous: keep it quick. Default: ignore.
   */
  readonly onRequest?: (method: string, params: unknown) => void
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
  readonly describeEnd?: Effect.Effect<LspError.LspLocalError>
  /**
   * Builds the fatal error when writing fails (e.g. "server exited" when the write failed because the
   * process had just died). Default: the write's own error.
   */
  readonly describeWriteFailure?: (error: LspError.LspLocalError) => Effect.Effect<LspError.LspLocalError>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Connection {
  /**
   * Sends a request (ids are integers from 1) and waits for its response: `None` when the response has no
   * `result` member, `Some(null)` for `result: null`. An error response fails with `LSP_SERVER_ERROR`
   * (`detail`: `method`, `code`, `message` and `data` if any; a missing code reads -32603, a missing
   * message "(no message)"), an invalid message carrying the request's id with `LSP_MALFORMED_RESPONSE`;
   * both leave the connection usable.
   *
   * Interrupting the caller sends `$/cancelRequest` at once and releases the caller at once; whether the
   * server then settles the request within the grace is reported by `awaitCancelled`.
   */
  readonly request: (method: string, params: unknown) => Effect.Effect<Option.Option<unknown>, LspError.LspLocalError>
  /** Sends a notification; succeeds once it has been written. */
  readonly notify: (method: string, params?: unknown) => Effect.Effect<void, LspError.LspLocalError>
  /**
   * Queues a notification without waiting for it to be written: it goes out in order with everything
   * queued before and after it, often in the same write. Fails only when the connection has already failed
   * or its output is closed; a write that fails later makes the connection fatal, which every pending and
   * later call reports.
   */
  readonly post: (method: string, params?: unknown) => Effect.Effect<void, LspError.LspLocalError>
  /**
   * Writes what is queued, then ends the output (closing the server's input), and waits until that is
   * done or the connection has failed. Later messages fail with `LSP_DISPOSED`.
   */
  readonly closeOutput: Effect.Effect<void>
  /**
   * Waits until no interrupted request is within its grace any more (each has settled or expired). `true`
   * if all settled in time; `false` once any has expired (and stays `false`: that server ignores
   * cancellation).
   */
  readonly awaitCancelled: Effect.Effect<boolean>
  /** Makes the connection fatal with `error` (e.g. when the process exits). The first reason wins. */
  readonly fail: (error: LspError.LspLocalError) => Effect.Effect<void>
  /** Waits for the fatal reason. */
  readonly failure: Effect.Effect<LspError.LspLocalError>
  /** False once the connection has failed or been closed. */
  readonly isOpen: Effect.Effect<boolean>
  /**
   * How many frames so far held valid JSON that was not a valid JSON-RPC message (each was logged as a
   * warning): skipped, failing the request it answered, or an error response whose code or message had
   * to be filled in. Optional so that hand-made connections need not provide it.
   */
  readonly malformedFrames?: Effect.Effect<number>
}

interface Pending {
  readonly method: string
  readonly response: Deferred.Deferred<Option.Option<unknown>, LspError.LspLocalError>
}

const endedError = LspError.transportFailed("The language server closed its output.")

const outputClosed = LspError.disposed("The connection's output to the language server has been closed.")

const unexpected = (cause: Cause.Cause<LspError.LspLocalError>): LspError.LspLocalError =>
  Option.getOrElse(
    Cause.failureOption(cause),
    () =>
      LspError.transportFailed("The connection to the language server failed unexpectedly.", {
        cause: Cause.pretty(cause)
      })
  )

/**
 * Opens a connection over `transport`. Closing the scope stops both fibers and fails whatever is pending
 * with `LSP_DISPOSED`.
 *
 * @since 0.1.0
 * @category constructors
 */
// Long on purpose (~220 lines): one connection's state — pending requests, the failure, the outbox — is
// shared by its writer, reader, cancellation and API, each a short section below; split apart, every part
// would take that state as arguments.
export const make = (
  transport: Transport,
  options: ConnectionOptions
): Effect.Effect<Connection, never, Scope.Scope> =>
  Effect.gen(function*() {
    const outbox = yield* Outbox.make
    const outputDone = yield* Deferred.make<void>()
    const closed = yield* Deferred.make<LspError.LspLocalError>()
    const configuration = options.configuration ?? null
    const onNotification = options.onNotification ?? (() => Effect.void)
    const onCancelExpired = options.onCancelExpired ?? (() => Effect.void)
    const observeRequest = options.onRequest ?? (() => {})

    // Mutable state, only ever touched inside synchronous steps, so each check-and-update is atomic.
    const pending = new Map<number, Pending>()
    let nextId = 1
    let failure: LspError.LspLocalError | undefined = undefined
    let malformed = 0

    const fatal = (error: LspError.LspLocalError): Effect.Effect<void> =>
      Effect.uninterruptible(Effect.suspend(() => {
        if (failure !== undefined) return Effect.void
        failure = error
        for (const request of pending.values()) Deferred.unsafeDone(request.response, Exit.fail(error))
        pending.clear()
        return Effect.zipRight(outbox.abandon(error), Deferred.succeed(closed, error))
      }))

    /** Queues a frame unless the connection has failed; never waits, so the reader can use it too. */
    const enqueue = (message: unknown, written?: Outbox.Written): Either.Either<void, LspError.LspLocalError> => {
      if (failure !== undefined) return Either.left(failure)
      return outbox.offer(Framing.encode(message), written) ? Either.void : Either.left(outputClosed)
    }

    // --- writer ---------------------------------------------------------------------------------------

    const describeWriteFailure = options.describeWriteFailure ?? Effect.succeed

    yield* outbox.frames.pipe(
      Stream.run(transport.output),
      Effect.catchAll((error) => Effect.flatMap(describeWriteFailure(error), fatal)),
      Effect.catchAllCause((cause) => fatal(unexpected(cause))),
      Effect.ensuring(Deferred.succeed(outputDone, void 0)),
      Effect.forkScoped
    )

    // --- reader ---------------------------------------------------------------------------------------

    const warnMalformed = (what: string, issue: string) => {
      malformed++
      return Effect.logWarning(`The language server sent ${what}.`).pipe(Effect.annotateLogs("jsonrpc.issue", issue))
    }

    /** Settles the request a response answers; a response to an unknown id is only logged. */
    const onResponse = (response: Message.IncomingResponse): Effect.Effect<void> | undefined => {
      const outcome = Message.outcome(response)
      const repaired = outcome._tag === "Error" && outcome.repaired !== undefined
        ? warnMalformed("an error response that is missing parts; delivered with defaults", outcome.repaired)
        : undefined
      const id = response.id
      const entry = typeof id === "number" ? pending.get(id) : undefined
      if (typeof id !== "number" || entry === undefined) {
        return Effect.logDebug("Dropped a response to an unknown request id.").pipe(
          Effect.annotateLogs("jsonrpc.id", String(id)),
          Effect.zipRight(repaired ?? Effect.void)
        )
      }
      pending.delete(id)
      Deferred.unsafeDone(
        entry.response,
        outcome._tag === "Error"
          ? Exit.fail(Message.serverError(entry.method, outcome.error))
          : Exit.succeed(outcome.result)
      )
      return repaired
    }

    /** A valid JSON value that is no JSON-RPC message: it fails the request it answers, if any, or is skipped. */
    const onInvalid = (message: unknown, issue: string): Effect.Effect<void> => {
      const id = Message.responseId(message)
      const entry = id === undefined ? undefined : pending.get(id)
      if (id === undefined || entry === undefined) {
        return warnMalformed("a message that is not JSON-RPC; skipped", issue)
      }
      pending.delete(id)
      Deferred.unsafeDone(entry.response, Exit.fail(Message.malformedResponse(entry.method, issue)))
      return warnMalformed(`a malformed response to request ${id}; it fails that request`, issue)
    }

    const onRequest = (id: Message.RequestId, method: string, params: unknown) => {
      observeRequest(method, params)
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
    const dispatch = (raw: unknown): Effect.Effect<void> | undefined => {
      if (raw instanceof Framing.OversizedMessage) return onOversized(raw)
      const decoded = Message.decodeIncoming(raw)
      if (Either.isLeft(decoded)) return onInvalid(raw, decoded.left)
      const message = decoded.right
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

    const decoder = Framing.makeDecoder({ maxMessageBytes: options.maxMessageBytes, oversized: "skip" })

    /**
     * A message over the frame limit, passed over (the stream goes on): the request it answers fails alone
     * with `LSP_RESPONSE_TOO_LARGE`; one for no pending request, or a notification, is only logged; when its
     * id cannot be read, every pending request fails, since any of them may be the one it answered.
     */
    const onOversized = (message: Framing.OversizedMessage): Effect.Effect<void> => {
      const tooLarge = (method: string) =>
        LspError.responseTooLarge(
          `The language server's answer to "${method}" is ${message.bytes} bytes, over the limit of ` +
            `${options.maxMessageBytes} bytes (maxMessageBytes): this query alone failed, and the server keeps ` +
            "running. Ask a narrower question, or raise maxMessageBytes in the server's configuration.",
          { method, bytes: message.bytes, limit: options.maxMessageBytes }
        )
      const entry = typeof message.id === "number" ? pending.get(message.id) : undefined
      if (entry !== undefined && typeof message.id === "number") {
        pending.delete(message.id)
        Deferred.unsafeDone(entry.response, Exit.fail(tooLarge(entry.method)))
        return Effect.void
      }
      if (message.id !== undefined) {
        // A late answer to a request already settled (cancelled, say), or a request of the server's own.
        return warnMalformed(`a message of ${message.bytes} bytes for id ${message.id}, over the limit; skipped`, "")
      }
      if (message.method !== undefined) {
        return warnMalformed(`a "${message.method}" message of ${message.bytes} bytes, over the limit; skipped`, "")
      }
      for (const [id, waiting] of pending) {
        pending.delete(id)
        Deferred.unsafeDone(waiting.response, Exit.fail(tooLarge(waiting.method)))
      }
      return warnMalformed(`a message of ${message.bytes} bytes, over the limit, whose id could not be read`, "")
    }

    /**
     * Decodes and dispatches everything a chunk of input completes, in order, in one step unless a message
     * needs an effect. Messages completed before a framing or JSON fault in the same chunk are dispatched,
     * then the fault is fatal.
     */
    const onInput = (chunks: Chunk.Chunk<Uint8Array>): Effect.Effect<void, LspError.LspLocalError> =>
      Effect.suspend(() => {
        const { fault, messages: raw } = Framing.pushAll(decoder, chunks)
        let index = 0
        const rest: Effect.Effect<void, LspError.LspLocalError> = Effect.suspend(() => {
          while (index < raw.length) {
            const effect = dispatch(raw[index++])
            if (effect !== undefined) return Effect.zipRight(effect, rest)
          }
          if (fault === undefined) return Effect.void
          // The decoder only throws LspErrors; anything else is a bug and surfaces as a defect.
          return LspError.isLspLocalError(fault) ? Effect.fail(fault) : Effect.die(fault)
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

    // --- cancellation ---------------------------------------------------------------------------------

    const cancellations = yield* Cancellation.make(options.cancelGrace)

    /** Sends `$/cancelRequest` and starts the grace without making the interrupted caller wait. */
    const cancel = (id: number, entry: Pending) =>
      Effect.suspend(() => {
        // Every way a request settles removes it from `pending` first.
        if (pending.get(id) !== entry) return Effect.void
        enqueue(Message.notification("$/cancelRequest", { id }))
        const expire = Effect.suspend(() => {
          // A late answer will now be dropped like any unknown id.
          if (pending.get(id) === entry) pending.delete(id)
          return onCancelExpired(id)
        })
        return cancellations.watch(Effect.exit(Deferred.await(entry.response)), expire)
      })

    // Runs before the fibers are interrupted, so callers learn at once that the connection is gone.
    yield* Effect.addFinalizer(() => fatal(LspError.disposed("The connection to the language server was closed.")))

    // --- API ------------------------------------------------------------------------------------------

    const request = (method: string, params: unknown): Effect.Effect<Option.Option<unknown>, LspError.LspLocalError> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(Deferred.make<Option.Option<unknown>, LspError.LspLocalError>(), (response) =>
          Effect.suspend(() => {
            const id = nextId
            const queued = enqueue(Message.request(id, method, params))
            if (Either.isLeft(queued)) {
              return Effect.fail(queued.left)
            }
            nextId++
            const entry: Pending = { method, response }
            pending.set(id, entry)
            return restore(Deferred.await(response)).pipe(Effect.onInterrupt(() =>
              cancel(id, entry)
            ))
          }))
      )

    const notify = (method: string, params?: unknown): Effect.Effect<void, LspError.LspLocalError> =>
      Effect.flatMap(Deferred.make<void, LspError.LspLocalError>(), (written) =>
        Effect.suspend(() => {
          const queued = enqueue(Message.notification(method, params), written)
          return Either.isLeft(queued) ? Effect.fail(queued.left) : Deferred.await(written)
        }))

    const post = (method: string, params?: unknown): Effect.Effect<void, LspError.LspLocalError> =>
      Effect.suspend(() => {
        const queued = enqueue(Message.notification(method, params))
        return Either.isLeft(queued) ? Effect.fail(queued.left) : Effect.void
      })

    const closeOutput: Effect.Effect<void> = Effect.suspend(() => {
      outbox.end()
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
      awaitCancelled: cancellations.awaitCancelled,
      fail: fatal,
      failure: Deferred.await(closed),
      isOpen: Effect.sync(() => failure === undefined),
      malformedFrames: Effect.sync(() => malformed)
    }
  })
