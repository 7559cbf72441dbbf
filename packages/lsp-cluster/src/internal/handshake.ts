/**
 * The token handshake on every connection of a cluster with a token: a challenge–response in which each side
 * proves it holds the token without sending anything that works twice. The connecting side sends a fresh nonce,
 * the runner answers with its own, the connecting side sends an HMAC of both nonces under the token, and only
 * once that holds does the runner send its own HMAC of both (under another label), which the connecting side
 * checks before the protocol's first byte. A recorded exchange is worthless on a new connection (the runner's
 * nonce differs), a peer without the token gets 32 random bytes and a closed connection, and a runner without
 * the token (a forged address in the storage) learns nothing of the queries.
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Crypto from "node:crypto"
import type * as Net from "node:net"

/** The length of each side's nonce, and of each proof (an HMAC-SHA256). */
export const nonceLength = 32

/** The proof a side gives: an HMAC of both nonces, labelled by the side so one cannot be reflected as the other. */
export const proof = (
  token: Redacted.Redacted<string>,
  side: "client" | "runner",
  clientNonce: Uint8Array,
  runnerNonce: Uint8Array
): Buffer =>
  Crypto.createHmac("sha256", Redacted.value(token))
    .update(`lsp-seam.cluster.v2 ${side}\n`, "utf8")
    .update(clientNonce)
    .update(runnerNonce)
    .digest()

/** Reads exactly `length` bytes from a paused socket, leaving what follows for the protocol. */
export const readExactly = (conn: Net.Socket, length: number): Effect.Effect<Buffer, Error> =>
  Effect.async<Buffer, Error>((resume) => {
    const cleanup = () => {
      conn.off("readable", onReadable)
      conn.off("close", onClose)
    }
    const onReadable = () => {
      const chunk: Buffer | null = conn.read(length)
      if (chunk === null) return
      cleanup()
      resume(chunk.length === length ? Effect.succeed(chunk) : Effect.fail(new Error("closed during the handshake")))
    }
    const onClose = () => {
      cleanup()
      resume(Effect.fail(new Error("closed during the handshake")))
    }
    // A connection that waited in a queue may be gone already: no "close" would come again.
    if (conn.destroyed) return resume(Effect.fail(new Error("closed during the handshake")))
    conn.on("readable", onReadable)
    // A "readable" listener added while bytes are buffered is told of them at once.
    conn.on("close", onClose)
    return Effect.sync(cleanup)
  })

const write = (conn: Net.Socket, bytes: Uint8Array) => Effect.sync(() => void conn.write(bytes))

const matches = (received: Buffer, expected: Buffer) =>
  received.length === expected.length && Crypto.timingSafeEqual(received, expected)

/** The runner's side: admits a peer that proves the token, and proves it back; fails for any other. */
export const accept = (conn: Net.Socket, token: Redacted.Redacted<string>): Effect.Effect<void, Error> =>
  Effect.gen(function*() {
    const clientNonce = yield* readExactly(conn, nonceLength)
    const runnerNonce = Crypto.randomBytes(nonceLength)
    yield* write(conn, runnerNonce)
    const received = yield* readExactly(conn, nonceLength)
    if (!matches(received, proof(token, "client", clientNonce, runnerNonce))) {
      return yield* Effect.fail(new Error("a wrong token"))
    }
    yield* write(conn, proof(token, "runner", clientNonce, runnerNonce))
  })

/** The connecting side: proves the token to the runner, and admits a runner only if it proves it back. */
export const initiate = (conn: Net.Socket, token: Redacted.Redacted<string>): Effect.Effect<void, Error> =>
  Effect.gen(function*() {
    const clientNonce = Crypto.randomBytes(nonceLength)
    yield* write(conn, clientNonce)
    const runnerNonce = yield* readExactly(conn, nonceLength)
    yield* write(conn, proof(token, "client", clientNonce, runnerNonce))
    const received = yield* readExactly(conn, nonceLength)
    if (!matches(received, proof(token, "runner", clientNonce, runnerNonce))) {
      return yield* Effect.fail(new Error("the runner does not hold the cluster's token"))
    }
  })
