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
import { maxUnadmitted, pingRequest, preamble } from "../src/internal/transport.js"
import { config } from "./fixtures/typescriptConfig.js"
import { descendants, freePort, startRunner, tempDirectory, waitFor, workspaces } from "./support.js"

// The cluster's own socket protocol behind a token and TLS, with real runner processes: what a peer with the
// token gets (answers), and what a peer without it gets (a closed connection, not one byte).

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

/** The first bytes a raw connection receives, or dies after `timeoutMs`. */
const firstBytes = (open: () => Net.Socket, send: Uint8Array, timeoutMs: number): Effect.Effect<number> =>
  Effect.async<number, Error>((resume) => {
    const conn = open()
    const timer = setTimeout(() => resume(Effect.fail(new Error("no answer"))), timeoutMs)
    conn.on("error", (error) => resume(Effect.fail(error)))
    conn.once("data", (chunk: Buffer) => resume(Effect.succeed(chunk.length)))
    conn.once("connect", () => conn.write(send))
    return Effect.sync(() => {
      clearTimeout(timer)
      conn.destroy()
    })
  }).pipe(Effect.orDie)

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
          concat(preamble(secret), pingRequest()),
          10_000
        )
        assert.strictEqual(plain.received, 0)
        const wrong = yield* exchange(
          () => Tls.connect({ host, port, ca: certificate.cert }),
          concat(preamble(token()), pingRequest()),
          10_000
        )
        assert.strictEqual(wrong.received, 0)
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
    "a peer without the token gets a closed connection and not one byte, and no query of it runs",
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
        assert.isAbove(yield* firstBytes(dial, concat(preamble(secret), pingRequest()), 10_000), 0)
        // Without it (nothing, garbage, the protocol itself, a wrong token), the connection closes silently.
        for (
          const [what, bytes] of [
            ["garbage", Crypto.randomBytes(64)],
            ["a request without a token", concat(pingRequest(), Buffer.alloc(32))],
            ["a wrong token", concat(preamble(token()), pingRequest())]
          ] as const
        ) {
          const refused = yield* exchange(dial, bytes, 15_000)
          assert.strictEqual(refused.received, 0, what)
        }
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
