/**
 * The server's first look at every byte a client sends. @effect/rpc's ndjson parser limits its buffer in
 * UTF-16 units and answers a malformed line with a defect while keeping the connection (and the bad line)
 * alive; here each line is counted in bytes, must be UTF-8 JSON of one of the protocol's client messages,
 * and any violation closes the connection before the RPC server decodes anything. A connection left in the
 * middle of a frame is closed too, once it has stalled there.
 */
import * as NodeSocket from "@effect/platform-node/NodeSocket"
import * as Socket from "@effect/platform/Socket"
import * as SocketServer from "@effect/platform/SocketServer"
import { LspDecode } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Net from "node:net"
import { LspRpcs } from "../LspRpc.js"
import * as FrameStall from "./frameStall.js"
import { RequestId } from "./requestId.js"

const ClientMessage = Schema.Union(
  Schema.Struct({
    _tag: Schema.Literal("Request"),
    id: RequestId,
    tag: Schema.String.pipe(Schema.filter((tag) => LspRpcs.requests.has(tag))),
    payload: Schema.optional(Schema.Unknown),
    headers: Schema.Array(Schema.Tuple(Schema.String, Schema.String)),
    traceId: Schema.optional(Schema.String),
    spanId: Schema.optional(Schema.String),
    sampled: Schema.optional(Schema.Boolean)
  }),
  Schema.Struct({ _tag: Schema.Literal("Ack", "Interrupt"), requestId: RequestId }),
  Schema.Struct({ _tag: Schema.Literal("Ping", "Eof") })
)

const isClientMessage = LspDecode.is(ClientMessage)

/** WebSocket close codes: 1009 "message too big", 1007 "invalid frame payload data". */
type Violation = { readonly code: 1009 | 1007; readonly reason: string }

type Pushed = { readonly _tag: "Lines"; readonly text: string } | {
  readonly _tag: "Violation"
  readonly violation: Violation
}

const makeFramer = (maxLineBytes: number) => {
  let pending: Array<Buffer> = []
  let pendingBytes = 0
  const decoder = new TextDecoder("utf-8", { fatal: true })
  const tooLarge = (): Pushed => ({
    _tag: "Violation",
    violation: { code: 1009, reason: `request larger than ${maxLineBytes} bytes` }
  })
  const malformed = (reason: string): Pushed => ({ _tag: "Violation", violation: { code: 1007, reason } })
  const push = (chunk: string | Uint8Array): Pushed => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk)
    const lines: Array<string> = []
    let start = 0
    while (start <= bytes.length) {
      const newline = bytes.indexOf(0x0a, start)
      if (newline === -1) {
        const rest = bytes.length - start
        if (pendingBytes + rest > maxLineBytes) return tooLarge()
        if (rest > 0) {
          pending.push(bytes.subarray(start))
          pendingBytes += rest
        }
        break
      }
      if (pendingBytes + (newline - start) > maxLineBytes) return tooLarge()
      const line = pending.length === 0
        ? bytes.subarray(start, newline)
        : Buffer.concat([...pending, bytes.subarray(start, newline)])
      pending = []
      pendingBytes = 0
      start = newline + 1
      let text: string
      try {
        text = decoder.decode(line)
      } catch {
        return malformed("request is not UTF-8")
      }
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        return malformed("request is not JSON")
      }
      if (!isClientMessage(json)) return malformed("request is not a message of the lsp-seam protocol")
      lines.push(text)
    }
    return { _tag: "Lines", text: lines.length === 0 ? "" : `${lines.join("\n")}\n` }
  }
  /** Bytes of a request line begun and not yet complete. */
  return { push, pending: () => pendingBytes }
}

// A WebSocket close waits for the peer's closing frame (up to 30 s in ws); a peer that broke the protocol gets no
// such grace: after the close frame, drop the connection.
const dropWebSocket = Effect.map(Effect.serviceOption(Socket.WebSocket), (ws) => {
  if (Option.isNone(ws)) return
  const terminate: unknown = Reflect.get(ws.value, "terminate")
  if (typeof terminate === "function") terminate.call(ws.value)
})

const field = (target: unknown, name: string): unknown =>
  typeof target === "object" && target !== null ? Reflect.get(target, name) : undefined

/**
 * What the connection's transport holds of a frame not yet complete, whether the host has paused it, and the
 * byte stream under it (for a WebSocket, whose messages arrive whole, the TCP or TLS socket its frames are read
 * from), whose `data`, `pause` and `resume` events the watch follows. ws keeps a frame being received in its
 * `Receiver`: bytes buffered, a frame header read and its payload awaited, or a fragmented message begun.
 */
const transportOf = Effect.gen(function*() {
  const ws = yield* Effect.serviceOption(Socket.WebSocket)
  if (Option.isSome(ws)) {
    const receiver = field(ws.value, "_receiver")
    const stream = field(ws.value, "_socket")
    const buffered = field(receiver, "_bufferedBytes")
    const state = field(receiver, "_state")
    const fragmented = field(receiver, "_fragmented")
    if (typeof buffered !== "number" || typeof state !== "number" || typeof fragmented !== "number") {
      return yield* Effect.dieMessage("frameGuard: a WebSocket whose receiver is not ws's")
    }
    return {
      midFrame: () =>
        field(receiver, "_bufferedBytes") !== 0 || field(receiver, "_state") !== 0 ||
        field(receiver, "_fragmented") !== 0,
      paused: () => field(ws.value, "isPaused") === true,
      stream: stream instanceof Net.Socket ? stream : undefined
    }
  }
  const net = yield* Effect.serviceOption(NodeSocket.NetSocket)
  return {
    midFrame: () => false,
    paused: () => Option.isSome(net) && net.value.isPaused(),
    stream: Option.getOrUndefined(net)
  }
})

/**
 * A view of `socket` whose reader only ever passes on complete, valid, bounded protocol lines, and which closes
 * the connection (WebSocket code 1008) once it has stalled mid-frame for `frameTimeoutMs` (`frameStall.ts`).
 */
export const guardSocket = (socket: Socket.Socket, maxLineBytes: number, frameTimeoutMs: number): Socket.Socket => {
  const runRaw = <_, E, R>(
    handler: (_: string | Uint8Array) => Effect.Effect<_, E, R> | void,
    options?: { readonly onOpen?: Effect.Effect<void> | undefined }
  ): Effect.Effect<void, Socket.SocketError | E, R> =>
    Effect.scoped(Effect.gen(function*() {
      const write = yield* socket.writer
      const framer = makeFramer(maxLineBytes)
      const transport = yield* transportOf
      const watch = yield* FrameStall.make({
        timeoutMs: frameTimeoutMs,
        midFrame: () => framer.pending() > 0 || transport.midFrame(),
        paused: transport.paused
      })
      const stream = transport.stream
      if (stream !== undefined) {
        // Only the host's own pauses are not the client's time: ws also pauses the socket for a moment while its
        // receiver drains a large chunk, which a client trickling a frame could otherwise use to restart its time.
        let hostPaused = false
        const paused = () => (hostPaused = transport.paused())
        const resumed = () => {
          if (hostPaused) watch.resumed()
          hostPaused = false
        }
        // Added after ws's own listener, so it sees what ws made of the bytes.
        yield* Effect.acquireRelease(
          Effect.sync(() => stream.on("data", watch.arrived).on("pause", paused).on("resume", resumed)),
          () => Effect.sync(() => stream.off("data", watch.arrived).off("pause", paused).off("resume", resumed))
        )
      }
      const close = (code: number, reason: string) =>
        write(new Socket.CloseEvent(code, reason)).pipe(
          Effect.ignore,
          Effect.zipRight(dropWebSocket),
          Effect.zipRight(Effect.fail(new Socket.SocketCloseError({ reason: "Close", code, closeReason: reason })))
        )
      const stalled = Effect.zipRight(
        watch.stalled,
        close(1008, `a frame was begun and not completed within ${frameTimeoutMs} ms`)
      )
      const reading = socket.runRaw((chunk): Effect.Effect<unknown, E | Socket.SocketError, R> | void => {
        const pushed = framer.push(chunk)
        if (pushed._tag === "Violation") return close(pushed.violation.code, pushed.violation.reason)
        if (pushed.text === "") return watch.arrived()
        watch.progressed()
        return handler(pushed.text)
      }, options)
      return yield* Effect.raceFirst(reading, stalled)
    }))
  const encoder = new TextEncoder()
  return Socket.Socket.of({
    [Socket.TypeId]: Socket.TypeId,
    runRaw,
    run: (handler, options) =>
      runRaw((data) => handler(typeof data === "string" ? encoder.encode(data) : data), options),
    writer: socket.writer
  })
}

/** `server` with every accepted socket guarded. */
export const guardServer = (
  server: SocketServer.SocketServer["Type"],
  maxLineBytes: number,
  frameTimeoutMs: number
): SocketServer.SocketServer["Type"] =>
  SocketServer.SocketServer.of({
    address: server.address,
    run: (handler) => server.run((socket) => handler(guardSocket(socket, maxLineBytes, frameTimeoutMs)))
  })
