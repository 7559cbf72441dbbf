import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Crypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as Net from "node:net"
import * as NodePath from "node:path"
import { runCli } from "./support/cli.js"
import { textFrame } from "./support/flood.js"
import { fakeWorkspace, serve, waitFor } from "./support/remote.js"

// Issue 42: what one token holder's connections may hold of `serve --listen`. A connection stuck after a partial
// frame was held for ever, and the number of connections with the token was not bounded. A real `serve`, raw
// WebSocket connections, and the compiled command as the other client.
const timeout = 90_000

const hoverFake = { answers: { "textDocument/hover": { contents: "fake hover" } } }

interface Raw {
  readonly socket: Net.Socket
  /** The status code of the host's answer to the upgrade. */
  readonly status: number
  /** Every byte received after the upgrade's answer. */
  readonly received: () => Buffer
  /** Resolves with `Date.now()` once the host has closed the connection. */
  readonly closed: Effect.Effect<number>
}

/** A raw WebSocket upgrade of `/lsp-seam` presenting `token`; the connection is destroyed with the scope. */
const connect = (port: number, token: string) =>
  Effect.gen(function*() {
    const socket = yield* Effect.acquireRelease(
      Effect.async<Net.Socket>((resume) => {
        const socket = Net.createConnection({ host: "127.0.0.1", port }, () => resume(Effect.succeed(socket)))
        socket.on("error", () => {})
      }),
      (socket) => Effect.sync(() => socket.destroy())
    )
    let head = Buffer.alloc(0)
    let body = Buffer.alloc(0)
    let closedAt: number | undefined
    socket.on("close", () => (closedAt = Date.now()))
    const status = yield* Effect.async<number>((resume) => {
      socket.on("data", (chunk: Buffer) => {
        if (body.length > 0 || head.includes("\r\n\r\n")) {
          body = Buffer.concat([body, chunk])
          return
        }
        head = Buffer.concat([head, chunk])
        const end = head.indexOf("\r\n\r\n")
        if (end === -1) return
        body = head.subarray(end + 4)
        resume(Effect.succeed(Number(/^HTTP\/1\.1 ([0-9]{3})/.exec(head.toString("latin1"))?.[1] ?? 0)))
      })
      socket.once("close", () => resume(Effect.succeed(0)))
      socket.write(
        "GET /lsp-seam HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
          `Sec-WebSocket-Key: ${Crypto.randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n` +
          `Sec-WebSocket-Protocol: lsp-seam.rpc.v1, lsp-seam.bearer.${token}\r\n\r\n`
      )
    })
    const closed = Effect.async<number>((resume) => {
      if (closedAt !== undefined) return resume(Effect.succeed(closedAt))
      socket.once("close", () => resume(Effect.succeed(closedAt ?? Date.now())))
    })
    return { socket, status, received: () => body, closed } satisfies Raw
  })

/** The close code of the first close frame (opcode 8) the host sent unmasked, if any. */
const closeCode = (bytes: Buffer): number | undefined => {
  let at = 0
  while (at + 2 <= bytes.length) {
    const opcode = bytes[at]! & 0x0f
    let length = bytes[at + 1]! & 0x7f
    let start = at + 2
    if (length === 126) {
      length = bytes.readUInt16BE(at + 2)
      start = at + 4
    } else if (length === 127) {
      length = Number(bytes.readBigUInt64BE(at + 2))
      start = at + 10
    }
    if (opcode === 8 && length >= 2) return bytes.readUInt16BE(start)
    at = start + length
  }
  return undefined
}

const statusRequest = (id: number) => `{"_tag":"Request","id":"${id}","tag":"Status","headers":[]}\n`

const listen = (fake: { readonly dir: string; readonly runtimeDir: string }, ...extra: Array<string>) =>
  Effect.gen(function*() {
    const tokenFile = NodePath.join(fake.runtimeDir, "token")
    const served = yield* serve(["--listen", "127.0.0.1:0", "--token-file", tokenFile, "--no-prewarm", ...extra], {
      cwd: fake.dir
    })
    const port = Number(/:([0-9]+)\/lsp-seam$/.exec(served.address)![1])
    const token = NodeFs.readFileSync(tokenFile, "utf8").trim()
    return { served, port, token, tokenFile, url: `http://127.0.0.1:${port}` }
  })

describe("connections with the token", () => {
  it.scopedLive(
    "one stalled mid-frame is closed (1008) after --handshake-timeout; one idle between frames stays and answers",
    () =>
      Effect.gen(function*() {
        const fake = yield* fakeWorkspace({ fake: { extension: ".fake", fake: hoverFake } })
        const { port, token } = yield* listen(fake, "--handshake-timeout", "2s")
        // Idle from before the others start, so it has been idle longer than they stall when they are closed.
        const idle = yield* connect(port, token)
        assert.strictEqual(idle.status, 101)
        idle.socket.write(textFrame(`{"_tag":"Ping"}\n`))
        yield* waitFor("the pong", () => idle.received().includes("Pong"), 10_000)
        const started = Date.now()
        const request = textFrame(statusRequest(1))
        const partials = {
          // A frame header announcing 100 bytes, and nothing after it.
          "a length prefix": Buffer.from([0x81, 0x80 | 100]),
          "half a frame": request.subarray(0, request.length >> 1),
          "a whole frame with half a request line": textFrame(`{"_tag":"Request","id":"2","tag":`)
        }
        const stalled = yield* Effect.forEach(Object.entries(partials), ([name, bytes]) =>
          Effect.gen(function*() {
            const raw = yield* connect(port, token)
            assert.strictEqual(raw.status, 101, name)
            raw.socket.write(bytes)
            return { name, raw }
          }))
        // One that keeps sending a large frame in 32 KiB pieces, each a moment after the last, never finishing it
        // in time: progress within a frame buys nothing.
        const trickler = yield* connect(port, token)
        assert.strictEqual(trickler.status, 101)
        const big = textFrame("x".repeat(900 * 1024))
        let sent = 0
        const trickle = setInterval(() => {
          if (trickler.socket.destroyed || sent >= big.length) return clearInterval(trickle)
          trickler.socket.write(big.subarray(sent, sent + 32 * 1024))
          sent += 32 * 1024
        }, 200)
        yield* Effect.addFinalizer(() => Effect.sync(() => clearInterval(trickle)))
        const trickled = yield* trickler.closed.pipe(
          Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("the trickler: still open") })
        )
        assert.isAtMost(trickled - started, 6_000, `closed after ${trickled - started} ms, ${sent} bytes sent`)
        assert.isBelow(sent, big.length)
        assert.strictEqual(closeCode(trickler.received()), 1008)
        for (const { name, raw } of stalled) {
          const at = yield* raw.closed.pipe(
            Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error(`${name}: still open`) })
          )
          assert.isAtLeast(at - started, 1_500, name)
          assert.strictEqual(closeCode(raw.received()), 1008, name)
        }
        // The idle connection is open and answers.
        assert.isFalse(idle.socket.destroyed)
        assert.isUndefined(closeCode(idle.received()))
        idle.socket.write(textFrame(statusRequest(3)))
        yield* waitFor("the idle connection's answer", () =>
          /"_tag":"Exit","requestId":"3"/.test(idle.received().toString("latin1")), 10_000)
      }),
    timeout
  )

  it.scopedLive(
    "--max-connections: one more is refused and its client says LSP_REMOTE_UNAVAILABLE; a freed slot serves again",
    () =>
      Effect.gen(function*() {
        const fake = yield* fakeWorkspace({ fake: { extension: ".fake", fake: hoverFake } })
        const { port, token, tokenFile, url } = yield* listen(fake, "--max-connections", "2")
        const first = yield* connect(port, token)
        const second = yield* connect(port, token)
        assert.deepStrictEqual([first.status, second.status], [101, 101])
        // Without the token, the answer is the same as ever: the limit is told only to token holders.
        const stranger = yield* connect(port, "not-the-token-at-all-0123456789")
        assert.strictEqual(stranger.status, 401)
        const query = runCli(["query", "hover", "fake.fake:1:1", "--remote", url, "--token-file", tokenFile], {
          cwd: fake.dir
        })
        const refused = yield* query
        assert.strictEqual(refused.code, 1, refused.stderr)
        assert.strictEqual(refused.stdout, "")
        assert.match(refused.stderr, /^error\[LSP_REMOTE_UNAVAILABLE\]: .*as many connections open as it allows/)
        assert.include(refused.stderr, "--max-connections")
        first.socket.destroy()
        yield* first.closed
        assert.deepStrictEqual(yield* query, { code: 0, stdout: "fake hover\n", stderr: "" })
        // The second connection was not disturbed by any of it.
        assert.isFalse(second.socket.destroyed)
        const usage = yield* runCli(
          ["serve", "--socket", NodePath.join(fake.runtimeDir, "s.sock"), "--max-connections", "4"],
          { cwd: fake.dir }
        )
        assert.strictEqual(usage.code, 2)
      }),
    timeout
  )
})
