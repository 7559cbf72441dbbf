import { assert, describe, it } from "@effect/vitest"
import { LspRemoteAuth, LspRemoteClient, LspRemoteServer } from "@lsp-seam/lsp-remote"
import { Context, Duration, Effect, Either, Exit, Fiber, Layer, Queue, Redacted, Scope } from "effect"
import * as Net from "node:net"
import { textFrame, untilClosed, upgrade } from "./rawWebSocket.js"
import { codeOf, makeHost, request, serveHttp, token } from "./support.js"

const eventBudget = Duration.seconds(5)

const within = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.timeoutFail(effect, { duration: eventBudget, onTimeout: () => new Error("the event did not happen in time") })

const queryFrame = (id: string, filePath: string) =>
  textFrame(
    `${
      JSON.stringify({
        _tag: "Request",
        id,
        tag: "Query",
        payload: { operation: "hover", filePath, position: { line: 0, character: 0 }, workspaceRoot: "/ws" },
        headers: []
      })
    }\n`
  )

describe("LspRemote over TCP (WebSocket)", () => {
  it.scopedLive("binds 127.0.0.1 by default and answers queries", () =>
    Effect.gen(function*() {
      const host = yield* makeHost
      const built = yield* Layer.build(LspRemoteServer.layerHttp({ port: 0, token })).pipe(
        Effect.provide(host.context)
      )
      const address = Context.get(built, LspRemoteServer.LspRemoteServer).address
      assert.strictEqual(address._tag, "TcpAddress")
      if (address._tag !== "TcpAddress") return
      assert.strictEqual(address.hostname, "127.0.0.1")
      assert.isAbove(address.port, 0)
      const client = yield* LspRemoteClient.make({
        transport: LspRemoteClient.webSocket(`ws://127.0.0.1:${address.port}/lsp-seam`, token)
      })
      for (const operation of ["goToDefinition", "hover"] as const) {
        assert.deepStrictEqual(
          yield* client.query(request("src/a.ts", operation)),
          yield* host.service.query(request("src/a.ts", operation))
        )
      }
      assert.strictEqual(yield* codeOf(client.query(request("x.rs"))), "LSP_UNAVAILABLE")
    }))

  it.scopedLive("serves concurrent clients on one workspace", () =>
    Effect.gen(function*() {
      const host = yield* makeHost
      const { url } = yield* serveHttp(host.context)
      const clients = yield* Effect.all(
        Array.from({ length: 3 }, () => LspRemoteClient.make({ transport: LspRemoteClient.webSocket(url, token) }))
      )
      const results = yield* Effect.all(
        clients.flatMap((client, c) => Array.from({ length: 10 }, (_, i) => client.query(request(`f${c}_${i}.ts`)))),
        { concurrency: "unbounded" }
      )
      assert.lengthOf(results, 30)
      assert.strictEqual((yield* host.fake.queries).length, 30)
    }))

  it.scopedLive("a wrong token is refused before anything runs", () =>
    Effect.gen(function*() {
      const host = yield* makeHost
      const { url } = yield* serveHttp(host.context)
      const wrong = Either.getOrThrow(LspRemoteAuth.make("wrong-token-0123456789abcdef"))
      const client = yield* LspRemoteClient.make({ transport: LspRemoteClient.webSocket(url, wrong) })
      const [elapsed, error] = yield* Effect.timed(Effect.flip(client.query(request("a.ts"))))
      assert.strictEqual(error.code, "LSP_REMOTE_UNAUTHORIZED")
      assert.isBelow(Duration.toMillis(elapsed), 1_000)
      assert.strictEqual(yield* codeOf(client.hello), "LSP_REMOTE_UNAUTHORIZED")
      assert.strictEqual((yield* host.fake.queries).length, 0)
    }))

  it.scopedLive("a missing token or a browser's request gets no WebSocket; a bearer header does", () =>
    Effect.gen(function*() {
      const host = yield* makeHost
      const { port } = yield* serveHttp(host.context)
      const protocol = { "Sec-WebSocket-Protocol": LspRemoteAuth.subprotocol }
      assert.deepStrictEqual(yield* upgrade(port, protocol), { _tag: "Refused", status: 401 })
      assert.deepStrictEqual(
        yield* upgrade(port, { ...protocol, Authorization: "Bearer not-the-token-at-all" }),
        { _tag: "Refused", status: 401 }
      )
      assert.deepStrictEqual(
        yield* upgrade(port, {
          ...protocol,
          Authorization: `Bearer ${Redacted.value(token)}`,
          Origin: "https://example.com"
        }),
        { _tag: "Refused", status: 403 }
      )
      const ok = yield* upgrade(port, { ...protocol, Authorization: `Bearer ${Redacted.value(token)}` })
      assert.strictEqual(ok._tag, "Upgraded")
      if (ok._tag !== "Upgraded") return
      // The server selects the contract's subprotocol, never echoing a token.
      assert.strictEqual(ok.protocol, LspRemoteAuth.subprotocol)
      const reply = Effect.async<string>((resume) => {
        ok.socket.once("data", (chunk: Buffer) => resume(Effect.succeed(chunk.subarray(2).toString("utf8"))))
      })
      ok.socket.write(queryFrame("1", "a.ts"))
      assert.include(yield* within(reply), "\"Success\"")
      assert.strictEqual((yield* host.fake.queries).length, 1)
    }))

  it.scopedLive("interrupting the client's query interrupts the server's fiber", () =>
    Effect.gen(function*() {
      const host = yield* makeHost
      const { url } = yield* serveHttp(host.context)
      const client = yield* LspRemoteClient.make({ transport: LspRemoteClient.webSocket(url, token) })
      const fiber = yield* Effect.fork(client.query(request("hang.hang")))
      yield* within(Queue.take(host.gated.started))
      yield* Fiber.interrupt(fiber)
      assert.strictEqual((yield* within(Queue.take(host.gated.interrupted))).filePath, "hang.hang")
      assert.strictEqual((yield* client.query(request("a.ts"))).kind, "locations")
    }))

  it.scopedLive("a host that closes mid-query fails the call with LSP_REMOTE_UNAVAILABLE within the budget", () =>
    Effect.gen(function*() {
      const host = yield* makeHost
      const scope = yield* Scope.make()
      const built = yield* Layer.buildWithScope(LspRemoteServer.layerHttp({ port: 0, token }), scope).pipe(
        Effect.provide(host.context)
      )
      const address = Context.get(built, LspRemoteServer.LspRemoteServer).address
      if (address._tag !== "TcpAddress") return assert.fail("expected a TCP address")
      const client = yield* LspRemoteClient.make({
        transport: LspRemoteClient.webSocket(`ws://127.0.0.1:${address.port}/lsp-seam`, token)
      })
      const fiber = yield* Effect.fork(Effect.timed(codeOf(client.query(request("hang.hang")))))
      yield* within(Queue.take(host.gated.started))
      yield* Scope.close(scope, Exit.void)
      const [elapsed, code] = yield* Fiber.join(fiber)
      assert.strictEqual(code, "LSP_REMOTE_UNAVAILABLE")
      assert.isBelow(Duration.toMillis(elapsed), 1_000)
      yield* within(Queue.take(host.gated.interrupted))
      const [again, code2] = yield* Effect.timed(codeOf(client.query(request("a.ts"))))
      assert.strictEqual(code2, "LSP_REMOTE_UNAVAILABLE")
      assert.isBelow(Duration.toMillis(again), 1_000)
    }))

  it.scopedLive("a client that vanishes mid-query: the host interrupts that query and keeps serving others", () =>
    Effect.gen(function*() {
      const host = yield* makeHost
      const { port, url } = yield* serveHttp(host.context)
      const raw = yield* upgrade(port, {
        "Sec-WebSocket-Protocol": `${LspRemoteAuth.subprotocol}, ${LspRemoteAuth.bearerSubprotocolPrefix}${
          Redacted.value(token)
        }`
      })
      if (raw._tag !== "Upgraded") return assert.fail(`upgrade refused: ${raw.status}`)
      raw.socket.write(queryFrame("1", "hang.hang"))
      yield* within(Queue.take(host.gated.started))
      raw.socket.destroy()
      assert.strictEqual((yield* within(Queue.take(host.gated.interrupted))).filePath, "hang.hang")
      const other = yield* LspRemoteClient.make({ transport: LspRemoteClient.webSocket(url, token) })
      assert.strictEqual((yield* other.query(request("b.ts"))).kind, "locations")
    }))

  describe("refuses bad messages, closes the connection and stays up", () => {
    const messages: ReadonlyArray<[string, Buffer]> = [
      ["an oversized message (refused by its frame header)", textFrame("x".repeat(5000))],
      ["a message that is not JSON", textFrame("{not json}\n")],
      ["JSON that is no protocol message", textFrame("[1,2,3]\n")],
      ["a tag that cannot be read as a string", textFrame("{\"_tag\":{\"toString\":0}}\n")]
    ]
    for (const [name, message] of messages) {
      it.scopedLive(name, () =>
        Effect.gen(function*() {
          const host = yield* makeHost
          const { port, url } = yield* serveHttp(host.context, { maxRequestBytes: 4096 })
          const raw = yield* upgrade(port, { Authorization: `Bearer ${Redacted.value(token)}` })
          if (raw._tag !== "Upgraded") return assert.fail(`upgrade refused: ${raw.status}`)
          const closed = yield* Effect.fork(untilClosed(raw.socket))
          raw.socket.write(message)
          yield* within(Fiber.join(closed))
          const client = yield* LspRemoteClient.make({ transport: LspRemoteClient.webSocket(url, token) })
          assert.strictEqual((yield* client.query(request("a.ts"))).kind, "locations")
          assert.strictEqual((yield* host.fake.queries).length, 1)
        }))
    }
  })

  it.scopedLive("a host that accepts but never completes the handshake fails calls after connectTimeoutMs", () =>
    Effect.gen(function*() {
      const silent = Net.createServer(() => {})
      const port = yield* Effect.acquireRelease(
        Effect.async<number>((resume) => {
          silent.listen(0, "127.0.0.1", () => {
            const address = silent.address()
            resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
          })
        }),
        () =>
          Effect.sync(() => {
            silent.close()
          })
      )
      const client = yield* LspRemoteClient.make({
        transport: LspRemoteClient.webSocket(`ws://127.0.0.1:${port}/lsp-seam`, token),
        connectTimeoutMs: 300
      })
      const [elapsed, code] = yield* Effect.timed(codeOf(client.query(request("a.ts"))))
      assert.strictEqual(code, "LSP_REMOTE_UNAVAILABLE")
      assert.isAtLeast(Duration.toMillis(elapsed), 250)
      assert.isBelow(Duration.toMillis(elapsed), 2_000)
    }))

  it.scopedLive("refuses a port in use with LSP_CONFLICT", () =>
    Effect.gen(function*() {
      const host = yield* makeHost
      const { port } = yield* serveHttp(host.context)
      const error = yield* Effect.flip(serveHttp(host.context, { port }))
      assert.strictEqual(error.code, "LSP_CONFLICT")
    }))
})
