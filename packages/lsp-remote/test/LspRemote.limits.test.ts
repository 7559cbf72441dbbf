import { assert, describe, it } from "@effect/vitest"
import { LspRemoteClient } from "@lsp-seam/lsp-remote"
import type { Duration } from "effect"
import { Effect, Fiber, Queue } from "effect"
import * as Net from "node:net"
import * as Path from "node:path"
import { makeHost, request, serveHttp, serveSocket, tempDir, token } from "./support.js"

// Connection limits on real sockets, under the live clock with short budgets.
const within = <A, E, R>(what: string, budget: Duration.DurationInput, effect: Effect.Effect<A, E, R>) =>
  Effect.timeoutFail(effect, { duration: budget, onTimeout: () => new Error(`${what} did not happen in time`) })

/** A raw TCP connection that sends `bytes` (maybe nothing) and then stalls; resolves when the host closes it. */
const stall = (port: number, bytes: string) =>
  Effect.gen(function*() {
    const socket = yield* Effect.acquireRelease(
      Effect.async<Net.Socket>((resume) => {
        const socket = Net.createConnection({ host: "127.0.0.1", port }, () => resume(Effect.succeed(socket)))
        socket.on("error", () => {})
      }),
      (socket) => Effect.sync(() => socket.destroy())
    )
    if (bytes !== "") socket.write(bytes)
    const closed = Effect.async<number>((resume) => {
      if (socket.destroyed) return resume(Effect.succeed(Date.now()))
      socket.once("close", () => resume(Effect.succeed(Date.now())))
    })
    return closed
  })

const halfHeaders = "GET /lsp-seam HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"

describe("connection limits", () => {
  it.scopedLive("60 stalled connections are closed once their handshake time is up; a real client answers meanwhile", () =>
    Effect.gen(function*() {
      const host = yield* makeHost
      const { port, url } = yield* serveHttp(host.context, { handshakeTimeoutMs: 1_000, maxPendingConnections: 100 })
      const opened = Date.now()
      const closings = yield* Effect.forEach(
        Array.from({ length: 60 }, (_, i) => i % 3 === 0 ? "" : i % 3 === 1 ? halfHeaders : "GET /lsp-seam HT"),
        (bytes) => stall(port, bytes)
      )
      const client = yield* LspRemoteClient.make({ transport: LspRemoteClient.webSocket(url, token) })
      assert.deepStrictEqual(
        yield* client.query(request("src/a.ts")),
        yield* host.service.query(request("src/a.ts"))
      )
      const closedAt = yield* within("closing the stalled connections", "5 seconds", Effect.all(closings))
      for (const at of closedAt) assert.isAtLeast(at - opened, 900)
      // The authenticated client outlives the handshake time.
      yield* Effect.sleep("1200 millis")
      assert.deepStrictEqual(
        yield* client.query(request("src/b.ts")),
        yield* host.service.query(request("src/b.ts"))
      )
    }))

  it.scopedLive("past the cap of waiting connections, the oldest is closed first and a real client still gets in", () =>
    Effect.gen(function*() {
      const host = yield* makeHost
      const { port, url } = yield* serveHttp(host.context, { handshakeTimeoutMs: 60_000, maxPendingConnections: 8 })
      const first = yield* Effect.forEach(Array.from({ length: 8 }, () => ""), (bytes) => stall(port, bytes))
      // Eight more push the first eight out, without waiting for their minute.
      const second = yield* Effect.forEach(Array.from({ length: 8 }, () => halfHeaders), (bytes) => stall(port, bytes))
      yield* within("closing the oldest", "5 seconds", Effect.all(first))
      const client = yield* LspRemoteClient.make({ transport: LspRemoteClient.webSocket(url, token) })
      assert.deepStrictEqual(yield* client.query(request("src/a.ts")), yield* host.service.query(request("src/a.ts")))
      // The client's connection pushed out one more (the oldest of the second eight) while it was waiting;
      // once accepted it no longer counts, and the other seven are still waiting for their minute.
      assert.strictEqual(
        yield* Effect.all(second.map((closed) => Effect.option(Effect.timeout(closed, "100 millis")))).pipe(
          Effect.map((all) => all.filter((o) => o._tag === "Some").length)
        ),
        1
      )
    }))

  it.scopedLive("a client's concurrent queries are capped; the next starts when one ends", () =>
    Effect.gen(function*() {
      const host = yield* makeHost
      const dir = yield* tempDir
      const socket = Path.join(dir, "host.sock")
      yield* serveSocket(host.context, { path: socket, maxQueriesPerClient: 2 })
      const client = yield* LspRemoteClient.make({ transport: LspRemoteClient.socket(socket) })
      const other = yield* LspRemoteClient.make({ transport: LspRemoteClient.socket(socket) })
      const fibers = yield* Effect.forEach(
        ["hang1.hang", "hang2.hang", "hang3.hang"],
        (file) => Effect.fork(client.query(request(file)))
      )
      const started = yield* within(
        "two queries to start",
        "5 seconds",
        Effect.all([Queue.take(host.gated.started), Queue.take(host.gated.started)])
      )
      // The third waits for the client's permits; another client is not held up.
      yield* Effect.sleep("200 millis")
      assert.strictEqual(yield* Queue.size(host.gated.started), 0)
      assert.deepStrictEqual(yield* other.query(request("x.hang")), yield* host.service.query(request("x.hang")))
      const firstFile = started[0]!.filePath
      yield* Fiber.interrupt(fibers[["hang1.hang", "hang2.hang", "hang3.hang"].indexOf(firstFile!)]!)
      const third = yield* within("the third to start", "5 seconds", Queue.take(host.gated.started))
      assert.notInclude([started[0]!.filePath, started[1]!.filePath], third.filePath)
    }))

  it.scopedLive("on the Unix socket, half a request line stalled is closed after frameTimeoutMs; an idle client stays", () =>
    Effect.gen(function*() {
      const host = yield* makeHost
      const dir = yield* tempDir
      const path = Path.join(dir, "host.sock")
      yield* serveSocket(host.context, { path, frameTimeoutMs: 500 })
      const client = yield* LspRemoteClient.make({ transport: LspRemoteClient.socket(path) })
      assert.deepStrictEqual(yield* client.query(request("src/a.ts")), yield* host.service.query(request("src/a.ts")))
      const socket = yield* Effect.acquireRelease(
        Effect.async<Net.Socket>((resume) => {
          const socket = Net.createConnection({ path }, () => resume(Effect.succeed(socket)))
          socket.on("error", () => {})
        }),
        (socket) => Effect.sync(() => socket.destroy())
      )
      const opened = Date.now()
      socket.write(`{"_tag":"Request","id":"1","tag":`)
      const closedAt = yield* within(
        "closing the stalled connection",
        "5 seconds",
        Effect.async<number>((resume) => {
          if (socket.destroyed) return resume(Effect.succeed(Date.now()))
          socket.once("close", () => resume(Effect.succeed(Date.now())))
        })
      )
      assert.isAtLeast(closedAt - opened, 400)
      // The client was idle all along, longer than the frame timeout: it still answers.
      assert.deepStrictEqual(yield* client.query(request("src/b.ts")), yield* host.service.query(request("src/b.ts")))
    }))
})
