/**
 * The RPC server's protocol on the host's sockets, with each connection's work bounded. @effect/rpc's own
 * socket protocol reads whatever a client sends as fast as it arrives: every request becomes a running fiber
 * and every answer a write the transport buffers until the client reads it, with no limit on either, so one
 * client that sends faster than it reads grows the host without bound and starves the others.
 *
 * Here a connection has at most `maxRequests` requests passed to the RPC server and not yet answered (an
 * answer counts once the OS has taken its bytes); later ones wait in order. While `maxRequests` wait, or while
 * `maxUnreadBytes` of answers are written but not taken by the OS (the client does not read them), the host
 * stops reading that connection (its writes then block: the transport's own flow control) and reads on once
 * that is no longer so. Pings, acknowledgements and interruptions are passed on while requests wait, so a
 * client with many queries can still cancel one, and its pings keep it connected.
 */
import * as NodeSocket from "@effect/platform-node/NodeSocket"
import * as Socket from "@effect/platform/Socket"
import type * as SocketServer from "@effect/platform/SocketServer"
import * as RpcMessage from "@effect/rpc/RpcMessage"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RpcServer from "@effect/rpc/RpcServer"
import * as Effect from "effect/Effect"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"

export interface Bounds {
  /** Requests of one connection passed to the RPC server and not yet answered; as many more may wait. */
  readonly maxRequests: number
  /** Answer bytes of one connection written and not yet taken by the OS before the host stops reading it. */
  readonly maxUnreadBytes: number
}

/** What the protocol needs of a connection beyond its `Socket`: to stop reading, and to know a write is done. */
interface Transport {
  readonly pause: () => void
  readonly resume: () => void
  /** Writes `data`; `done` runs once the OS has taken it, or the connection is gone. */
  readonly write: (data: string | Uint8Array, done: () => void) => void
}

const method = (target: object, name: string): ((...args: Array<unknown>) => unknown) | undefined => {
  const value: unknown = Reflect.get(target, name)
  return typeof value === "function" ? (...args) => value.apply(target, args) : undefined
}

// The connection's Node object, provided to each connection's handler by the socket servers of
// @effect/platform-node: a `net.Socket` (Unix socket), or a `ws` WebSocket.
const transport: Effect.Effect<Transport> = Effect.gen(function*() {
  const net = yield* Effect.serviceOption(NodeSocket.NetSocket)
  if (Option.isSome(net)) {
    const socket = net.value
    return {
      pause: () => socket.pause(),
      resume: () => socket.resume(),
      write: (data, done) => socket.write(data, () => done())
    }
  }
  const ws = yield* Effect.serviceOption(Socket.WebSocket)
  const [pause, resume, send] = Option.isSome(ws)
    ? [method(ws.value, "pause"), method(ws.value, "resume"), method(ws.value, "send")]
    : []
  if (pause === undefined || resume === undefined || send === undefined) {
    return yield* Effect.dieMessage("boundedProtocol: a connection that is neither a net.Socket nor a ws WebSocket")
  }
  return { pause, resume, write: (data, done) => send(data, () => done()) }
})

type FromClient = RpcMessage.FromClientEncoded

// Each request a connection passes on waits for the event loop to poll for I/O first: Effect's scheduler runs
// ready fibers on microtasks for a long while before it lets Node poll, and a client with a steady stream of
// requests could otherwise keep every other connection, new ones included, from being read at all.
const turn = Effect.async<void>((resume) => {
  const immediate = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(immediate))
})

/** One connection's accounting: what it may pass on now, what waits, and whether to read. */
const makeConnection = (bounds: Bounds, io: Transport, forward: (message: FromClient) => void) => {
  let inFlight = 0
  /** The ids of requests passed on and not yet answered, with how many (a client may reuse an id). */
  const answering = new Map<string, number>()
  /** Requests (and any `Eof` after them) not yet passed on, in order, from `waiting[head]` on. */
  let waiting: Array<FromClient> = []
  let head = 0
  /** Messages handed to the forwarding fiber and not yet passed on. */
  let forwarding = 0
  let unread = 0
  let paused = false

  const flow = () => {
    const stop = waiting.length - head + forwarding >= bounds.maxRequests || unread >= bounds.maxUnreadBytes
    if (stop !== paused) {
      paused = stop
      if (stop) io.pause()
      else io.resume()
    }
  }
  const pass = (message: FromClient) => {
    if (message._tag === "Request") {
      inFlight++
      answering.set(message.id, (answering.get(message.id) ?? 0) + 1)
    }
    forwarding++
    forward(message)
  }
  const passWaiting = () => {
    while (head < waiting.length && (waiting[head]!._tag !== "Request" || inFlight < bounds.maxRequests)) {
      pass(waiting[head++]!)
    }
    // One read may bring thousands of requests: drop the passed ones in bulk, not one `shift` at a time.
    if (head > 1024 && head * 2 > waiting.length) {
      waiting = waiting.slice(head)
      head = 0
    }
  }
  return {
    /** The messages of one read, in order. */
    received: (messages: ReadonlyArray<FromClient>) => {
      for (const message of messages) {
        switch (message._tag) {
          case "Ping":
          case "Ack":
            pass(message)
            break
          case "Interrupt": {
            // A waiting request is dropped here; the RPC server answers an interruption of a request it never
            // saw as interrupted.
            const index = waiting.findIndex((w, i) => i >= head && w._tag === "Request" && w.id === message.requestId)
            if (index !== -1) waiting.splice(index, 1)
            pass(message)
            break
          }
          default:
            waiting.push(message)
            passWaiting()
        }
      }
      flow()
    },
    forwarded: () => {
      forwarding--
      flow()
    },
    /** An answer of `bytes` is being written; `taken` once the OS has it. */
    writing: (bytes: number) => {
      unread += bytes
      flow()
    },
    taken: (bytes: number, requestId: string | undefined) => {
      unread -= bytes
      const count = requestId === undefined ? undefined : answering.get(requestId)
      if (count !== undefined) {
        if (count === 1) answering.delete(requestId!)
        else answering.set(requestId!, count - 1)
        inFlight--
        passWaiting()
      }
      flow()
    }
  }
}

/**
 * The protocol for `RpcServer.make` on `server`'s connections, each bounded by `bounds`; it accepts
 * connections from when it is built until its scope closes.
 */
export const make = (server: SocketServer.SocketServer["Type"], bounds: Bounds) =>
  Effect.gen(function*() {
    const serialization = yield* RpcSerialization.RpcSerialization
    const disconnects = yield* Mailbox.make<number>()
    const connections = new Map<number, (response: RpcMessage.FromServerEncoded) => Effect.Effect<void>>()
    let nextId = 0
    let writeRequest!: (clientId: number, message: FromClient) => Effect.Effect<void>

    const onSocket = (socket: Socket.Socket) =>
      Effect.gen(function*() {
        const io = yield* transport
        const id = nextId++
        const parser = serialization.unsafeMake()
        // Registered first, so it runs last: the forwarding fiber has stopped before the RPC server is told.
        yield* Effect.addFinalizer(() => {
          connections.delete(id)
          return disconnects.offer(id)
        })
        // One fiber passes the connection's messages on, so the RPC server sees them in the order admitted.
        const outbox = yield* Queue.unbounded<FromClient>()
        const connection = makeConnection(bounds, io, (message) => Queue.unsafeOffer(outbox, message))
        yield* Effect.forkScoped(Effect.forever(
          Effect.flatMap(Queue.take(outbox), (message) =>
            Effect.ensuring(writeRequest(id, message), Effect.sync(connection.forwarded)).pipe(
              Effect.zipRight(message._tag === "Request" ? turn : Effect.void)
            ))
        ))
        connections.set(id, (response) =>
          Effect.async<void>((resume) => {
            let data: string | Uint8Array
            try {
              data = parser.encode(response) ?? ""
            } catch (cause) {
              data = parser.encode(RpcMessage.ResponseDefectEncoded(cause)) ?? ""
            }
            if (data.length === 0) return resume(Effect.void)
            const bytes = typeof data === "string" ? Buffer.byteLength(data) : data.length
            connection.writing(bytes)
            io.write(data, () => {
              connection.taken(bytes, response._tag === "Exit" ? response.requestId : undefined)
              resume(Effect.void)
            })
          }))
        yield* socket.runRaw((data) => {
          // The frame guard passed only complete lines of valid protocol messages.
          connection.received(parser.decode(data) as ReadonlyArray<FromClient>)
        }).pipe(
          Effect.interruptible,
          Effect.catchIf((error) =>
            error.reason === "Close", () => Effect.void),
          Effect.orDie
        )
      }).pipe(Effect.scoped)

    const protocol = yield* RpcServer.Protocol.make((write) => {
      writeRequest = write
      return Effect.succeed({
        disconnects,
        send: (clientId, response) => connections.get(clientId)?.(response) ?? Effect.void,
        end: () => Effect.void,
        clientIds: Effect.sync(() => new Set(connections.keys())),
        initialMessage: Effect.succeedNone,
        supportsAck: true,
        supportsTransferables: false,
        supportsSpanPropagation: true
      })
    })
    yield* Effect.forkScoped(Effect.interruptible(server.run(onSocket)))
    return protocol
  })
