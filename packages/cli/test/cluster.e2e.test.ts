import { assert, describe, it } from "@effect/vitest"
import { selfSignedCertificate } from "@lsp-seam/lsp-remote/testing"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as Net from "node:net"
import * as NodePath from "node:path"
import { bin, runCli, scopedTempDir } from "./support/cli.js"
import { fakeWorkspace, serve, startedPids, waitFor } from "./support/remote.js"

// `lsp-seam runner` and `lsp-seam serve --cluster` end to end: the compiled command in real processes, a runner
// over SQLite storage behind a token and TLS, serve in front of it, and `query --remote` asking serve.
const timeout = 90_000

const hoverFake = { answers: { "textDocument/hover": { contents: "fake hover" } } }

/** A TCP port nothing listens on right now. */
const freePort: Effect.Effect<number> = Effect.async((resume) => {
  const server = Net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

interface StartedRunner {
  readonly stderr: () => string
}

/** `lsp-seam runner …` in `cwd`, once it has joined; stopped (SIGTERM) with the scope. */
const runner = (args: ReadonlyArray<string>, cwd: string): Effect.Effect<StartedRunner, never, Scope.Scope> =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        ChildProcess.spawn(process.execPath, [bin, "runner", ...args], { cwd, stdio: ["ignore", "ignore", "pipe"] })
      ),
      (child) =>
        Effect.gen(function*() {
          if (child.exitCode !== null || child.signalCode !== null) return
          child.kill("SIGTERM")
          yield* waitFor("the runner to stop", () => child.exitCode !== null || child.signalCode !== null, 15_000)
            .pipe(Effect.catchAllDefect(() => Effect.sync(() => child.kill("SIGKILL"))))
        })
    )
    let stderr = ""
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    yield* waitFor("the runner to join", () => /joined the cluster/.test(stderr) || child.exitCode !== null, 60_000)
    if (child.exitCode !== null) return yield* Effect.die(new Error(`the runner exited:\n${stderr}`))
    return { stderr: () => stderr }
  })

/** A fake-server workspace, and in a directory of their own a certificate, a token path and SQLite storage. */
const clusterFiles = Effect.gen(function*() {
  const fake = yield* fakeWorkspace({ fake: { extension: ".fake", fake: hoverFake } })
  const secrets = yield* scopedTempDir("cluster-secrets")
  const certificate = selfSignedCertificate(secrets, "runner")
  const tokenFile = NodePath.join(secrets, "cluster.token")
  return { fake, secrets, certificate, tokenFile, storage: `sqlite:${NodePath.join(secrets, "cluster.db")}` }
})

describe("lsp-seam runner and serve --cluster", () => {
  it.scopedLive(
    "a runner with a token and TLS over SQLite, serve --cluster in front: query --remote answers as locally",
    () =>
      Effect.gen(function*() {
        const { certificate, fake, secrets, storage, tokenFile } = yield* clusterFiles
        const started = yield* runner([
          "--storage",
          storage,
          "--listen",
          `127.0.0.1:${yield* freePort}`,
          "--root",
          fake.dir,
          "--token-file",
          tokenFile,
          "--tls-cert",
          certificate.certFile,
          "--tls-key",
          certificate.keyFile,
          "--ca-file",
          certificate.certFile
        ], fake.dir)
        // The first runner writes the cluster's token, readable by its owner only.
        assert.include(started.stderr(), `lsp-seam runner: wrote a new token to ${tokenFile}`)
        assert.strictEqual(NodeFs.statSync(tokenFile).mode & 0o777, 0o600)
        assert.include(started.stderr(), "lsp-seam runner: TLS, token required")
        const socket = NodePath.join(fake.runtimeDir, "cluster.sock")
        const served = yield* serve([
          "--socket",
          socket,
          "--cluster",
          storage,
          "--cluster-token-file",
          tokenFile,
          "--cluster-ca-file",
          certificate.certFile
        ], { cwd: fake.dir })
        assert.include(served.stderr(), "servers: the cluster at")
        const remote = yield* runCli(["query", "hover", "fake.fake:1:1", "--remote", socket], { cwd: fake.dir })
        const local = yield* runCli(["query", "hover", "fake.fake:1:1"], { cwd: fake.dir })
        assert.deepStrictEqual(local, { code: 0, stdout: "fake hover\n", stderr: "" })
        assert.deepStrictEqual(remote, local)
        // One server for the remote answer (on the runner), one for the local one.
        assert.strictEqual(startedPids(fake.record("fake")).length, 2)
        assert.notInclude(started.stderr(), "refused a connection")
        // serve with another token is turned away at its start, before it listens.
        const otherToken = NodePath.join(secrets, "other.token")
        NodeFs.writeFileSync(otherToken, "another-token-of-the-right-shape\n", { mode: 0o600 })
        const refused = yield* runCli([
          "serve",
          "--socket",
          NodePath.join(fake.runtimeDir, "refused.sock"),
          "--cluster",
          storage,
          "--cluster-token-file",
          otherToken,
          "--cluster-ca-file",
          certificate.certFile
        ], { cwd: fake.dir })
        assert.strictEqual(refused.code, 1, refused.stderr)
        assert.match(
          refused.stderr,
          /^error\[LSP_INVALID_CONFIG\]: The cluster's runners at 127\.0\.0\.1:[0-9]+ refused/
        )
        assert.isFalse(NodeFs.existsSync(NodePath.join(fake.runtimeDir, "refused.sock")))
      }),
    timeout
  )

  it.scopedLive(
    "an address other machines reach: refused without a token, or without TLS unless --allow-plaintext",
    () =>
      Effect.gen(function*() {
        const { certificate, fake, storage, tokenFile } = yield* clusterFiles
        const listen = `0.0.0.0:${yield* freePort}`
        const base = ["--storage", storage, "--listen", listen, "--root", fake.dir]
        const tls = ["--tls-cert", certificate.certFile, "--tls-key", certificate.keyFile]
        const plain = yield* runCli(["runner", ...base, "--token-file", tokenFile], { cwd: fake.dir })
        assert.strictEqual(plain.code, 2, plain.stderr)
        assert.match(plain.stderr, /^lsp-seam: --listen 0\.0\.0\.0:[0-9]+ can be reached from other machines/)
        assert.include(plain.stderr, "--tls-cert FILE --tls-key FILE")
        assert.include(plain.stderr, "--allow-plaintext")
        const tokenless = yield* runCli(["runner", ...base, ...tls], { cwd: fake.dir })
        assert.strictEqual(tokenless.code, 2, tokenless.stderr)
        assert.include(tokenless.stderr, "--token-file FILE")
        // With TLS and a token it joins (announcing the address others dial).
        yield* Effect.scoped(Effect.gen(function*() {
          const secured = yield* runner(
            [...base, ...tls, "--token-file", tokenFile, "--advertise", "127.0.0.1"],
            fake.dir
          )
          assert.match(secured.stderr(), /joined the cluster at .* as 127\.0\.0\.1:[0-9]+/)
          assert.notInclude(secured.stderr(), "WARNING")
        }))
        // With --allow-plaintext it joins too, and says at every start what that exposes.
        const exposed = yield* runner([...base, "--token-file", tokenFile, "--allow-plaintext"], fake.dir)
        assert.include(exposed.stderr(), "lsp-seam runner: WARNING: --allow-plaintext:")
      }),
    timeout
  )

  it.scopedLive(
    "a store others may write: runner and serve --cluster exit 1, --allow-writable-storage warns",
    () =>
      Effect.gen(function*() {
        const { fake, secrets, storage } = yield* clusterFiles
        const store = NodePath.join(secrets, "cluster.db")
        NodeFs.writeFileSync(store, "")
        NodeFs.chmodSync(store, 0o666)
        const base = ["--storage", storage, "--listen", `127.0.0.1:${yield* freePort}`, "--root", fake.dir]
        const refused = yield* runCli(["runner", ...base], { cwd: fake.dir })
        assert.strictEqual(refused.code, 1, refused.stderr)
        assert.match(refused.stderr, /error\[LSP_INVALID_CONFIG\]: Refusing the cluster storage .* world-writable/)
        const front = yield* runCli(["serve", "--socket", NodePath.join(secrets, "s.sock"), "--cluster", storage], {
          cwd: fake.dir
        })
        assert.strictEqual(front.code, 1, front.stderr)
        assert.include(front.stderr, "--allow-writable-storage")
        const accepted = yield* runner([...base, "--allow-writable-storage"], fake.dir)
        assert.include(accepted.stderr(), "WARNING: --allow-writable-storage")
      }),
    timeout
  )

  it.scopedLive(
    "a certificate that has expired or is not valid yet: the runner exits 1 before it joins",
    () =>
      Effect.gen(function*() {
        const { fake, secrets, storage, tokenFile } = yield* clusterFiles
        const day = 24 * 60 * 60 * 1000
        for (const [name, from, to] of [["expired", -3 * day, -day], ["early", day, 3 * day]] as const) {
          const { certFile, keyFile } = selfSignedCertificate(secrets, name, {
            notBefore: new Date(Date.now() + from),
            notAfter: new Date(Date.now() + to)
          })
          const refused = yield* runCli([
            "runner",
            "--storage",
            storage,
            "--listen",
            `127.0.0.1:${yield* freePort}`,
            "--root",
            fake.dir,
            "--token-file",
            tokenFile,
            "--tls-cert",
            certFile,
            "--tls-key",
            keyFile
          ], { cwd: fake.dir })
          assert.strictEqual(refused.code, 1, `${name}: ${refused.stderr}`)
          assert.match(
            refused.stderr,
            name === "expired"
              ? /error\[LSP_INVALID_CONFIG\]: The TLS certificate \(--tls-cert, .*\) expired on /
              : /error\[LSP_INVALID_CONFIG\]: The TLS certificate \(--tls-cert, .*\) is not valid until /,
            name
          )
          assert.notInclude(refused.stderr, "joined the cluster")
        }
      }),
    timeout
  )
})
