/**
 * A fake language server as a `MemoryProgram`: it decodes what the host writes to its stdin, answers
 * requests with scripted handlers, and behaves like a well-mannered server around the lifecycle
 * (`initialize`, `shutdown`, `exit`, end of input) unless told otherwise.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Framing from "../Framing.js"
import { type FakeHandlers, type FakeReply, result, runFakeServer } from "./fakeServer.js"
import type { MemoryProcess, MemoryProgram } from "./memoryExecutor.js"

export interface FakeLanguageServerOptions {
  /** The `capabilities` answered to `initialize` (default: all four operations, full sync). */
  readonly capabilities?: unknown
  /** Handlers by method; they take precedence over the lifecycle defaults. */
  readonly handlers?: FakeHandlers
  /** Runs first, with the process: ignore SIGTERM, schedule a crash, write to stderr... */
  readonly onStart?: (process: MemoryProcess) => Effect.Effect<void>
  /** Whether the server leaves when its stdin ends, as orphan-aware servers do (default true). */
  readonly exitOnStdinEnd?: boolean
  /** Called for every notification the host sends, in order. */
  readonly onNotification?: (method: string, params: unknown, process: MemoryProcess) => Effect.Effect<void>
}

const defaultCapabilities = {
  textDocumentSync: 1,
  definitionProvider: true,
  referencesProvider: true,
  implementationProvider: true,
  hoverProvider: true
}

const isNotification = (message: unknown): message is { readonly method: string; readonly params?: unknown } =>
  typeof message === "object" && message !== null && "method" in message && typeof message.method === "string" &&
  !("id" in message)

export const fakeLanguageServer = (options: FakeLanguageServerOptions = {}): MemoryProgram => (process) =>
  Effect.scoped(Effect.gen(function*() {
    yield* options.onStart?.(process) ?? Effect.void
    const handlers: FakeHandlers = {
      initialize: () =>
        Effect.succeed<FakeReply>(result({ capabilities: options.capabilities ?? defaultCapabilities })),
      shutdown: () => Effect.succeed<FakeReply>(result(null)),
      ...options.handlers
    }
    const messages = process.stdin.pipe(
      Framing.decode({ maxMessageBytes: Number.MAX_SAFE_INTEGER }),
      Stream.orDie,
      Stream.tap((message) =>
        isNotification(message)
          ? Effect.gen(function*() {
            yield* options.onNotification?.(message.method, message.params, process) ?? Effect.void
            if (message.method === "exit") yield* process.exit(0)
          })
          : Effect.void
      )
    )
    const ended = yield* Effect.makeLatch(false)
    yield* runFakeServer(
      {
        messages: Stream.ensuring(messages, ended.open),
        send: (message) => process.writeStdout(Framing.encode(message))
      },
      handlers
    )
    // Like a real server whose client vanished: leave when stdin ends (or, if told not to, live on).
    yield* ended.await
    if (options.exitOnStdinEnd === false) yield* Effect.never
  }))
