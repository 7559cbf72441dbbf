/**
 * Test doubles for the stdio host's wire layer: an in-memory transport whose far end is driven by the
 * test, and a scripted fake language server written as an Effect. Nothing here sleeps on its own; delays
 * a script adds run on the Effect Clock, so `TestClock` drives them.
 *
 * @since 0.1.0
 */
import type * as Command from "@effect/platform/Command"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import * as Take from "effect/Take"
import * as Framing from "./Framing.js"
import type * as JsonRpc from "./JsonRpc.js"
import * as FakeServerImpl from "./testing/fakeServer.js"
import * as MemoryExecutor from "./testing/memoryExecutor.js"
import * as MemoryLanguageServer from "./testing/memoryLanguageServer.js"

/**
 * The server's end of a memory transport.
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryServer {
  /** The messages the client wrote, decoded, in order. Consume either this or `take`, not both. */
  readonly messages: Stream.Stream<unknown>
  /** The next message the client writes. */
  readonly take: Effect.Effect<unknown>
  /** Frames `message` and delivers it to the client. */
  readonly send: (message: unknown) => Effect.Effect<void>
  /** Delivers raw bytes to the client (partial frames, garbage, banners...). */
  readonly sendBytes: (bytes: Uint8Array) => Effect.Effect<void>
  /** Ends the client's input, as a server closing its stdout. */
  readonly end: Effect.Effect<void>
  /** Fails the client's input with `error`. */
  readonly failInput: (error: LspError.LspLocalError) => Effect.Effect<void>
  /** Makes every later client write fail with `error`. */
  readonly failWrites: (error: LspError.LspLocalError) => Effect.Effect<void>
  /** Makes client writes block until `releaseWrites` (a server that stops reading its input). */
  readonly holdWrites: Effect.Effect<void>
  /** Lets blocked and later client writes through again. */
  readonly releaseWrites: Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface MemoryTransport {
  /** The client's end, for `JsonRpc.make`. */
  readonly transport: JsonRpc.Transport
  readonly server: MemoryServer
}

/**
 * Makes a connected pair of ends, released with the scope. Bytes the client writes are decoded with the
 * real framing decoder, so a malformed frame fails the client's write.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemoryTransport: Effect.Effect<MemoryTransport, never, Scope.Scope> = Effect.gen(function*() {
  const toClient = yield* Effect.acquireRelease(
    Queue.unbounded<Take.Take<Uint8Array, LspError.LspLocalError>>(),
    Queue.shutdown
  )
  const fromClient = yield* Effect.acquireRelease(Queue.unbounded<unknown>(), Queue.shutdown)
  const writeFailure = yield* Ref.make<LspError.LspLocalError | undefined>(undefined)
  const writesOpen = yield* Effect.makeLatch(true)
  const decoder = Framing.makeDecoder({ maxMessageBytes: Number.MAX_SAFE_INTEGER })

  const write = (bytes: Uint8Array): Effect.Effect<void, LspError.LspLocalError> =>
    writesOpen.await.pipe(
      Effect.zipRight(Ref.get(writeFailure)),
      Effect.flatMap((failure) => failure === undefined ? Effect.void : Effect.fail(failure)),
      Effect.zipRight(Effect.try({
        try: () => decoder.push(bytes),
        catch: (error) => LspError.isLspLocalError(error) ? error : LspError.protocolError(String(error))
      })),
      Effect.flatMap((messages) => Queue.offerAll(fromClient, messages)),
      Effect.asVoid
    )

  return {
    transport: {
      input: Stream.flattenTake(Stream.fromQueue(toClient)),
      output: Sink.forEach(write)
    },
    server: {
      messages: Stream.fromQueue(fromClient),
      take: Queue.take(fromClient),
      send: (message) => Queue.offer(toClient, Take.of(Framing.encode(message))),
      sendBytes: (bytes) => Queue.offer(toClient, Take.of(bytes)),
      end: Queue.offer(toClient, Take.end),
      failInput: (error) => Queue.offer(toClient, Take.fail(error)),
      failWrites: (error) => Ref.set(writeFailure, error),
      holdWrites: writesOpen.close,
      releaseWrites: writesOpen.open
    }
  }
})

/**
 * A request as the fake server sees it. `cancelled` completes when the client sends `$/cancelRequest`
 * for it.
 *
 * @since 0.1.0
 * @category models
 */
export type FakeRequest = FakeServerImpl.FakeRequest

/**
 * How the fake server answers one request.
 *
 * @since 0.1.0
 * @category models
 */
export type FakeReply = FakeServerImpl.FakeReply

/**
 * @since 0.1.0
 * @category constructors
 */
export const result: (value: unknown) => FakeReply = FakeServerImpl.result

/**
 * @since 0.1.0
 * @category constructors
 */
export const error: (code: number, message: string, data?: unknown) => FakeReply = FakeServerImpl.error

/**
 * Answer nothing (the request stays pending on the client).
 *
 * @since 0.1.0
 * @category constructors
 */
export const noReply: FakeReply = FakeServerImpl.noReply

/**
 * Request handlers by method. Each request runs on its own fiber, so a slow handler blocks nobody.
 *
 * @since 0.1.0
 * @category models
 */
export type FakeHandlers = FakeServerImpl.FakeHandlers

/**
 * What a running fake server has seen.
 *
 * @since 0.1.0
 * @category models
 */
export type FakeServer = FakeServerImpl.FakeServer

/**
 * Runs a scripted language server on `server` for the rest of the scope: requests are answered by the
 * handler of their method (unknown methods get error -32601), notifications are recorded, and
 * `$/cancelRequest` signals the matching `FakeRequest.cancelled`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const runFakeServer: (
  server: Pick<MemoryServer, "messages" | "send">,
  handlers: FakeHandlers
) => Effect.Effect<FakeServer, never, Scope.Scope> = FakeServerImpl.runFakeServer

/**
 * A process of the in-memory `CommandExecutor`, as its fake program sees it: its stdin, stdout and
 * stderr, its signals, and a way to exit.
 *
 * @since 0.1.0
 * @category models
 */
export type MemoryProcess = MemoryExecutor.MemoryProcess

/**
 * A fake program: the main fiber of an in-memory process.
 *
 * @since 0.1.0
 * @category models
 */
export type MemoryProgram = MemoryExecutor.MemoryProgram

/**
 * An in-memory `CommandExecutor` whose processes are Effects chosen by `programFor` (by the command's
 * arguments, say; `undefined` fails the spawn). Nothing is spawned, and every delay, grace period and
 * timeout of the host runs on the Effect Clock, so `TestClock` drives the real host: pool, queue,
 * handshake, cancel grace, kill escalation and crash retry. Use it with `LspStdio.layer(config, { local:
 * false })`, a real `FileSystem` and `Path` (the host reads sources and resolves commands there: point
 * `command` at an existing executable such as `process.execPath`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemoryExecutor = (
  programFor: (command: Command.StandardCommand) => MemoryProgram | undefined
): Layer.Layer<CommandExecutor.CommandExecutor> =>
  Layer.effect(CommandExecutor.CommandExecutor, MemoryExecutor.make(programFor))

/**
 * @since 0.1.0
 * @category models
 */
export type FakeLanguageServerOptions = MemoryLanguageServer.FakeLanguageServerOptions

/**
 * A fake language server program for `layerMemoryExecutor`: answers `initialize` with the given
 * capabilities and `shutdown` with null, exits on `exit` or when stdin ends, and answers every other
 * request from `handlers` (unknown methods get -32601).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fakeLanguageServer = (options?: FakeLanguageServerOptions): MemoryProgram =>
  MemoryLanguageServer.fakeLanguageServer(options)
