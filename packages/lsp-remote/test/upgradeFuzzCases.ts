/**
 * The cases of the upgrade and authentication fuzz, shared by its test (LspRemote.upgradeFuzz.test.ts) and the
 * reliability bench (bench/upgradeFuzz.ts): random bytes; upgrade requests with random request lines, headers,
 * and missing, wrong, near-miss or misplaced tokens, cut at a random byte; well-formed upgrades with near-miss
 * tokens; each maybe followed by a partial WebSocket frame. Seeded: the same cases for the same seed.
 */
import { Effect, FastCheck } from "effect"
import * as Crypto from "node:crypto"
import * as Net from "node:net"

const webSocketKey = () => Crypto.randomBytes(16).toString("base64")

const generators = (real: string) => {
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
    FastCheck.constant(`Sec-WebSocket-Key: ${webSocketKey()}`),
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
    const text = upgradeText(auth)
    const bytes = Buffer.from(cut === undefined ? text : text.slice(0, cut % (text.length + 1)), "utf8")
    return frame === undefined ? [bytes] : [bytes, Buffer.from(frame)]
  })

  return FastCheck.oneof({ weight: 1, arbitrary: connection }, { weight: 1, arbitrary: wellFormed })
}

/** A complete upgrade request to `/lsp-seam` with the given authentication headers. */
const upgradeText = (auth: ReadonlyArray<string>) =>
  "GET /lsp-seam HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
  `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${webSocketKey()}\r\n${auth.join("\r\n")}\r\n\r\n`

/** `count` connections' bytes for the host whose token is `token`, drawn with `seed`. */
export const upgradeCases = (
  token: string,
  options: { readonly seed: number; readonly count: number }
): ReadonlyArray<ReadonlyArray<Uint8Array>> =>
  FastCheck.sample(generators(token), { seed: options.seed, numRuns: options.count })

/** The upgrade a real client sends with `token`: the control case, which must upgrade. */
export const rightUpgrade = (token: string): ReadonlyArray<Uint8Array> => [
  Buffer.from(upgradeText([`Sec-WebSocket-Protocol: lsp-seam.rpc.v1, lsp-seam.bearer.${token}`]))
]

export interface Outcome {
  /**
   * The HTTP status the host answered (`"101"`, `"401"`, …), `"closed"` when it closed without a byte,
   * `"other"` when it sent something else; prefixed `open:` when the connection was still open at the limit.
   */
  readonly status: string
  /** From connecting to the close (or to the limit). */
  readonly closedAfterMs: number
}

/** Sends `chunks` to 127.0.0.1:`port` and reads until the host closes the connection, or `limitMs` passes. */
export const exchange = (port: number, chunks: ReadonlyArray<Uint8Array>, limitMs: number): Effect.Effect<Outcome> =>
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

/** How many outcomes have each status. */
export const tally = (outcomes: ReadonlyArray<Outcome>): Record<string, number> => {
  const counts = new Map<string, number>()
  for (const outcome of outcomes) counts.set(outcome.status, (counts.get(outcome.status) ?? 0) + 1)
  return Object.fromEntries([...counts].sort())
}

/** The outcomes that break the rules: upgraded without the token, or left open past the limit. */
export const violations = (outcomes: ReadonlyArray<Outcome>): ReadonlyArray<Outcome> =>
  outcomes.filter((outcome) => outcome.status.includes("101") || outcome.status.startsWith("open"))
