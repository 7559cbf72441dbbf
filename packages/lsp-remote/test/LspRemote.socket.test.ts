import { assert, describe, it } from "@effect/vitest"
import { LspError, LspService } from "@lsp-seam/lsp"
import { LspRemoteAddress, LspRemoteClient, LspRemoteServer, LspRpc } from "@lsp-seam/lsp-remote"
import { Context, Duration, Effect, Exit, Fiber, Layer, Queue, Schedule, Scope } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"
import {
  clientOf,
  codeOf,
  listening,
  makeHost,
  rawConnect,
  request,
  serveSocket,
  tempDir,
  untilClosed
} from "./support.js"

const socketIn = (dir: string) => Path.join(dir, "run", "host.sock")

// A bound on how long an event may take to cross a local socket; generous so a loaded machine does not flake,
// far below anything that would hide a hang.
const eventBudget = Duration.seconds(5)

const within = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.timeoutFail(effect, { duration: eventBudget, onTimeout: () => new Error("the event did not happen in time") })

describe("LspRemote over a Unix socket", () => {
  it.scopedLive("answers position and hover queries exactly as the host's LspService does", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const host = yield* makeHost
      yield* serveSocket(host.context, { path: socketIn(dir) })
      const client = yield* clientOf(LspRemoteClient.socket(socketIn(dir)))
      for (const operation of ["goToDefinition", "hover"] as const) {
        const query = { ...request("src/a.ts", operation), symbol: "foo" }
        const remote = yield* client.query(query)
        const local = yield* host.service.query(query)
        assert.deepStrictEqual(remote, local)
      }
      const received = yield* host.fake.queries
      assert.deepStrictEqual(received.map((q) => q.operation), ["goToDefinition", "goToDefinition", "hover", "hover"])
      assert.deepStrictEqual(received[0], received[1])
    }))

  it.scopedLive("passes the host's coded errors through unchanged", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const host = yield* makeHost
      yield* serveSocket(host.context, { path: socketIn(dir) })
      const client = yield* clientOf(LspRemoteClient.socket(socketIn(dir)))
      const remote = yield* Effect.flip(client.query(request("src/main.rs")))
      const local = yield* Effect.flip(host.service.query(request("src/main.rs")))
      assert.isTrue(LspError.isLspError(remote))
      assert.strictEqual(remote.code, "LSP_UNAVAILABLE")
      assert.strictEqual(remote.message, local.message)
      assert.deepStrictEqual(remote.detail, local.detail)
      // Invalid input is refused before it is sent, with the seam's own code.
      const invalid = yield* Effect.flip(
        client.query(JSON.parse(`{"operation":"hover","filePath":"a.ts","workspaceRoot":42}`))
      )
      assert.strictEqual(invalid.code, "LSP_INVALID_ARGUMENTS")
    }))

  it.scopedLive("makes the socket 0600 in a 0700 directory and removes it on shutdown", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const path = socketIn(dir)
      const host = yield* makeHost
      const scope = yield* Scope.make()
      const built = yield* Layer.buildWithScope(LspRemoteServer.layerSocket({ path }), scope).pipe(
        Effect.provide(host.context)
      )
      assert.deepStrictEqual(Context.get(built, LspRemoteServer.LspRemoteServer).address, { _tag: "UnixAddress", path })
      assert.strictEqual(Fs.statSync(Path.dirname(path)).mode & 0o777, 0o700)
      const stats = Fs.lstatSync(path)
      assert.isTrue(stats.isSocket())
      assert.strictEqual(stats.mode & 0o777, 0o600)
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(Fs.existsSync(path))
    }))

  it.scopedLive("accepts a directory the user controls (0755, or others' writes with the sticky bit); the socket is 0600", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      for (const [name, mode] of [["readable", 0o755], ["sticky", 0o1777]] as const) {
        const directory = Path.join(dir, name)
        Fs.mkdirSync(directory)
        Fs.chmodSync(directory, mode)
        const host = yield* makeHost
        const path = Path.join(directory, "host.sock")
        yield* serveSocket(host.context, { path })
        assert.strictEqual(Fs.lstatSync(path).mode & 0o777, 0o600)
        // Nothing but the socket is left next to it.
        assert.deepStrictEqual(Fs.readdirSync(directory), ["host.sock"])
        const client = yield* clientOf(LspRemoteClient.socket(path))
        assert.strictEqual((yield* client.query(request("a.ts"))).kind, "locations")
      }
    }))

  it.scopedLive("the client refuses a socket that belongs to another user", () =>
    Effect.gen(function*() {
      // Only root can hand a socket to another user; elsewhere this runs as the check that an own socket passes.
      const dir = yield* tempDir
      const host = yield* makeHost
      const path = Path.join(dir, "host.sock")
      yield* serveSocket(host.context, { path })
      const client = yield* clientOf(LspRemoteClient.socket(path))
      assert.strictEqual((yield* client.query(request("a.ts"))).kind, "locations")
      if (process.getuid?.() !== 0) return
      Fs.chownSync(path, 4242, 4242)
      const stranger = yield* clientOf(LspRemoteClient.socket(path))
      const refused = yield* Effect.flip(stranger.query(request("a.ts")))
      assert.strictEqual(refused.code, "LSP_REMOTE_UNAVAILABLE")
      assert.include(refused.message, "belongs to another user (uid 4242)")
      Fs.chownSync(path, 0, 0)
      const root = yield* clientOf(LspRemoteClient.socket(path))
      assert.strictEqual((yield* root.query(request("a.ts"))).kind, "locations")
    }))

  it.scopedLive("refuses a socket directory others may write to without the sticky bit, and a path that is not a socket", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const host = yield* makeHost
      const open = Path.join(dir, "open")
      Fs.mkdirSync(open)
      Fs.chmodSync(open, 0o777)
      const wide = yield* Effect.flip(serveSocket(host.context, { path: Path.join(open, "host.sock") }))
      assert.strictEqual(wide.code, "LSP_INVALID_CONFIG")
      assert.include(wide.message, "writable by other users without the sticky bit")
      if (process.getuid?.() === 0) {
        const theirs = Path.join(dir, "theirs")
        Fs.mkdirSync(theirs, { mode: 0o700 })
        Fs.chownSync(theirs, 4242, 4242)
        const foreign = yield* Effect.flip(serveSocket(host.context, { path: Path.join(theirs, "host.sock") }))
        assert.include(foreign.message, "belongs to another user (uid 4242)")
      }
      const linked = Path.join(dir, "linked")
      Fs.symlinkSync(Path.join(dir, "run"), linked)
      Fs.mkdirSync(Path.join(dir, "run"), { mode: 0o700 })
      const symlink = yield* Effect.flip(serveSocket(host.context, { path: Path.join(linked, "host.sock") }))
      assert.strictEqual(symlink.code, "LSP_INVALID_CONFIG")
      const file = Path.join(dir, "run", "file.sock")
      Fs.writeFileSync(file, "not a socket")
      const notSocket = yield* Effect.flip(serveSocket(host.context, { path: file }))
      assert.strictEqual(notSocket.code, "LSP_INVALID_CONFIG")
      assert.isTrue(Fs.existsSync(file))
    }))

  it.scopedLive("replaces a stale socket but refuses one that a live host answers on", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const path = socketIn(dir)
      Fs.mkdirSync(Path.dirname(path), { mode: 0o700 })
      // A socket file nobody listens on: a host that was SIGKILLed leaves it behind.
      ChildProcess.spawnSync(process.execPath, [
        "-e",
        "require('node:net').createServer().listen(process.argv[1], () => process.kill(process.pid, 'SIGKILL'))",
        path
      ])
      assert.isTrue(Fs.lstatSync(path).isSocket())
      const host = yield* makeHost
      yield* serveSocket(host.context, { path })
      const client = yield* clientOf(LspRemoteClient.socket(path))
      assert.strictEqual((yield* client.query(request("a.ts"))).kind, "locations")
      const second = yield* makeHost
      const live = yield* Effect.flip(serveSocket(second.context, { path }))
      assert.strictEqual(live.code, "LSP_CONFLICT")
      assert.strictEqual((yield* client.query(request("a.ts"))).kind, "locations")
    }))

  it.scopedLive("serves concurrent clients on one workspace", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const host = yield* makeHost
      yield* serveSocket(host.context, { path: socketIn(dir) })
      const clients = yield* Effect.all(
        Array.from({ length: 4 }, () => clientOf(LspRemoteClient.socket(socketIn(dir))))
      )
      const results = yield* Effect.all(
        clients.flatMap((client, c) =>
          Array.from({ length: 10 }, (_, i) =>
            Effect.map(client.query(request(`src/f${c}_${i}.ts`)), (r) => ({
              r,
              c,
              i
            })))
        ),
        { concurrency: "unbounded" }
      )
      for (const { c, i, r } of results) {
        assert.strictEqual(r.kind, "locations")
        if (r.kind === "locations") assert.strictEqual(r.locations[0]!.uri, `file:///ws/src/f${c}_${i}.ts`)
      }
      assert.strictEqual((yield* host.fake.queries).length, 40)
    }))

  it.scopedLive("interrupting the client's query interrupts the server's fiber", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const host = yield* makeHost
      yield* serveSocket(host.context, { path: socketIn(dir) })
      const client = yield* clientOf(LspRemoteClient.socket(socketIn(dir)))
      const fiber = yield* Effect.fork(client.query(request("hang.hang")))
      const started = yield* within(Queue.take(host.gated.started))
      assert.strictEqual(started.filePath, "hang.hang")
      yield* Fiber.interrupt(fiber)
      const interrupted = yield* within(Queue.take(host.gated.interrupted))
      assert.strictEqual(interrupted.filePath, "hang.hang")
      // The connection and the host carry on.
      assert.strictEqual((yield* client.query(request("a.ts"))).kind, "locations")
    }))

  it.scopedLive("a host that closes mid-query fails the call with LSP_REMOTE_UNAVAILABLE within the budget", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const host = yield* makeHost
      const scope = yield* Scope.make()
      yield* Layer.buildWithScope(LspRemoteServer.layerSocket({ path: socketIn(dir) }), scope).pipe(
        Effect.provide(host.context)
      )
      const client = yield* clientOf(LspRemoteClient.socket(socketIn(dir)))
      const fiber = yield* Effect.fork(Effect.timed(codeOf(client.query(request("hang.hang")))))
      yield* within(Queue.take(host.gated.started))
      yield* Scope.close(scope, Exit.void)
      const [elapsed, code] = yield* Fiber.join(fiber)
      assert.strictEqual(code, "LSP_REMOTE_UNAVAILABLE")
      assert.isBelow(Duration.toMillis(elapsed), 1_000)
      yield* within(Queue.take(host.gated.interrupted))
      // With the host gone, further calls fail at once too.
      const [again, error2] = yield* Effect.timed(Effect.flip(client.query(request("a.ts"))))
      assert.strictEqual(error2.code, "LSP_REMOTE_UNAVAILABLE", error2.message)
      assert.isBelow(Duration.toMillis(again), 1_000)
    }))

  it.scopedLive("a host whose process dies mid-query fails the call with LSP_REMOTE_UNAVAILABLE", () =>
    Effect.gen(function*() {
      // A stand-in for a killed host: it accepts, reads the request and then its connection drops, the way the
      // kernel closes a SIGKILLed process's sockets.
      const dir = yield* tempDir
      const path = Path.join(dir, "dying.sock")
      yield* listening(Net.createServer((connection) => connection.once("data", () => connection.destroy())), path)
      const client = yield* clientOf(LspRemoteClient.socket(path))
      const [elapsed, code] = yield* Effect.timed(codeOf(client.query(request("a.ts"))))
      assert.strictEqual(code, "LSP_REMOTE_UNAVAILABLE")
      assert.isBelow(Duration.toMillis(elapsed), 1_000)
    }))

  it.scopedLive("a host process SIGKILLed mid-query: the call fails with LSP_REMOTE_UNAVAILABLE at once", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const path = socketIn(dir)
      const output = yield* Queue.unbounded<string>()
      const child = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const child = ChildProcess.spawn(
            process.execPath,
            ["--import", "tsx", Path.join(import.meta.dirname, "fixtures", "host.ts"), path],
            {
              cwd: Path.join(import.meta.dirname, ".."),
              env: { ...process.env, TSX_TSCONFIG_PATH: Path.join(import.meta.dirname, "fixtures", "tsconfig.json") },
              stdio: ["ignore", "pipe", "inherit"]
            }
          )
          let buffered = ""
          child.stdout.on("data", (chunk: Buffer) => {
            buffered += chunk.toString("utf8")
            const lines = buffered.split("\n")
            buffered = lines.pop() ?? ""
            for (const line of lines) Queue.unsafeOffer(output, line)
          })
          return child
        }),
        (child) => Effect.sync(() => child.kill("SIGKILL"))
      )
      assert.strictEqual(yield* Effect.timeout(Queue.take(output), "20 seconds"), "ready")
      const client = yield* clientOf(LspRemoteClient.socket(path))
      const fiber = yield* Effect.fork(Effect.flip(client.query(request("hang.hang"))))
      assert.strictEqual(yield* within(Queue.take(output)), "started")
      const killedAt = Date.now()
      child.kill("SIGKILL")
      const error = yield* Fiber.join(fiber)
      const latency = Date.now() - killedAt
      assert.strictEqual(error.code, "LSP_REMOTE_UNAVAILABLE", error.message)
      assert.isBelow(latency, 1_000)
      // The dead host left its socket file behind; once it is reaped, a new host replaces it.
      yield* within(Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
      }))
      assert.isTrue(Fs.lstatSync(path).isSocket())
      const host = yield* makeHost
      yield* serveSocket(host.context, { path })
      const fresh = yield* clientOf(LspRemoteClient.socket(path))
      assert.strictEqual((yield* fresh.query(request("a.ts"))).kind, "locations")
    }))

  it.scopedLive("no host: calls fail at once with LSP_REMOTE_UNAVAILABLE", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const client = yield* clientOf(LspRemoteClient.socket(Path.join(dir, "nobody.sock")))
      const [elapsed, error] = yield* Effect.timed(Effect.flip(client.query(request("a.ts"))))
      assert.strictEqual(error.code, "LSP_REMOTE_UNAVAILABLE")
      assert.include(error.message, "nothing listens there")
      assert.isBelow(Duration.toMillis(elapsed), 1_000)
      const [elapsed2, error2] = yield* Effect.timed(Effect.flip(client.status))
      assert.strictEqual(error2.code, "LSP_REMOTE_UNAVAILABLE")
      assert.isBelow(Duration.toMillis(elapsed2), 1_000)
    }))

  it.scopedLive("reconnects once the host is back", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const path = socketIn(dir)
      const host = yield* makeHost
      const first = yield* Scope.make()
      yield* Layer.buildWithScope(LspRemoteServer.layerSocket({ path }), first).pipe(Effect.provide(host.context))
      const client = yield* clientOf(LspRemoteClient.socket(path))
      assert.strictEqual((yield* client.query(request("a.ts"))).kind, "locations")
      yield* Scope.close(first, Exit.void)
      assert.strictEqual(yield* codeOf(client.query(request("a.ts"))), "LSP_REMOTE_UNAVAILABLE")
      yield* serveSocket(host.context, { path })
      // The client reconnects in the background (at most every 2 s); retry until it has.
      const result = yield* client.query(request("a.ts")).pipe(
        Effect.retry({ while: (e) => e.code === "LSP_REMOTE_UNAVAILABLE", schedule: Schedule.spaced("50 millis") }),
        Effect.timeout("10 seconds")
      )
      assert.strictEqual(result.kind, "locations")
    }))

  it.scopedLive("a client killed mid-query: the host interrupts that query and keeps serving others", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const path = socketIn(dir)
      const host = yield* makeHost
      yield* serveSocket(host.context, { path })
      const child = yield* Effect.acquireRelease(
        Effect.sync(() =>
          ChildProcess.spawn(process.execPath, [
            Path.join(import.meta.dirname, "fixtures", "rawClient.mjs"),
            path,
            "hang.hang"
          ], {
            stdio: ["ignore", "pipe", "inherit"]
          })
        ),
        (child) => Effect.sync(() => child.kill("SIGKILL"))
      )
      const started = yield* within(Queue.take(host.gated.started))
      assert.strictEqual(started.operation, "hover")
      const exited = Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
      })
      child.kill("SIGKILL")
      yield* within(exited)
      const interrupted = yield* within(Queue.take(host.gated.interrupted))
      assert.strictEqual(interrupted.filePath, "hang.hang")
      const other = yield* clientOf(LspRemoteClient.socket(path))
      assert.strictEqual((yield* other.query(request("b.ts"))).kind, "locations")
    }))

  describe("refuses bad frames, closes the connection and stays up", () => {
    const frames: ReadonlyArray<[string, string | Buffer]> = [
      ["an oversized line", "x".repeat(8 * 1024)],
      ["an oversized message split over writes", `{"_tag":"Ping","pad":"${"y".repeat(9 * 1024)}"}\n`],
      ["a line that is not JSON", "{not json}\n"],
      ["a line that is not UTF-8", Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a])],
      ["JSON that is no protocol message", "{\"hello\":1}\n"],
      // Schema's own union check threw on this tag (see LspDecode), which took the whole host down.
      ["a tag that cannot be read as a string", "{\"_tag\":{\"toString\":0}}\n"],
      [
        "a request for an unknown rpc",
        "{\"_tag\":\"Request\",\"id\":\"1\",\"tag\":\"Eval\",\"payload\":{},\"headers\":[]}\n"
      ],
      [
        "a request id that is not a number",
        "{\"_tag\":\"Request\",\"id\":\"x\",\"tag\":\"Status\",\"payload\":null,\"headers\":[]}\n"
      ]
    ]
    for (const [name, frame] of frames) {
      it.scopedLive(name, () =>
        Effect.gen(function*() {
          const dir = yield* tempDir
          const path = socketIn(dir)
          const host = yield* makeHost
          yield* serveSocket(host.context, { path, maxRequestBytes: 4096 })
          const raw = yield* rawConnect(path)
          const closed = yield* Effect.fork(untilClosed(raw))
          raw.write(frame)
          const received = yield* within(Fiber.join(closed))
          assert.strictEqual(received, "")
          const client = yield* clientOf(LspRemoteClient.socket(path))
          assert.strictEqual((yield* client.query(request("a.ts"))).kind, "locations")
          assert.strictEqual((yield* host.fake.queries).length, 1)
        }))
    }
  })

  it.scopedLive("validates every request's payload with the seam's Schema before anything runs", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const path = socketIn(dir)
      const host = yield* makeHost
      yield* serveSocket(host.context, { path })
      const raw = yield* rawConnect(path)
      // What the checks below read of a reply (JSON.parse's value, read as such).
      const replies = yield* Queue.unbounded<{ _tag: unknown; requestId: unknown; exit: { _tag: unknown } }>()
      let buffered = ""
      raw.on("data", (chunk) => {
        const lines = (buffered + chunk.toString("utf8")).split("\n")
        buffered = lines.pop()!
        for (const line of lines) Queue.unsafeOffer(replies, JSON.parse(line))
      })
      const at = { filePath: "a.ts", position: { line: 0, character: 0 }, workspaceRoot: "/ws" }
      // An operation the seam does not have, and one Schema's own union check threw on (see LspDecode), which
      // left the call unanswered.
      const payloads = [{ operation: "rename", ...at }, { operation: { toString: 0 }, ...at }]
      for (const [i, payload] of payloads.entries()) {
        const id = String(7 + i)
        raw.write(`${JSON.stringify({ _tag: "Request", id, tag: "Query", payload, headers: [] })}\n`)
        const reply = yield* within(Queue.take(replies))
        assert.strictEqual(reply._tag, "Exit")
        assert.strictEqual(reply.requestId, id)
        assert.strictEqual(reply.exit._tag, "Failure")
      }
      assert.strictEqual((yield* host.fake.queries).length, 0)
    }))

  it.scopedLive("Hello reports version, fingerprint and pid; a client can refuse a mismatch", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const path = socketIn(dir)
      const host = yield* makeHost
      yield* serveSocket(host.context, { path, fingerprint: "cfg-1" })
      const client = yield* clientOf(LspRemoteClient.socket(path), {
        expect: { version: LspRpc.version, fingerprint: "cfg-1" }
      })
      const hello = yield* client.hello
      assert.deepStrictEqual(hello, {
        protocolRevision: LspRpc.protocolRevision,
        version: LspRpc.version,
        fingerprint: "cfg-1",
        pid: process.pid,
        statusAvailable: false,
        memoryAvailable: false
      })
      const other = yield* Effect.flip(clientOf(LspRemoteClient.socket(path), { expect: { fingerprint: "cfg-2" } }))
      assert.strictEqual(other.code, "LSP_REMOTE_INCOMPATIBLE")
      assert.include(other.message, "cfg-2")
      const older = yield* Effect.flip(clientOf(LspRemoteClient.socket(path), { expect: { version: "0.0.1" } }))
      assert.strictEqual(older.code, "LSP_REMOTE_INCOMPATIBLE")
      const none = yield* Effect.flip(
        clientOf(LspRemoteClient.socket(Path.join(dir, "none.sock")), { expect: { version: LspRpc.version } })
      )
      assert.strictEqual(none.code, "LSP_REMOTE_UNAVAILABLE")
    }))

  it.scopedLive("Status serves the host's status view, or says there is none", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const host = yield* makeHost
      const view: ReadonlyArray<LspRpc.ServerStatus> = [{
        providerId: "typescript",
        workspace: "/ws",
        pid: 4242,
        state: "idle",
        uptimeMs: 1234.5,
        queriesServed: 3,
        restarts: 1,
        lastError: "exited with code 1",
        rssBytes: null
      }]
      yield* serveSocket(host.context, { path: Path.join(dir, "a", "s.sock"), status: Effect.succeed(view) })
      yield* serveSocket(host.context, { path: Path.join(dir, "b", "s.sock") })
      const withView = yield* clientOf(LspRemoteClient.socket(Path.join(dir, "a", "s.sock")))
      assert.deepStrictEqual(yield* withView.status, view)
      assert.isTrue((yield* withView.hello).statusAvailable)
      const without = yield* clientOf(LspRemoteClient.socket(Path.join(dir, "b", "s.sock")))
      assert.strictEqual(yield* codeOf(without.status), "LSP_UNSUPPORTED_OPERATION")
    }))

  it.scopedLive("Memory serves the host's memory view when Hello offers it, or says there is none", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const host = yield* makeHost
      const view: LspRpc.MemoryStatus = {
        maxMemory: "25%",
        budgetBytes: 4 * 1024 ** 3,
        enforced: true,
        totalBytes: 300 * 1024 ** 2,
        hostBytes: 90 * 1024 ** 2,
        evictions: 1,
        recentEvictions: [{
          providerId: "json",
          workspace: "/ws",
          root: "/ws",
          pid: 4242,
          rssBytes: 60 * 1024 ** 2,
          totalBytes: 4.1 * 1024 ** 3,
          budgetBytes: 4 * 1024 ** 3,
          at: 1_796_000_000_000
        }]
      }
      yield* serveSocket(host.context, { path: Path.join(dir, "a", "s.sock"), memory: Effect.succeed(view) })
      yield* serveSocket(host.context, { path: Path.join(dir, "b", "s.sock") })
      const withView = yield* clientOf(LspRemoteClient.socket(Path.join(dir, "a", "s.sock")))
      assert.isTrue((yield* withView.hello).memoryAvailable)
      assert.deepStrictEqual(yield* withView.memory!, view)
      const without = yield* clientOf(LspRemoteClient.socket(Path.join(dir, "b", "s.sock")))
      assert.isFalse((yield* without.hello).memoryAvailable)
      assert.strictEqual(yield* codeOf(without.memory!), "LSP_UNSUPPORTED_OPERATION")
    }))

  it.scopedLive("layer provides a remote LspService that refuses local providers", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const host = yield* makeHost
      yield* serveSocket(host.context, { path: socketIn(dir) })
      const context = yield* Layer.build(LspRemoteClient.layer({ transport: LspRemoteClient.socket(socketIn(dir)) }))
      const service = Context.get(context, LspService.LspService)
      assert.strictEqual((yield* service.query(request("a.ts", "hover"))).kind, "hover")
      const refused = yield* Effect.flip(service.registerProvider(host.fake.provider))
      assert.strictEqual(refused.code, "LSP_INVALID_PROVIDER")
      assert.include(refused.message, "remote")
    }))

  it.scopedLive("layerProvider routes chosen extensions of a local LspService to the host", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const host = yield* makeHost
      yield* serveSocket(host.context, { path: socketIn(dir) })
      const local = yield* LspService.make
      yield* Layer.build(
        LspRemoteClient.layerProvider({
          transport: LspRemoteClient.socket(socketIn(dir)),
          id: "remote",
          extensionToLanguage: { ".ts": "ignored-locally" }
        })
      ).pipe(Effect.provideService(LspService.LspService, local))
      const result = yield* local.query(request("src/x.ts", "hover"))
      // The host routed by its own configuration (its language id, not the local one).
      assert.deepStrictEqual(result, { kind: "hover", hover: { contents: "typescript:src/x.ts" } })
      assert.strictEqual(yield* codeOf(local.query(request("src/x.py"))), "LSP_UNAVAILABLE")
    }))

  it("the default socket lives in a per-user directory", () => {
    assert.strictEqual(
      LspRemoteAddress.defaultSocketPath({ XDG_RUNTIME_DIR: "/run/user/1000" }),
      "/run/user/1000/lsp-seam/lsp-seam.sock"
    )
    assert.include(LspRemoteAddress.defaultSocketDirectory({}), `lsp-seam-${process.getuid?.() ?? ""}`)
    assert.strictEqual(LspRemoteAddress.webSocketUrl("::1", 80), "ws://[::1]:80/lsp-seam")
  })
})
