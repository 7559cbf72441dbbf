/**
 * An `@effect/ai` `McpServer` on stdio that survives what a client may write. `McpServer.layerStdio` hands
 * every line to @effect/rpc's JSON-RPC reader, which throws on a line that is not JSON, on a JSON string, on
 * an id that is not an integer (`"abc"`, `1.5`) and on an id or method it cannot turn into a string
 * (`{"toString":0}`); the server then throws on params Schema's union check cannot read (see `LspDecode`).
 * Any of these stops its stdio loop, and the session answers nothing more while the process lives on.
 *
 * This layer serves the same server, but checks each line first (a batch member by member):
 * - a valid message goes on with only its JSON-RPC members, under an integer id of the session's own; its
 *   answer gets the client's id back, of the client's type (`"17"` stays a string);
 * - anything else is answered at once with a JSON-RPC error carrying the request's id when it can be read,
 *   else `null`: `-32700` for a line that is not JSON, `-32600` for an invalid request, `-32601` for a
 *   method the server does not have (@effect/rpc's own control methods among them), `-32602` for params
 *   the method's Schema refuses. A notification is never answered, not even with an error;
 * - a cancellation (`notifications/cancelled`) interrupts the request the client named, whose answer is
 *   then not sent.
 *
 * As with `McpServer.layerStdio`, the session ends when stdin does, and the default loggers (which write to
 * stdout) are removed.
 *
 * @since 0.1.0
 */
import type * as McpSchema from "@effect/ai/McpSchema"
import * as McpServer from "@effect/ai/McpServer"
import type * as RpcMessage from "@effect/rpc/RpcMessage"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RpcServer from "@effect/rpc/RpcServer"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import type * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import { makeIdMap } from "./internal/mcpIds.js"
import { checkLine } from "./internal/mcpLines.js"

/**
 * The options of `McpServer.layerStdio`.
 *
 * @since 0.1.0
 * @category models
 */
export interface StdioOptions<EIn, RIn, EOut, ROut> {
  /** The server's name in `initialize`'s answer. */
  readonly name: string
  /** The server's version in `initialize`'s answer. */
  readonly version: string
  /** What the client writes (for the CLI, `NodeStream.stdin`); its end ends the session. */
  readonly stdin: Stream.Stream<Uint8Array, EIn, RIn>
  /** Where the server writes, one JSON-RPC message per line (for the CLI, `NodeSink.stdout`). */
  readonly stdout: Sink.Sink<unknown, Uint8Array | string, unknown, EOut, ROut>
}

/**
 * Splits a byte stream into lines (UTF-8, `\n`-terminated, an optional `\r` dropped, blank lines skipped),
 * across chunk boundaries.
 */
const makeLineReader = (): (chunk: Uint8Array) => ReadonlyArray<string> => {
  const decoder = new TextDecoder()
  let pending = ""
  return (chunk) => {
    const lines = (pending + decoder.decode(chunk, { stream: true })).split("\n")
    pending = lines.pop()!
    return lines.map((line) => line.endsWith("\r") ? line.slice(0, -1) : line).filter((line) => line.trim() !== "")
  }
}

const makeProtocol = <EIn, RIn, EOut, ROut>(options: StdioOptions<EIn, RIn, EOut, ROut>) =>
  Effect.gen(function*() {
    // Like @effect/rpc's stdio protocol: the end of stdin ends the session, by interrupting its builder.
    const builder = Option.getOrThrow(Fiber.getCurrentFiber())
    return yield* RpcServer.Protocol.make((write) =>
      Effect.gen(function*() {
        const output = yield* Mailbox.make<Uint8Array | string>()
        // One reader and writer of JSON-RPC for the session: it pairs a batch's answers.
        const parser = RpcSerialization.ndJsonRpc().unsafeMake()
        const lines = makeLineReader()
        const ids = makeIdMap()
        const onLine = (line: string) => {
          const checked = checkLine(line)
          const forward = checked.forward.flatMap((message) => {
            const admitted = ids.admit(message)
            return admitted === undefined ? [] : [admitted]
          })
          const replies = checked.replies
          const messages = forward.length === 0
            ? []
            : parser.decode(`${JSON.stringify(forward.length === 1 ? forward[0] : forward)}\n`)
          return Effect.zipRight(
            output.offerAll(replies),
            // The reader's own output, typed `unknown` by its interface: what it builds from checked messages.
            Effect.forEach(messages, (message) => write(0, message as RpcMessage.FromClientEncoded), { discard: true })
          )
        }
        yield* options.stdin.pipe(
          Stream.runForEach((chunk) => Effect.forEach(lines(chunk), onLine, { discard: true })),
          Effect.catchAllCause((cause) => Effect.logError("MCP stdin failed", cause)),
          Effect.ensuring(Fiber.interruptFork(builder)),
          Effect.forkScoped,
          Effect.interruptible
        )
        yield* Mailbox.toStream(output).pipe(
          Stream.run(options.stdout),
          Effect.catchAllCause((cause) => Effect.logError("MCP stdout failed", cause)),
          Effect.forkScoped,
          Effect.interruptible
        )
        return {
          disconnects: yield* Mailbox.make<number>(),
          send: (_clientId, response) => {
            const encoded = parser.encode(response)
            const line = encoded === undefined
              ? undefined
              : ids.restore(typeof encoded === "string" ? encoded : new TextDecoder().decode(encoded))
            return line === undefined ? Effect.void : output.offer(line)
          },
          end: () => output.end,
          clientIds: Effect.succeed(new Set([0])),
          initialMessage: Effect.succeedNone,
          supportsAck: true,
          supportsTransferables: false,
          supportsSpanPropagation: true
        }
      })
    )
  })

/**
 * `McpServer.layerStdio(options)`, with every line the client writes checked first (see the module's
 * description).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <EIn, RIn, EOut, ROut>(
  options: StdioOptions<EIn, RIn, EOut, ROut>
): Layer.Layer<McpServer.McpServer | McpSchema.McpServerClient, never, RIn | ROut> =>
  McpServer.layer(options).pipe(
    Layer.provide(Layer.scoped(RpcServer.Protocol, makeProtocol(options))),
    Layer.provideMerge(Logger.remove(Logger.defaultLogger)),
    Layer.provideMerge(Logger.remove(Logger.prettyLoggerDefault))
  )
