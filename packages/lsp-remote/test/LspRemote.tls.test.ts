import { assert, describe, it } from "@effect/vitest"
import { LspRemoteClient, LspRemoteServer } from "@lsp-seam/lsp-remote"
import { selfSignedCertificate } from "@lsp-seam/lsp-remote/testing"
import { Context, Effect, Layer } from "effect"
import * as Tls from "node:tls"
import { codeOf, makeHost, request, serveHttp, tempDir, token } from "./support.js"

/** A self-signed certificate for 127.0.0.1 and localhost in a directory of the test's own. */
const selfSigned = Effect.map(tempDir, (dir) => ({ dir, ...selfSignedCertificate(dir, "host") }))

const serveTls = (tls: { readonly cert: string; readonly key: string }) =>
  Effect.gen(function*() {
    const host = yield* makeHost
    const built = yield* Layer.build(LspRemoteServer.layerHttp({ port: 0, token, tls })).pipe(
      Effect.provide(host.context)
    )
    const address = Context.get(built, LspRemoteServer.LspRemoteServer).address
    if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("expected a TCP address")
    return { host, port: address.port }
  })

describe("LspRemote over TLS", () => {
  it.scopedLive("a client trusting the certificate (ca) gets answers over wss://", () =>
    Effect.gen(function*() {
      const certificate = yield* selfSigned
      const { host, port } = yield* serveTls(certificate)
      for (const url of [`wss://127.0.0.1:${port}/lsp-seam`, `wss://localhost:${port}/lsp-seam`]) {
        const client = yield* LspRemoteClient.make({
          transport: LspRemoteClient.webSocket(url, token, { ca: certificate.cert })
        })
        assert.deepStrictEqual(
          yield* client.query(request("src/a.ts")),
          yield* host.service.query(request("src/a.ts"))
        )
      }
    }))

  it.scopedLive("a client that does not trust it gets LSP_REMOTE_UNAVAILABLE naming TLS, never an answer", () =>
    Effect.gen(function*() {
      const certificate = yield* selfSigned
      const { port } = yield* serveTls(certificate)
      const client = yield* LspRemoteClient.make({
        transport: LspRemoteClient.webSocket(`wss://127.0.0.1:${port}/lsp-seam`, token)
      })
      const error = yield* Effect.flip(client.query(request("src/a.ts")))
      assert.strictEqual(error.code, "LSP_REMOTE_UNAVAILABLE")
      assert.match(error.message, /TLS certificate is not trusted \([A-Z_]+\); nothing was sent/)
      assert.match(String(error.detail?.tls), /SELF_SIGNED|UNABLE_TO_VERIFY/)
      // Another certificate's CA does not help either.
      const other = yield* selfSigned
      const wrongCa = yield* LspRemoteClient.make({
        transport: LspRemoteClient.webSocket(`wss://127.0.0.1:${port}/lsp-seam`, token, { ca: other.cert })
      })
      assert.strictEqual(yield* codeOf(wrongCa.query(request("src/a.ts"))), "LSP_REMOTE_UNAVAILABLE")
    }))

  it.scopedLive("an untrusted host never receives the token: not one byte after the handshake", () =>
    Effect.gen(function*() {
      const certificate = yield* selfSigned
      // An impostor with a certificate the client does not trust: it records everything it can read.
      let received = ""
      let handshakes = 0
      const impostor = Tls.createServer({ cert: certificate.cert, key: certificate.key }, (socket) => {
        handshakes++
        socket.on("data", (chunk) => {
          received += chunk.toString("utf8")
        })
        socket.on("error", () => {})
      })
      impostor.on("tlsClientError", () => {})
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => {
          impostor.listen(0, "127.0.0.1", () => resume(Effect.void))
        }),
        () => Effect.sync(() => impostor.close())
      )
      const port = (impostor.address() as { readonly port: number }).port
      const client = yield* LspRemoteClient.make({
        transport: LspRemoteClient.webSocket(`wss://127.0.0.1:${port}/lsp-seam`, token)
      })
      assert.strictEqual(yield* codeOf(client.query(request("src/a.ts"))), "LSP_REMOTE_UNAVAILABLE")
      assert.strictEqual(handshakes, 0)
      assert.strictEqual(received, "")
    }))

  it.scopedLive("plaintext against the TLS port, and TLS against a plaintext port: coded errors", () =>
    Effect.gen(function*() {
      const certificate = yield* selfSigned
      const { port } = yield* serveTls(certificate)
      const plain = yield* LspRemoteClient.make({
        transport: LspRemoteClient.webSocket(`ws://127.0.0.1:${port}/lsp-seam`, token),
        connectTimeoutMs: 1_000
      })
      const plainError = yield* Effect.flip(plain.query(request("src/a.ts")))
      assert.strictEqual(plainError.code, "LSP_REMOTE_UNAVAILABLE")
      // Not "Start it": something listens there, and it speaks TLS.
      assert.match(plainError.message, /speaks TLS.*wss:\/\/127\.0\.0\.1:[0-9]+\/lsp-seam/)
      assert.notInclude(plainError.message, "Start it")
      const host = yield* makeHost
      const { port: plainPort } = yield* serveHttp(host.context)
      const secure = yield* LspRemoteClient.make({
        transport: LspRemoteClient.webSocket(`wss://127.0.0.1:${plainPort}/lsp-seam`, token, { ca: certificate.cert })
      })
      const error = yield* Effect.flip(secure.query(request("src/a.ts")))
      assert.strictEqual(error.code, "LSP_REMOTE_UNAVAILABLE")
      assert.match(error.message, /does not speak TLS/)
    }))

  it.scopedLive("a certificate that has expired, or is not valid yet, is refused at start", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const day = 24 * 60 * 60 * 1000
      const now = Date.now()
      for (
        const [name, notBefore, notAfter, said] of [
          ["expired", now - 3 * day, now - day, /expired on .*Renew it/],
          ["early", now + day, now + 3 * day, /not valid until .*clock/]
        ] as const
      ) {
        const certificate = selfSignedCertificate(dir, name, {
          notBefore: new Date(notBefore),
          notAfter: new Date(notAfter)
        })
        const refused = yield* Effect.flip(serveTls(certificate))
        assert.strictEqual(refused.code, "LSP_INVALID_CONFIG", name)
        assert.match(refused.message, said)
      }
    }))

  it.scopedLive("an address other machines reach needs TLS or allowPlaintext", () =>
    Effect.gen(function*() {
      const host = yield* makeHost
      const refused = yield* Effect.flip(serveHttp(host.context, { host: "0.0.0.0" }))
      assert.strictEqual(refused.code, "LSP_INVALID_CONFIG")
      assert.match(refused.message, /without TLS/)
      const allowed = yield* serveHttp(host.context, { host: "0.0.0.0", allowPlaintext: true })
      assert.isAbove(allowed.port, 0)
      const certificate = yield* selfSigned
      const secure = yield* serveHttp(host.context, { host: "0.0.0.0", tls: certificate })
      const client = yield* LspRemoteClient.make({
        transport: LspRemoteClient.webSocket(`wss://127.0.0.1:${secure.port}/lsp-seam`, token, {
          ca: certificate.cert
        })
      })
      assert.strictEqual(yield* codeOf(client.query(request("src/a.ts"))), "success")
    }))
})
