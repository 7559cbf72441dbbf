import { assert, describe, it } from "@effect/vitest"
import { LspRemoteClient } from "@lsp-seam/lsp-remote"
import { Effect, FastCheck, Redacted } from "effect"
import * as Crypto from "node:crypto"
import * as Net from "node:net"
import { makeHost, request, serveHttp, token } from "./support.js"

// A fuzz of the upgrade and authentication path on a real host: random bytes, upgrade requests with random,
// missing, wrong, near-miss or misplaced tokens and headers, cut anywhere, followed by partial WebSocket
// frames. Nothing may be upgraded without the token, every connection must be closed by the host within its
// handshake time, and the host must answer a real client afterwards. Seeded: the same cases every run.
const cases = 1_000
const handshakeTimeoutMs = 500

const real = Redacted.value(token)

const tokenVariant = FastCheck.oneof(
  FastCheck.constant(""),
  FastCheck.constant(real.slice(0, -1)),
  FastCheck.constant(`${real}x`),
  FastCheck.constant(real.toUpperCase()),
  FastCheck.constant(` ${real.slice(1)}`),
  FastCheck.string({ maxLength: 80 }),
  FastCheck.stringMatching(/^[A-Za-z0-9._~-]{16,64}$/)
)

const header = FastCheck.oneof(
  FastCheck.constant("Upgrade: websocket"),
  FastCheck.constant("Connection: Upgrade"),
  FastCheck.constant("Sec-WebSocket-Version: 13"),
  FastCheck.constant(`Sec-WebSocket-Key: ${Crypto.randomBytes(16).toString("base64")}`),
  FastCheck.constant("Sec-WebSocket-Key: not-a-key"),
  FastCheck.constant("Origin: https://example.com"),
  FastCheck.constant("Host: 127.0.0.1"),
  FastCheck.constant("Content-Length: 99999"),
  FastCheck.constant("Transfer-Encoding: chunked"),
  tokenVariant.map((t) => `Authorization: Bearer ${t}`),
  tokenVariant.map((t) => `Authorization: Basic ${t}`),
  tokenVariant.map((t) => `Sec-WebSocket-Protocol: lsp-seam.rpc.v1, lsp-seam.bearer.${t}`),
  tokenVariant.map((t) => `Sec-WebSocket-Protocol: lsp-seam.bearer.${t}`),
  // The right token where it does not count: another header, the path, the query string.
  FastCheck.constant(`X-Token: ${real}`),
  FastCheck.tuple(FastCheck.string({ maxLength: 20 }), FastCheck.string({ maxLength: 40 })).map(([k, v]) =>
    `${k}: ${v}`
  )
)

const requestLine = FastCheck.oneof(
  FastCheck.constant("GET /lsp-seam HTTP/1.1"),
  FastCheck.constant(`GET /lsp-seam?token=${real} HTTP/1.1`),
  FastCheck.constant(`GET /${real} HTTP/1.1`),
  FastCheck.constant("GET / HTTP/1.1"),
  FastCheck.constant("POST /lsp-seam HTTP/1.1"),
  FastCheck.constant("GET /lsp-seam HTTP/1.0"),
  FastCheck.string({ maxLength: 60 })
)

/** One connection's bytes, as chunks written one after another. */
const connection = FastCheck.oneof(
  { weight: 1, arbitrary: FastCheck.array(FastCheck.uint8Array({ maxLength: 512 }), { maxLength: 3 }) },
  {
    weight: 4,
    arbitrary: FastCheck.record({
      line: requestLine,
      headers: FastCheck.array(header, { maxLength: 10 }),
      complete: FastCheck.boolean(),
      cut: FastCheck.nat(),
      frame: FastCheck.option(FastCheck.uint8Array({ minLength: 1, maxLength: 64 }), { nil: undefined })
    }).map(({ complete, cut, frame, headers, line }) => {
      const text = `${line}\r\n${headers.join("\r\n")}${headers.length > 0 ? "\r\n" : ""}${complete ? "\r\n" : ""}`
      const bytes = Buffer.from(complete ? text : text.slice(0, cut % (text.length + 1)), "utf8")
      return frame === undefined ? [bytes] : [bytes, Buffer.from(frame)]
    })
  }
)

// Near misses of the token in its own alphabet, so that the headers stay valid and reach the token check.
const nearMiss = FastCheck.oneof(
  FastCheck.constant(real.slice(0, -1)),
  FastCheck.constant(`${real}x`),
  FastCheck.constant(real.toUpperCase()),
  FastCheck.stringMatching(/^[A-Za-z0-9._~-]{16,64}$/)
)

const authHeader = FastCheck.oneof(
  nearMiss.map((t) => `Authorization: Bearer ${t}`),
  nearMiss.map((t) => `Sec-WebSocket-Protocol: lsp-seam.rpc.v1, lsp-seam.bearer.${t}`),
  FastCheck.constant("Sec-WebSocket-Protocol: lsp-seam.rpc.v1"),
  FastCheck.constant(`X-Token: ${real}`),
  FastCheck.constant("Origin: https://example.com")
)

/** A well-formed upgrade with random authentication headers: the cases that reach the token check. */
const wellFormed = FastCheck.record({
  auth: FastCheck.array(authHeader, { minLength: 1, maxLength: 4 }),
  cut: FastCheck.option(FastCheck.nat(), { nil: undefined, freq: 3 }),
  frame: FastCheck.option(FastCheck.uint8Array({ minLength: 1, maxLength: 64 }), { nil: undefined })
}).map(({ auth, cut, frame }) => {
  const text = "GET /lsp-seam HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
    `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${Crypto.randomBytes(16).toString("base64")}\r\n` +
    `${auth.join("\r\n")}\r\n\r\n`
  const bytes = Buffer.from(cut === undefined ? text : text.slice(0, cut % (text.length + 1)), "utf8")
  return frame === undefined ? [bytes] : [bytes, Buffer.from(frame)]
})

interface Outcome {
  readonly status: string
  readonly closedAfterMs: number
}

/** Sends `chunks` and reads until the host closes the connection (or `limitMs` passes: a hang). */
const exchange = (port: number, chunks: ReadonlyArray<Uint8Array>, limitMs: number) =>
  Effect.async<Outcome>((resume) => {
    const started = Date.now()
    let received = ""
    const socket = Net.createConnection({ host: "127.0.0.1", port }, () => {
      for (const chunk of chunks) if (chunk.length > 0) socket.write(chunk)
    })
    const statusOf = () => /^HTTP\/1\.[01] ([0-9]{3})/.exec(received)?.[1] ?? (received === "" ? "closed" : "other")
    const timer = setTimeout(() => {
      socket.removeAllListeners("close")
      socket.destroy()
      resume(Effect.succeed({ status: `open:${statusOf()}`, closedAfterMs: Date.now() - started }))
    }, limitMs)
    socket.on("data", (data) => {
      received += data.toString("latin1")
    })
    socket.on("error", () => {})
    socket.once("close", () => {
      clearTimeout(timer)
      resume(Effect.succeed({ status: statusOf(), closedAfterMs: Date.now() - started }))
    })
    return Effect.sync(() => {
      clearTimeout(timer)
      socket.destroy()
    })
  })

describe("upgrade and authentication fuzz", () => {
  it.scopedLive(
    `${cases} random connections: none upgraded without the token, none left open, the host serves on`,
    () =>
      Effect.gen(function*() {
        const host = yield* makeHost
        const { port, url } = yield* serveHttp(host.context, { handshakeTimeoutMs, maxPendingConnections: 64 })
        const samples = FastCheck.sample(
          FastCheck.oneof({ weight: 1, arbitrary: connection }, { weight: 1, arbitrary: wellFormed }),
          { seed: 30, numRuns: cases }
        )
        const started = Date.now()
        const outcomes = yield* Effect.forEach(
          samples,
          (chunks) => exchange(port, chunks, handshakeTimeoutMs + 2_000),
          {
            concurrency: 16
          }
        )
        const elapsedMs = Date.now() - started
        const counts = new Map<string, number>()
        for (const outcome of outcomes) {
          counts.set(outcome.status, (counts.get(outcome.status) ?? 0) + 1)
        }
        const slowest = Math.max(...outcomes.map((outcome) => outcome.closedAfterMs))
        console.log(
          `upgrade fuzz: ${cases} connections in ${elapsedMs} ms; outcomes ${
            JSON.stringify(Object.fromEntries([...counts].sort()))
          }; slowest close ${slowest} ms`
        )
        assert.deepStrictEqual(
          [...counts.keys()].filter((status) => status.includes("101") || status.startsWith("open")),
          []
        )
        assert.isBelow(slowest, handshakeTimeoutMs + 1_000)
        // The host is intact, and the oracle is not vacuous: the right token upgrades.
        const client = yield* LspRemoteClient.make({ transport: LspRemoteClient.webSocket(url, token) })
        assert.deepStrictEqual(yield* client.query(request("a.ts")), yield* host.service.query(request("a.ts")))
        const right = yield* exchange(port, [
          Buffer.from(
            "GET /lsp-seam HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
              `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${Crypto.randomBytes(16).toString("base64")}\r\n` +
              `Sec-WebSocket-Protocol: lsp-seam.rpc.v1, lsp-seam.bearer.${real}\r\n\r\n`
          )
        ], 300)
        assert.strictEqual(right.status, "open:101", "the right token upgrades, and the connection stays")
      }),
    120_000
  )
})
