import { assert, describe, it } from "@effect/vitest"
import { LspRemoteClient } from "@lsp-seam/lsp-remote"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { bin, runCli, workspace } from "./support/cli.js"
import { alive, fakeWorkspace, processesWith, readRecord, serve, startedPids, waitFor } from "./support/remote.js"

// The compiled command end to end: `lsp-seam serve` on a real Unix socket and on TCP, queried by
// `lsp-seam query --remote …` in other processes. Every process a test starts is killed by its scope.
const timeout = 90_000

const socketOf = (address: string) => address.replace(/^unix:/, "")

const hoverFake = { answers: { "textDocument/hover": { contents: "fake hover" } } }

describe("lsp-seam serve and query --remote", () => {
  it.scopedLive("answers a remote query over a Unix socket exactly like a local query", () =>
    Effect.gen(function*() {
      const fake = yield* fakeWorkspace({})
      const served = yield* serve(["--socket", NodePath.join(fake.runtimeDir, "host.sock")], { cwd: workspace })
      assert.match(served.address, /^unix:.*host\.sock$/)
      for (
        const args of [["findReferences", "shape.ts:7:14"], ["hover", "shape.ts:7:14"], [
          "goToDefinition",
          "main.ts:3:36"
        ]]
      ) {
        const local = yield* runCli(["query", ...args])
        const remote = yield* runCli(["query", ...args, "--remote", socketOf(served.address)])
        assert.strictEqual(local.code, 0, local.stderr)
        assert.deepStrictEqual(remote, local)
      }
      const json = yield* runCli(["query", "hover", "shape.ts:7:14", "--json", `--remote=${socketOf(served.address)}`])
      const localJson = yield* runCli(["query", "hover", "shape.ts:7:14", "--json"])
      assert.deepStrictEqual(json, localJson)
      // A coded failure of the host is the same exit 1 and message as locally.
      const missing = yield* runCli(["query", "hover", "nope.ts:1:1", "--remote", socketOf(served.address)])
      const missingLocal = yield* runCli(["query", "hover", "nope.ts:1:1"])
      assert.deepStrictEqual(missing, missingLocal)
      assert.strictEqual(missing.code, 1)
      // Usage errors stay usage errors.
      const usage = yield* runCli(["query", "hover", "shape.ts:x:1", "--remote", socketOf(served.address)])
      assert.strictEqual(usage.code, 2)
    }), timeout)

  it.scopedLive("nothing listening is exit 1 with error[LSP_REMOTE_UNAVAILABLE]", () =>
    Effect.gen(function*() {
      const fake = yield* fakeWorkspace({ fake: { extension: ".fake" } })
      const result = yield* runCli(
        ["query", "hover", "fake.fake:1:1", "--remote", NodePath.join(fake.runtimeDir, "none.sock")],
        { cwd: fake.dir }
      )
      assert.strictEqual(result.code, 1)
      assert.match(result.stderr, /^error\[LSP_REMOTE_UNAVAILABLE\]: /)
      assert.strictEqual(result.stdout, "")
    }), timeout)

  it.scopedLive(
    "TCP: the right token answers; a wrong or missing one is exit 1 error[LSP_REMOTE_UNAUTHORIZED]",
    () =>
      Effect.gen(function*() {
        const fake = yield* fakeWorkspace({ fake: { extension: ".fake", fake: hoverFake } })
        const tokenFile = NodePath.join(fake.runtimeDir, "token")
        const served = yield* serve(["--listen", "127.0.0.1:0", "--token-file", tokenFile], { cwd: fake.dir })
        assert.match(served.address, /^ws:\/\/127\.0\.0\.1:[0-9]+\/lsp-seam$/)
        assert.strictEqual(NodeFs.statSync(tokenFile).mode & 0o777, 0o600)
        const url = served.address.replace(/^ws:/, "http:").replace(/\/lsp-seam$/, "")
        const query = (...extra: Array<string>) => ["query", "hover", "fake.fake:1:1", "--remote", url, ...extra]
        const ok = yield* runCli(query("--token-file", tokenFile), { cwd: fake.dir })
        assert.deepStrictEqual(ok, { code: 0, stdout: "fake hover\n", stderr: "" })
        const viaEnv = yield* runCli(query(), {
          cwd: fake.dir,
          env: { LSP_SEAM_TOKEN: NodeFs.readFileSync(tokenFile, "utf8").trim() }
        })
        assert.strictEqual(viaEnv.code, 0, viaEnv.stderr)
        const ws = yield* runCli(
          ["query", "hover", "fake.fake:1:1", "--remote", served.address, "--token-file", tokenFile],
          { cwd: fake.dir }
        )
        assert.strictEqual(ws.code, 0, ws.stderr)
        const wrong = yield* runCli(query(), { cwd: fake.dir, env: { LSP_SEAM_TOKEN: "x".repeat(32) } })
        assert.strictEqual(wrong.code, 1)
        assert.match(wrong.stderr, /^error\[LSP_REMOTE_UNAUTHORIZED\]: /)
        const missing = yield* runCli(query(), { cwd: fake.dir, env: { LSP_SEAM_TOKEN: "" } })
        assert.strictEqual(missing.code, 1)
        assert.match(missing.stderr, /^error\[LSP_REMOTE_UNAUTHORIZED\]: .*--token-file/)
        assert.notInclude(wrong.stderr + missing.stderr, NodeFs.readFileSync(tokenFile, "utf8").trim())
        // Nothing of the refused clients ran on the host: one server, the one the good queries started.
        assert.strictEqual(startedPids(fake.record("fake")).length, 1)
      }),
    timeout
  )

  it.scopedLive("doctor --remote reports the host and its servers", () =>
    Effect.gen(function*() {
      const fake = yield* fakeWorkspace({ fake: { extension: ".fake", fake: hoverFake } })
      const served = yield* serve(["--socket", NodePath.join(fake.runtimeDir, "host.sock")], { cwd: fake.dir })
      yield* runCli(["query", "hover", "fake.fake:1:1", "--remote", socketOf(served.address)], { cwd: fake.dir })
      const report = yield* runCli(["doctor", "--remote", socketOf(served.address)], { cwd: fake.dir })
      assert.strictEqual(report.code, 0, report.stderr)
      assert.include(report.stdout, `pid ${served.pid}, version 0.1.0, fingerprint `)
      assert.match(report.stdout, /fake .*: idle, pid [0-9]+, up [0-9.]+ s, [0-9]+ queries, 0 restarts, rss /)
      // The memory budget's view travels too (Linux measures the servers; elsewhere it says it cannot).
      assert.match(report.stdout, /\n {2}memory: (servers [0-9.]+ MiB of a budget of )?maxMemory "25%"/)
    }), timeout)

  it.scopedLive(
    "an interrupted query (SIGINT) reaches the language server as $/cancelRequest",
    () =>
      Effect.gen(function*() {
        const fake = yield* fakeWorkspace({
          slow: { extension: ".slow", fake: { answerDelayMs: { "textDocument/hover": 60_000 } } }
        })
        const served = yield* serve(["--socket", NodePath.join(fake.runtimeDir, "host.sock"), "--no-prewarm"], {
          cwd: fake.dir
        })
        const child = ChildProcess.spawn(
          process.execPath,
          [bin, "query", "hover", "slow.slow:1:1", "--remote", socketOf(served.address)],
          { cwd: fake.dir, stdio: "ignore" }
        )
        yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGKILL")))
        const hovers = () => readRecord(fake.record("slow")).filter((r) => r.method === "textDocument/hover")
        yield* waitFor("the hover to reach the server", () => hovers().length === 1, 30_000)
        const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
        child.kill("SIGINT")
        assert.strictEqual(yield* Effect.promise(() => exited), 130)
        yield* waitFor(
          "$/cancelRequest",
          () => readRecord(fake.record("slow")).some((r) => r.method === "$/cancelRequest"),
          5_000
        )
        // The host serves on.
        assert.isTrue(alive(served.pid))
      }),
    timeout
  )

  it.scopedLive("--idle-exit ends the host and its language servers, exit 0", () =>
    Effect.gen(function*() {
      const fake = yield* fakeWorkspace({ fake: { extension: ".fake", fake: hoverFake } })
      const served = yield* serve(
        ["--socket", NodePath.join(fake.runtimeDir, "host.sock"), "--idle-exit", "2s"],
        { cwd: fake.dir }
      )
      const started = Date.now()
      const answer = yield* runCli(["query", "hover", "fake.fake:1:1", "--remote", socketOf(served.address)], {
        cwd: fake.dir
      })
      assert.strictEqual(answer.code, 0, answer.stderr)
      const servers = startedPids(fake.record("fake"))
      assert.strictEqual(servers.length, 1)
      assert.strictEqual(yield* served.exited, 0)
      assert.isAtLeast(Date.now() - started, 2_000)
      assert.include(served.stderr(), "no query for 2s")
      assert.isFalse(alive(servers[0]!))
      assert.isFalse(NodeFs.existsSync(socketOf(served.address)))
    }), timeout)

  it.scopedLive(
    "two clients on one workspace: their queries reach the server one at a time, in the order they came",
    () =>
      Effect.gen(function*() {
        // Hovers take 2 s at the server, so the first holds it while the others queue behind it.
        const fake = yield* fakeWorkspace({
          fake: { extension: ".fake", fake: { ...hoverFake, answerDelayMs: { "textDocument/hover": 2_000 } } }
        })
        const served = yield* serve(["--socket", NodePath.join(fake.runtimeDir, "host.sock")], { cwd: fake.dir })
        const connect = LspRemoteClient.make({ transport: LspRemoteClient.socket(socketOf(served.address)) })
        const [a, b] = [yield* connect, yield* connect]
        const at = (character: number) => ({
          operation: "goToDefinition" as const,
          filePath: "fake.fake",
          position: { line: 1, character },
          workspaceRoot: fake.dir
        })
        const received = (method: string) =>
          readRecord(fake.record("fake")).filter((r) => r.type === "message" && r.method === method)
        const queued = (n: number) =>
          Effect.gen(function*() {
            const deadline = Date.now() + 15_000
            while ((yield* b.status).find((server) => server.providerId === "fake")?.queued !== n) {
              if (Date.now() > deadline) return yield* Effect.die(new Error(`never ${n} queued`))
              yield* Effect.sleep("20 millis")
            }
          })

        const first = yield* Effect.fork(a.query({ ...at(0), operation: "hover", position: { line: 0, character: 0 } }))
        yield* waitFor("the first hover to reach the server", () => received("textDocument/hover").length === 1)
        // Each next query is sent once the previous one is known to wait: alternating clients.
        const second = yield* Effect.fork(b.query(at(1)))
        yield* queued(1)
        const third = yield* Effect.fork(a.query(at(2)))
        yield* queued(2)
        const fourth = yield* Effect.fork(b.query(at(3)))
        yield* queued(3)
        // Three wait, and none has reached the server beside the hover it is busy with.
        assert.deepStrictEqual(received("textDocument/definition"), [])

        for (const fiber of [first, second, third, fourth]) yield* Fiber.join(fiber)
        const order = received("textDocument/definition").map((r) =>
          (r.params as { readonly position: { readonly character: number } }).position.character
        )
        assert.deepStrictEqual(order, [1, 2, 3])
        assert.strictEqual((yield* a.status).find((server) => server.providerId === "fake")?.queued, 0)
      }),
    timeout
  )

  it.scopedLive(
    "the host SIGKILLed: its language servers are gone within seconds (the watchdog)",
    () =>
      Effect.gen(function*() {
        const fake = yield* fakeWorkspace({
          fake: { extension: ".fake", fake: { ...hoverFake, ignoreStdinEnd: true } }
        })
        const served = yield* serve(["--socket", NodePath.join(fake.runtimeDir, "host.sock")], { cwd: fake.dir })
        const answer = yield* runCli(["query", "hover", "fake.fake:1:1", "--remote", socketOf(served.address)], {
          cwd: fake.dir
        })
        assert.strictEqual(answer.code, 0, answer.stderr)
        const [server] = startedPids(fake.record("fake"))
        assert.isTrue(alive(server!))
        served.child.kill("SIGKILL")
        const killed = Date.now()
        yield* waitFor("the language server to end", () => !alive(server!), 10_000)
        assert.isBelow(Date.now() - killed, 10_000)
      }),
    timeout
  )

  it.scopedLive(
    "prewarm: a slow server warmed in the background does not delay a query to another",
    () =>
      Effect.gen(function*() {
        const fake = yield* fakeWorkspace({
          slow: { extension: ".slow", fake: { answerDelayMs: { "textDocument/hover": 60_000 } } },
          quick: { extension: ".quick", fake: hoverFake }
        })
        const served = yield* serve(["--socket", NodePath.join(fake.runtimeDir, "host.sock")], { cwd: fake.dir })
        const started = Date.now()
        const answer = yield* runCli(["query", "hover", "quick.quick:1:1", "--remote", socketOf(served.address)], {
          cwd: fake.dir
        })
        assert.deepStrictEqual(answer, { code: 0, stdout: "fake hover\n", stderr: "" })
        assert.isBelow(Date.now() - started, 20_000)
        // The slow server was started by the prewarm (the query never named it).
        yield* waitFor(
          "the prewarm hover",
          () => readRecord(fake.record("slow")).some((r) => r.method === "textDocument/hover"),
          20_000
        )
        const noPrewarm = yield* fakeWorkspace({ slow: { extension: ".slow" }, quick: { extension: ".quick" } })
        const plain = yield* serve(["--socket", NodePath.join(noPrewarm.runtimeDir, "host.sock"), "--no-prewarm"], {
          cwd: noPrewarm.dir
        })
        const second = yield* runCli(["query", "hover", "quick.quick:1:1", "--remote", socketOf(plain.address)], {
          cwd: noPrewarm.dir
        })
        assert.strictEqual(second.code, 0, second.stderr)
        assert.deepStrictEqual(startedPids(noPrewarm.record("slow")), [])
      }),
    timeout
  )
})

describe("lsp-seam query --remote auto", () => {
  const daemons = (dir: string) => processesWith(`${dir}/run/lsp-seam/daemon-`)

  it.scopedLive("starts the daemon of the configuration, and a second query reuses it", () =>
    Effect.gen(function*() {
      const fake = yield* fakeWorkspace({ fake: { extension: ".fake", fake: hoverFake } })
      const env = { ...fake.env, LSP_SEAM_IDLE_EXIT: "1m" }
      const first = yield* runCli(["query", "hover", "fake.fake:1:1", "--remote", "auto"], { cwd: fake.dir, env })
      assert.deepStrictEqual(first, { code: 0, stdout: "fake hover\n", stderr: "" })
      const [daemon, ...others] = daemons(fake.dir)
      assert.isDefined(daemon)
      assert.deepStrictEqual(others, [])
      const second = yield* runCli(["query", "hover", "fake.fake:1:1", "--remote", "auto"], { cwd: fake.dir, env })
      assert.deepStrictEqual(second, first)
      assert.deepStrictEqual(daemons(fake.dir), [daemon])
      assert.strictEqual(startedPids(fake.record("fake")).length, 1)
      const socketDir = NodePath.join(fake.runtimeDir, "lsp-seam")
      assert.strictEqual(NodeFs.statSync(socketDir).mode & 0o777, 0o700)
      assert.deepStrictEqual(NodeFs.readdirSync(socketDir).filter((f) => f.endsWith(".lock")), [])
      const report = yield* runCli(["doctor", "--remote", "auto"], { cwd: fake.dir, env })
      assert.strictEqual(report.code, 0, report.stderr)
      assert.include(report.stdout, `pid ${daemon}, version 0.1.0`)
      // Another configuration (the presets, from a directory without lsp-seam.json) is another daemon.
      const other = yield* runCli(["doctor", "--remote", "auto"], { cwd: fake.runtimeDir, env })
      assert.strictEqual(other.code, 1)
      assert.match(other.stderr, /^error\[LSP_REMOTE_UNAVAILABLE\]: No lsp-seam daemon runs for this configuration/)
    }), timeout)

  it.scopedLive(
    "two racing clients end with one daemon, which exits after its idle time with its servers",
    () =>
      Effect.gen(function*() {
        const fake = yield* fakeWorkspace({ fake: { extension: ".fake", fake: hoverFake } })
        const env = { ...fake.env, LSP_SEAM_IDLE_EXIT: "3s" }
        const results = yield* Effect.all(
          [1, 2, 3].map(() => runCli(["query", "hover", "fake.fake:1:1", "--remote", "auto"], { cwd: fake.dir, env })),
          { concurrency: "unbounded" }
        )
        for (const result of results) assert.deepStrictEqual(result, { code: 0, stdout: "fake hover\n", stderr: "" })
        const running = daemons(fake.dir)
        assert.strictEqual(running.length, 1)
        assert.strictEqual(startedPids(fake.record("fake")).length, 1)
        const [server] = startedPids(fake.record("fake"))
        yield* waitFor("the idle daemon to exit", () => !alive(running[0]!), 20_000)
        yield* waitFor("its language server to end", () => !alive(server!), 5_000)
        const log = NodeFs.readdirSync(NodePath.join(fake.runtimeDir, "lsp-seam")).find((f) => f.endsWith(".log"))!
        assert.include(
          NodeFs.readFileSync(NodePath.join(fake.runtimeDir, "lsp-seam", log), "utf8"),
          "no query for 3s; stopping the language servers"
        )
      }),
    timeout
  )

  it.scopedLive(
    "a host of another configuration at the daemon's path is refused: LSP_REMOTE_INCOMPATIBLE",
    () =>
      Effect.gen(function*() {
        const fake = yield* fakeWorkspace({ fake: { extension: ".fake", fake: hoverFake } })
        const env = fake.env
        const probe = yield* runCli(["doctor", "--remote", "auto"], { cwd: fake.dir, env })
        const path = /nothing answers at (\S+)\)/.exec(probe.stderr)?.[1]
        assert.isDefined(path, probe.stderr)
        // A host with the presets (another fingerprint) squatting on this configuration's socket.
        const squatter = yield* serve(["--socket", path!], { cwd: fake.runtimeDir, env })
        const result = yield* runCli(["query", "hover", "fake.fake:1:1", "--remote", "auto"], { cwd: fake.dir, env })
        assert.strictEqual(result.code, 1)
        assert.match(result.stderr, /^error\[LSP_REMOTE_INCOMPATIBLE\]: .*configuration fingerprint/)
        assert.include(result.stderr, `kill ${squatter.pid}`)
        assert.isTrue(alive(squatter.pid))
        assert.deepStrictEqual(startedPids(fake.record("fake")), [])
      }),
    timeout
  )

  it.scopedLive(
    "query --remote loads neither @effect/cli, @effect/ai, the MCP modules nor the stdio host",
    () =>
      Effect.gen(function*() {
        const fake = yield* fakeWorkspace({ fake: { extension: ".fake", fake: hoverFake } })
        const served = yield* serve(["--socket", NodePath.join(fake.runtimeDir, "host.sock")], { cwd: fake.dir })
        const log = NodePath.join(fake.dir, "resolved.txt")
        const hooks = NodePath.join(fake.dir, "hooks.mjs")
        NodeFs.writeFileSync(
          hooks,
          `import { appendFileSync } from "node:fs"\n` +
            `export async function resolve(specifier, context, next) {\n` +
            `  const resolved = await next(specifier, context)\n` +
            `  appendFileSync(${JSON.stringify(log)}, resolved.url + "\\n")\n` +
            `  return resolved\n}\n`
        )
        const register = NodePath.join(fake.dir, "register.mjs")
        NodeFs.writeFileSync(
          register,
          `import { register } from "node:module"\nregister(${JSON.stringify(`file://${hooks}`)})\n`
        )
        const result = ChildProcess.spawnSync(
          process.execPath,
          ["--import", register, bin, "query", "hover", "fake.fake:1:1", "--remote", socketOf(served.address)],
          { cwd: fake.dir, encoding: "utf8" }
        )
        assert.strictEqual(result.status, 0, result.stderr)
        assert.strictEqual(result.stdout, "fake hover\n")
        const resolved = NodeFs.readFileSync(log, "utf8").split("\n")
        // From the bundle (what the build makes; compiled with vm.Script, so not resolved as a module):
        // what went into it; else the modules loaded one by one.
        const loader = resolved.find((url) => url.endsWith("/dist/internal/query/fastPathBundle.js"))
        assert.isDefined(loader, "the build made the bundle, so it is used")
        assert.deepStrictEqual(resolved.filter((url) => url.endsWith("/dist/internal/query/remoteQuery.js")), [])
        const manifest = JSON.parse(NodeFs.readFileSync(new URL("../../remoteQuery.bundle.json", loader), "utf8")) as {
          readonly inputs: ReadonlyArray<readonly [string, number, number]>
        }
        // The run left V8's compiled code beside the bundle for the next one.
        const dist = NodePath.dirname(NodePath.dirname(NodePath.dirname(new URL(loader!).pathname)))
        assert.isNotEmpty(NodeFs.readdirSync(dist).filter((file) => file.endsWith(".v8cache")))
        const loaded = [...resolved, ...manifest.inputs.map(([file]) => file)]
        assert.isAbove(loaded.filter((url) => url.includes("lsp-remote")).length, 0)
        const forbiddenModules = ["/@effect/ai/", "/@effect/cli/", "/lsp-stdio/", "LspMcp", "McpServer", "LspCli"]
        // ... nor the server side of the wire.
        for (const forbidden of [...forbiddenModules, "LspRemoteServer.js", "RpcServer.js"]) {
          assert.deepStrictEqual(loaded.filter((url) => url.includes(forbidden)), [], forbidden)
        }
      }),
    timeout
  )
})
