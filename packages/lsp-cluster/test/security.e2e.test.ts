import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as RunnerStorage from "@effect/cluster/RunnerStorage"
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as SqlRunnerStorage from "@effect/cluster/SqlRunnerStorage"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { type LspQuery, LspService } from "@lsp-seam/lsp"
import { LspClusterClient, LspClusterRunner, LspClusterStorage } from "@lsp-seam/lsp-cluster"
import { LspRemoteAuth } from "@lsp-seam/lsp-remote"
import { selfSignedCertificate } from "@lsp-seam/lsp-remote/testing"
import { LspStdio } from "@lsp-seam/lsp-stdio"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Crypto from "node:crypto"
import * as Net from "node:net"
import * as NodePath from "node:path"
import * as Tls from "node:tls"
import { initiate, nonceLength } from "../src/internal/handshake.js"
import { maxUnadmitted, pingRequest, probe } from "../src/internal/transport.js"
import { config } from "./fixtures/typescriptConfig.js"
import { descendants, freePort, startRunner, tempDirectory, waitFor, workspaces } from "./support.js"

// The cluster's own socket protocol behind a token and TLS, with real runner processes: what a peer with the
// token gets (answers), and what a peer without it gets (the runner's random challenge, then a closed connection).

const token = () => Redacted.make(Crypto.randomBytes(24).toString("base64url"))

const hover = (workspaceRoot: string): LspQuery.LspQueryRequest => ({
  operation: "hover",
  filePath: "main.ts",
  position: { line: 2, character: 8 },
  workspaceRoot
})

/** The bytes a raw connection receives until the runner closes it (dies after `timeoutMs`). */
const exchange = (
  open: () => Net.Socket,
  send: Uint8Array,
  timeoutMs: number
): Effect.Effect<{ readonly received: number }> =>
  Effect.async<{ readonly received: number }, Error>((resume) => {
    let received = 0
    const conn = open()
    const timer = setTimeout(() => {
      conn.destroy()
      resume(Effect.fail(new Error(`the runner kept the connection open (${received} bytes received)`)))
    }, timeoutMs)
    conn.on("data", (chunk: Buffer) => (received += chunk.length))
    conn.on("error", () => {})
    conn.once(conn instanceof Tls.TLSSocket ? "secureConnect" : "connect", () => conn.write(send))
    conn.once("close", () => {
      clearTimeout(timer)
      resume(Effect.succeed({ received }))
    })
    return Effect.sync(() => {
      clearTimeout(timer)
      conn.destroy()
    })
  }).pipe(Effect.orDie)

/** The length of the first answer to a ping sent after proving `secret` on a raw connection (dies on failure). */
const pingAfterHandshake = (open: () => Net.Socket, secret: Redacted.Redacted<string>) =>
  Effect.scoped(Effect.gen(function*() {
    const conn = yield* Effect.acquireRelease(Effect.sync(open), (conn) => Effect.sync(() => conn.destroy()))
    conn.on("error", () => {})
    yield* Effect.async<void>((resume) => {
      conn.once(conn instanceof Tls.TLSSocket ? "secureConnect" : "connect", () => resume(Effect.void))
    })
    yield* initiate(conn, secret)
    conn.write(pingRequest())
    return yield* Effect.async<number>((resume) => {
      conn.once("data", (chunk: Buffer) => resume(Effect.succeed(chunk.length)))
    })
  })).pipe(Effect.timeout("10 seconds"), Effect.orDie)

/** A listener on loopback handing each connection to `onConnection`; its port. Closed with the scope. */
const listener = (onConnection: (conn: Net.Socket) => void) =>
  Effect.acquireRelease(
    Effect.async<Net.Server>((resume) => {
      const server = Net.createServer((conn) => {
        conn.on("error", () => {})
        onConnection(conn)
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
  ).pipe(Effect.map((server) => {
    const address = server.address()
    return typeof address === "object" && address !== null ? address.port : 0
  }))

/** Starts a runner that must not join: it exits, and says which runners refused it. */
const refusedRunner = (options: Parameters<typeof startRunner>[0]) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(startRunner(options))
    assert.isTrue(Exit.isFailure(exit), "the runner joined")
    const why = Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""
    assert.match(why, /the runner exited \(1\)/)
    assert.match(why, /LSP_INVALID_CONFIG|refused this runner/)
    return why
  })

/** Whether the storage lists a runner at `address` now. */
const registered = (storage: LspClusterStorage.Storage, address: string) =>
  Effect.flatMap(RunnerStorage.RunnerStorage, (runners) =>
    runners.getRunners.pipe(
      Effect.map((listed) => listed.some(([r]) => `${r.address.host}:${r.address.port}` === address))
    )).pipe(
      Effect.provide(SqlRunnerStorage.layer.pipe(
        Layer.provide([LspClusterStorage.layer(storage), ShardingConfig.layer()])
      )),
      Effect.orDie
    )

/** Opens one connection more than a runner lets wait unadmitted, sending nothing: ms until the oldest closed. */
const oldestClosedPastCap = (dial: () => Net.Socket) =>
  Effect.gen(function*() {
    const stalled = Array.from({ length: maxUnadmitted + 1 }, dial)
    const openedAt = Date.now()
    const oldestClosed = yield* Effect.async<number>((resume) => {
      stalled[0]!.on("error", () => {})
      stalled[0]!.once("close", () => resume(Effect.succeed(Date.now() - openedAt)))
    })
    for (const conn of stalled) conn.destroy()
    return oldestClosed
  })

const concat = (...parts: ReadonlyArray<Uint8Array>) => Buffer.concat(parts.map((part) => Buffer.from(part)))

describe("the cluster's protocol behind a token and TLS", () => {
  it.scopedLive(
    "runners with a token and TLS answer a query as a local host does; the answer needs both",
    () =>
      Effect.gen(function*() {
        const directory = yield* tempDirectory("lsp-cluster-tls-")
        const root = NodePath.join(directory, "root")
        const [workspace] = workspaces(root, 1)
        const certificate = selfSignedCertificate(directory, "runner")
        const secret = token()
        const storageText = `sqlite:${NodePath.join(directory, "cluster.db")}`
        const secured = [
          // One argument: a random token may begin with "-".
          `--token=${Redacted.value(secret)}`,
          "--tls-cert",
          certificate.certFile,
          "--tls-key",
          certificate.keyFile,
          "--ca-file",
          certificate.certFile
        ]
        const first = yield* startRunner({ storage: storageText, port: yield* freePort, root, extra: secured })
        const second = yield* startRunner({ storage: storageText, port: yield* freePort, root, extra: secured })
        const storage = yield* LspClusterStorage.decode(storageText)
        const client = Context.get(
          yield* Layer.build(LspClusterClient.layer({ storage, token: secret, tls: { ca: certificate.cert } })),
          LspClusterClient.LspClusterClient
        )
        const answer = yield* client.query(hover(workspace!))
        const local = yield* Effect.scoped(Effect.flatMap(
          Layer.build(
            LspStdio.layer(config).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer))
          ),
          (context) => Context.get(context, LspService.LspService).query(hover(workspace!))
        ))
        assert.deepStrictEqual(answer, local)
        // The token without TLS does not reach them: such a client is turned away at its start.
        const plainClient = yield* Effect.flip(Layer.build(LspClusterClient.layer({ storage, token: secret })))
        assert.strictEqual(plainClient.code, "LSP_INVALID_CONFIG")
        assert.include(plainClient.message, "refused this client")
        const placed = yield* client.hello(workspace!)
        assert.include([first.address, second.address], placed.fingerprint)
        for (const runner of [first, second]) assert.notInclude(runner.output(), "refused a connection")

        // The TLS listener speaks only TLS, and a TLS peer without the token gets no byte back.
        const [host, port] = [first.address.split(":")[0]!, Number(first.address.split(":")[1])]
        const plain = yield* exchange(
          () => Net.connect({ host, port }),
          concat(Crypto.randomBytes(2 * nonceLength), pingRequest()),
          10_000
        )
        assert.strictEqual(plain.received, 0)
        assert.isAbove(yield* pingAfterHandshake(() => Tls.connect({ host, port, ca: certificate.cert }), secret), 0)
        const wrong = yield* Effect.flip(initiate(Tls.connect({ host, port, ca: certificate.cert }), token()))
        assert.include(wrong.message, "closed during the handshake")
        yield* waitFor("the refusal to be logged", () => first.output().includes("refused a connection"), 5_000)
        // Stalled handshakes (TCP connections that never say hello) count against the same cap as stalled tokens:
        // one past it closes the oldest at once, long before its 10 s to complete the handshake.
        assert.isBelow(yield* oldestClosedPastCap(() => Net.connect({ host, port })), 5_000)
        // And one alone is closed at the 10 s deadline, not held for ever (a TLS server's own handshake timeout
        // starts only with the peer's hello).
        const silent = Net.connect({ host, port })
        const silentAt = Date.now()
        const silentClosed = yield* Effect.async<number>((resume) => {
          silent.on("error", () => {})
          silent.once("close", () => resume(Effect.succeed(Date.now() - silentAt)))
        }).pipe(Effect.timeout("30 seconds"))
        assert.isAtLeast(silentClosed, 9_000)
        // A runner with the token but without TLS cannot join: the runners refuse it before it registers.
        const why = yield* refusedRunner({
          storage: storageText,
          port: yield* freePort,
          root,
          extra: [`--token=${Redacted.value(secret)}`]
        })
        assert.include(why, first.address)
      }),
    120_000
  )

  it.scopedLive(
    "a peer without the token gets the runner's challenge and a closed connection, and no query of it runs",
    () =>
      Effect.gen(function*() {
        const directory = yield* tempDirectory("lsp-cluster-token-")
        const root = NodePath.join(directory, "root")
        const [workspace] = workspaces(root, 1)
        const secret = token()
        const storageText = `sqlite:${NodePath.join(directory, "cluster.db")}`
        const runner = yield* startRunner({
          storage: storageText,
          port: yield* freePort,
          root,
          extra: [`--token=${Redacted.value(secret)}`]
        })
        const [host, port] = [runner.address.split(":")[0]!, Number(runner.address.split(":")[1])]
        const dial = () => Net.connect({ host, port })
        // With the token, the runner's protocol answers a ping: the request below is well formed.
        assert.isAbove(yield* pingAfterHandshake(dial, secret), 0)
        // Without it (garbage, the protocol itself), the runner sends its challenge and closes: nothing else.
        for (
          const [what, bytes] of [
            ["garbage", Crypto.randomBytes(64)],
            ["a request without a token", concat(pingRequest(), Buffer.alloc(64))]
          ] as const
        ) {
          const refused = yield* exchange(dial, bytes, 15_000)
          assert.strictEqual(refused.received, nonceLength, what)
        }
        // A wrong token fails the handshake: the runner closes before proving its own.
        const wrongToken = yield* Effect.flip(initiate(Net.connect({ host, port }), token()))
        assert.include(wrongToken.message, "closed during the handshake")
        // Stalled connections (nothing sent) cannot hold the runner: one past the cap closes the oldest at once,
        // long before its 10 s to present a token.
        assert.isBelow(yield* oldestClosedPastCap(dial), 5_000)
        // A client with a wrong token is turned away at its start, and the runner started no language server.
        // (The client's check reads the storage: a runner says it has joined only once the storage lists it.)
        const storage = yield* LspClusterStorage.decode(storageText)
        assert.isTrue(yield* registered(storage, runner.address), "listed when it said it had joined")
        const intruder = yield* Effect.flip(Layer.build(LspClusterClient.layer({ storage, token: token() })))
        assert.strictEqual(intruder.code, "LSP_INVALID_CONFIG")
        assert.include(intruder.message, `The cluster's runners at ${runner.address} refused this client`)
        assert.deepStrictEqual(descendants(runner.pid), [])
        assert.match(runner.output(), /refused a connection from 127\.0\.0\.1:[0-9]+: a wrong token/)
        // The right client is answered by the same runner.
        const member = Context.get(
          yield* Layer.build(LspClusterClient.layer({ storage, token: secret })),
          LspClusterClient.LspClusterClient
        )
        assert.strictEqual((yield* member.query(hover(workspace!))).kind, "hover")
        // A runner with a wrong token cannot join (it would be given shards it could not serve to anyone).
        const why = yield* refusedRunner({
          storage: storageText,
          port: yield* freePort,
          root,
          extra: [`--token=${Redacted.value(token())}`]
        })
        assert.include(why, `refused this runner`)
        assert.strictEqual((yield* member.query(hover(workspace!))).kind, "hover")
      }),
    120_000
  )

  it.scopedLive(
    "a recorded handshake cannot be replayed, and a runner without the token learns nothing of a client",
    () =>
      Effect.gen(function*() {
        const directory = yield* tempDirectory("lsp-cluster-replay-")
        const root = NodePath.join(directory, "root")
        workspaces(root, 1)
        const secret = token()
        const runner = yield* startRunner({
          storage: `sqlite:${NodePath.join(directory, "cluster.db")}`,
          port: yield* freePort,
          root,
          extra: [`--token=${Redacted.value(secret)}`]
        })
        const [host, port] = [runner.address.split(":")[0]!, Number(runner.address.split(":")[1])]
        // A wiretap on a plaintext cluster: a relay that records what a genuine client sends the runner.
        const recorded: Array<Buffer> = []
        const relay = yield* listener((conn) => {
          const upstream = Net.connect({ host, port })
          upstream.on("error", () => conn.destroy())
          conn.on("data", (chunk: Buffer) => {
            recorded.push(chunk)
            upstream.write(chunk)
          })
          upstream.pipe(conn)
          conn.once("close", () => upstream.destroy())
        })
        const security = { token: secret, tls: undefined }
        assert.strictEqual(yield* probe(RunnerAddress.make("127.0.0.1", relay), security), "admitted")
        assert.isAbove(recorded.length, 0)
        // Those bytes, sent again on a new connection, get no answer of the protocol: only a fresh challenge.
        const replayed = yield* exchange(() => Net.connect({ host, port }), Buffer.concat(recorded), 15_000)
        assert.isAtMost(replayed.received, nonceLength)
        yield* waitFor("the replay to be refused", () =>
          /refused a connection .*a wrong token/.test(runner.output()), 5_000)
        // A listener that does not hold the token (say, an address forged into the storage) gets from a client
        // its challenge and one proof bound to its own nonce, never a request: the client waits for its proof.
        const received: Array<Buffer> = []
        const impostor = yield* listener((conn) => {
          conn.on("data", (chunk: Buffer) =>
            received.push(chunk))
          conn.write(Crypto.randomBytes(64))
        })
        assert.strictEqual(yield* probe(RunnerAddress.make("127.0.0.1", impostor), security), "refused")
        assert.isAtMost(Buffer.concat(received).length, 2 * nonceLength)
      }),
    60_000
  )

  it.effect("a runner refuses an address other machines reach without a token, or without TLS unless told", () =>
    Effect.gen(function*() {
      const storage = yield* LspClusterStorage.decode("sqlite:/nonexistent/never-opened.db")
      const build = (options: Partial<LspClusterRunner.Options>) =>
        Effect.scoped(Effect.flip(Layer.build(LspClusterRunner.layer({ storage, port: 34431, config, ...options }))))
      const secret = Either.getOrThrow(LspRemoteAuth.make("a-token-of-sixteen-or-more"))
      const noToken = yield* build({ host: "0.0.0.0", allowPlaintext: true })
      assert.strictEqual(noToken.code, "LSP_INVALID_CONFIG")
      assert.include(noToken.message, "--token-file")
      const noTls = yield* build({ host: "0.0.0.0", token: secret })
      assert.strictEqual(noTls.code, "LSP_INVALID_CONFIG")
      assert.include(noTls.message, "--tls-cert")
      assert.include(noTls.message, "--allow-plaintext")
      const badTls = yield* build({ host: "0.0.0.0", token: secret, tls: { cert: "not a certificate", key: "no" } })
      assert.strictEqual(badTls.code, "LSP_INVALID_CONFIG")
      assert.include(badTls.message, "TLS")
    }))
})
