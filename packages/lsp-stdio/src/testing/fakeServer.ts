/**
 * A scripted language server over any message channel: requests answered by handlers per method,
 * notifications recorded, `$/cancelRequest` signalled to the request it names. The public `testing` module
 * re-exports it; the in-memory language server builds on it.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** Where a fake server reads the client's messages and sends its own. */
export interface MessageChannel {
  readonly messages: Stream.Stream<unknown>
  readonly send: (message: unknown) => Effect.Effect<void>
}

/**
 * A request as the fake server sees it. `cancelled` completes when the client sends `$/cancelRequest`
 * for it.
 *
 * @since 0.1.0
 * @category models
 */
export interface FakeRequest {
  readonly id: number | string
  readonly method: string
  readonly params: unknown
  readonly cancelled: Effect.Effect<void>
}

/**
 * How the fake server answers one request.
 *
 * @since 0.1.0
 * @category models
 */
export type FakeReply =
  | { readonly _tag: "Result"; readonly result: unknown }
  | { readonly _tag: "Error"; readonly code: number; readonly message: string; readonly data?: unknown }
  | { readonly _tag: "NoReply" }

/**
 * @since 0.1.0
 * @category constructors
 */
export const result = (value: unknown): FakeReply => ({ _tag: "Result", result: value })

/**
 * @since 0.1.0
 * @category constructors
 */
export const error = (code: number, message: string, data?: unknown): FakeReply =>
  data === undefined ? { _tag: "Error", code, message } : { _tag: "Error", code, message, data }

/**
 * Answer nothing (the request stays pending on the client).
 *
 * @since 0.1.0
 * @category constructors
 */
export const noReply: FakeReply = { _tag: "NoReply" }

/**
 * Request handlers by method. Each request runs on its own fiber, so a slow handler blocks nobody.
 *
 * @since 0.1.0
 * @category models
 */
export type FakeHandlers = Readonly<Record<string, (request: FakeRequest) => Effect.Effect<FakeReply>>>

/**
 * What a running fake server has seen.
 *
 * @since 0.1.0
 * @category models
 */
export interface FakeServer {
  /** Every message received, in order. */
  readonly received: Effect.Effect<ReadonlyArray<unknown>>
  /** The notifications received, in order. */
  readonly notifications: Effect.Effect<ReadonlyArray<{ readonly method: string; readonly params: unknown }>>
}

const ClientMessage = Schema.Struct({
  id: Schema.optionalWith(Schema.Union(Schema.Number, Schema.String), { exact: true }),
  method: Schema.optionalWith(Schema.String, { exact: true }),
  params: Schema.optionalWith(Schema.Unknown, { exact: true })
})

const CancelParams = Schema.Struct({ id: Schema.Union(Schema.Number, Schema.String) })

/**
 * Runs a scripted language server on `server` for the rest of the scope: requests are answered by the
 * handler of their method (unknown methods get error -32601), notifications are recorded, and
 * `$/cancelRequest` signals the matching `FakeRequest.cancelled`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const runFakeServer = (
  server: MessageChannel,
  handlers: FakeHandlers
): Effect.Effect<FakeServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const received = yield* Ref.make<ReadonlyArray<unknown>>([])
    const notifications = yield* Ref.make<ReadonlyArray<{ readonly method: string; readonly params: unknown }>>([])
    const cancellations = new Map<number | string, Deferred.Deferred<void>>()

    const reply = (id: number | string, answer: FakeReply) => {
      switch (answer._tag) {
        case "NoReply":
          return Effect.void
        case "Result":
          return server.send({ jsonrpc: "2.0", id, result: answer.result })
        case "Error":
          return server.send({
            jsonrpc: "2.0",
            id,
            error: answer.data === undefined
              ? { code: answer.code, message: answer.message }
              : { code: answer.code, message: answer.message, data: answer.data }
          })
      }
    }

    const onRequest = (id: number | string, method: string, params: unknown, cancelled: Deferred.Deferred<void>) =>
      Effect.gen(function*() {
        const handler = handlers[method]
        const answer = handler === undefined
          ? error(-32601, `Unhandled method ${method}`)
          : yield* handler({ id, method, params, cancelled: Deferred.await(cancelled) })
        cancellations.delete(id)
        yield* reply(id, answer)
      })

    const onMessage = (raw: unknown) =>
      Effect.gen(function*() {
        yield* Ref.update(received, (all) => [...all, raw])
        const message = yield* Schema.decodeUnknown(ClientMessage)(raw).pipe(Effect.orDie)
        const method = message.method
        if (method === undefined) return // a response to a server request: only recorded
        if (message.id !== undefined) {
          // Registered before the handler starts, so that an immediate $/cancelRequest is not missed.
          const cancelled = yield* Deferred.make<void>()
          cancellations.set(message.id, cancelled)
          yield* Effect.forkScoped(onRequest(message.id, method, message.params, cancelled))
          return
        }
        yield* Ref.update(notifications, (all) => [...all, { method, params: message.params }])
        if (method === "$/cancelRequest" && Schema.is(CancelParams)(message.params)) {
          const cancelled = cancellations.get(message.params.id)
          if (cancelled !== undefined) yield* Deferred.succeed(cancelled, void 0)
        }
      })

    yield* Effect.forkScoped(Stream.runForEach(server.messages, onMessage))
    return { received: Ref.get(received), notifications: Ref.get(notifications) }
  })
