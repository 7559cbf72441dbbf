import { NodeFileSystem, NodePath } from "@effect/platform-node"
import * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import { assert, describe, it } from "@effect/vitest"
import { LspDeadline, type LspError, LspResult, LspService } from "@lsp-seam/lsp"
import { type Context, Deferred, Effect, Exit, Fiber, Layer, Option, Ref, Schema, Scope, TestClock } from "effect"
import * as NodeFs from "node:fs"
import * as Framing from "../src/Framing.js"
import * as LspStdio from "../src/LspStdio.js"
import * as StdioStatus from "../src/StdioStatus.js"
import * as Testing from "../src/testing.js"
import { makeWorkspace } from "./support/fakeHost.js"
import { settle, waitFor } from "./support/settle.js"

// The real host on the in-memory executor: no process is spawned, and only TestClock moves time.

const config = (server: Record<string, unknown> = {}, top: Record<string, unknown> = {}) => {
  const { servers: others = {}, ...rest } = top
  return {
    ...rest,
    servers: {
      mem: {
        command: process.execPath,
        args: ["fake"],
        extensionToLanguage: { fake: "fake" },
        shutdownTimeoutMs: 1_000,
        killGraceMs: 500,
        ...server
      },
      ...(others as Record<string, unknown>)
    }
  }
}

interface Observed {
  readonly starts: Ref.Ref<number>
  readonly processes: Ref.Ref<ReadonlyArray<Testing.MemoryProcess>>
}

const observe = Effect.all({ starts: Ref.make(0), processes: Ref.make<ReadonlyArray<Testing.MemoryProcess>>([]) })

/** Builds the host in its own scope over the memory executor; `program` makes each new process's program. */
const buildHost = (
  observed: Observed,
  program: (index: number) => Testing.MemoryProgram,
  server?: Record<string, unknown>,
  top?: Record<string, unknown>,
  fileSystem: Layer.Layer<FileSystem.FileSystem> = NodeFileSystem.layer
) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const executor = Testing.layerMemoryExecutor(() => (process) =>
      Effect.gen(function*() {
        const index = yield* Ref.getAndUpdate(observed.starts, (n) => n + 1)
        yield* Ref.update(observed.processes, (all) => [...all, process])
        return yield* program(index)(process)
      })
    )
    const context = yield* Layer.buildWithScope(
      LspStdio.layer(config(server, top), { local: false }).pipe(
        Layer.provideMerge(LspService.layer),
        Layer.provide(Layer.mergeAll(executor, fileSystem, NodePath.layer))
      ),
      scope
    )
    return { scope, context }
  })

const hover = (workspace: string) =>
  LspService.query({
    operation: "hover",
    filePath: "main.fake",
    position: { line: 0, character: 0 },
    workspaceRoot: workspace
  })

const never = () => Effect.never

/** The node file system, noting the path of every file it opens; paths in `unreadable` refuse reading. */
const noteOpens = (opened: Array<string>, unreadable: Set<string> = new Set()) =>
  Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (fs) => {
      const denied = (path: string, method: string) =>
        new PlatformError.SystemError({
          reason: "PermissionDenied",
          module: "FileSystem",
          method,
          pathOrDescriptor: path
        })
      return {
        ...fs,
        access: (path: string, options?: FileSystem.AccessFileOptions) =>
          unreadable.has(path) ? Effect.fail(denied(path, "access")) : fs.access(path, options),
        open: (path: string, options?: FileSystem.OpenFileOptions) => {
          opened.push(path)
          return unreadable.has(path) ? Effect.fail(denied(path, "open")) : fs.open(path, options)
        }
      }
    })
  ).pipe(Layer.provide(NodeFileSystem.layer))

const HoverParams = Schema.Struct({ position: Schema.Struct({ line: Schema.Number }) })

describe("LspStdio under TestClock (memory executor)", () => {
  it.scoped("an ignored $/cancelRequest tears the server down exactly when killGraceMs has passed", () =>
    Effect.gen(function*() {
      const workspace = yield* makeWorkspace()
      const observed = yield* observe
      const hoverSeen = yield* Deferred.make<void>()
      const shutdowns = yield* Ref.make(0)
      const program = () =>
        Testing.fakeLanguageServer({
          handlers: {
            "textDocument/hover": () =>
              Effect.flatMap(Deferred.isDone(hoverSeen), (seen) =>
                seen
                  ? Effect.succeed(Testing.result(null))
                  : Effect.zipRight(Deferred.succeed(hoverSeen, undefined), Effect.never)),
            shutdown: () =>
              Effect.as(
                Ref.update(shutdowns, (n) => n + 1),
                Testing.result(null)
              )
          }
        })
      const { context } = yield* buildHost(observed, program)
      const fiber = yield* Effect.fork(Effect.provide(hover(workspace), context))
      yield* Deferred.await(hoverSeen)
      yield* Fiber.interrupt(fiber)
      yield* TestClock.adjust("499 millis")
      yield* settle
      assert.strictEqual(yield* Ref.get(shutdowns), 0, "still serving inside the grace")
      yield* TestClock.adjust("1 millis")
      yield* waitFor(Ref.get(shutdowns), (n) => n === 1)
      // The next query runs on a fresh server, never beside the stale request.
      const next = yield* Effect.provide(hover(workspace), context)
      assert.deepStrictEqual(next, { kind: "hover", hover: null })
      assert.strictEqual(yield* Ref.get(observed.starts), 2)
    }))

  it.scoped("teardown escalates shutdown → SIGTERM → SIGKILL on the Effect clock", () =>
    Effect.gen(function*() {
      const workspace = yield* makeWorkspace()
      const observed = yield* observe
      const shutdownSeen = yield* Deferred.make<void>()
      const program = () =>
        Testing.fakeLanguageServer({
          onStart: (process) => process.ignoreSigterm,
          exitOnStdinEnd: false,
          handlers: {
            shutdown: () => Effect.zipRight(Deferred.succeed(shutdownSeen, undefined), Effect.never),
            "textDocument/hover": () => Effect.succeed(Testing.result(null))
          }
        })
      const { scope, context } = yield* buildHost(observed, program)
      assert.deepStrictEqual(yield* Effect.provide(hover(workspace), context), { kind: "hover", hover: null })
      const [process] = yield* Ref.get(observed.processes)
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      // The shutdown budget runs from the request: move the clock only once the server has it.
      yield* Deferred.await(shutdownSeen)
      yield* settle
      yield* TestClock.adjust("999 millis")
      yield* settle
      assert.deepStrictEqual(yield* process!.signals, [], "shutdown still has time")
      yield* TestClock.adjust("1 millis")
      yield* waitFor(process!.signals, (s) => s.length === 1)
      assert.deepStrictEqual(yield* process!.signals, ["SIGTERM"])
      yield* TestClock.adjust("499 millis")
      yield* settle
      assert.deepStrictEqual(yield* process!.signals, ["SIGTERM"])
      yield* TestClock.adjust("1 millis")
      yield* waitFor(process!.signals, (s) => s.length === 2)
      assert.deepStrictEqual(yield* process!.signals, ["SIGTERM", "SIGKILL"])
      yield* Fiber.join(closing)
    }))

  it.scoped("a crash during the request is retried once on a fresh server", () =>
    Effect.gen(function*() {
      const workspace = yield* makeWorkspace()
      const observed = yield* observe
      const program = (index: number) =>
        Testing.fakeLanguageServer({
          handlers: {
            "textDocument/hover": (request) =>
              Effect.gen(function*() {
                const process = (yield* Ref.get(observed.processes))[index]!
                if (index === 0) {
                  yield* process.writeStderr(new TextEncoder().encode("boom: crashing on purpose\n"))
                  yield* process.exit(7)
                  return Testing.noReply
                }
                return Testing.result({ contents: `answered by server ${index} for ${request.method}` })
              })
          }
        })
      const { context } = yield* buildHost(observed, program)
      const result = yield* Effect.provide(hover(workspace), context)
      assert.deepStrictEqual(result, {
        kind: "hover",
        hover: { contents: "answered by server 1 for textDocument/hover" }
      })
      assert.strictEqual(yield* Ref.get(observed.starts), 2)
    }))

  it.scoped("a server that keeps crashing fails with LSP_SERVER_EXITED carrying its stderr", () =>
    Effect.gen(function*() {
      const workspace = yield* makeWorkspace()
      const observed = yield* observe
      const program = () =>
        Testing.fakeLanguageServer({
          onNotification: (method, _params, process) =>
            method === "textDocument/didOpen"
              ? Effect.zipRight(process.writeStderr(new TextEncoder().encode("cannot parse\n")), process.exit(2))
              : Effect.void
        })
      const { context } = yield* buildHost(observed, program)
      const error: LspError.LspError = yield* Effect.flip(Effect.provide(hover(workspace), context))
      assert.strictEqual(error.code, "LSP_SERVER_EXITED")
      assert.include(error.message, "cannot parse")
      assert.include(error.message, "exited with code 2")
      assert.strictEqual(yield* Ref.get(observed.starts), 2)
    }))

  it.scoped("a server that never answers initialize is abandoned when its only caller gives up", () =>
    Effect.gen(function*() {
      const workspace = yield* makeWorkspace()
      const observed = yield* observe
      const program = () => Testing.fakeLanguageServer({ handlers: { initialize: never } })
      const { context } = yield* buildHost(observed, program)
      const fiber = yield* Effect.fork(
        Effect.provide(hover(workspace), context).pipe(Effect.timeout("30 seconds"), Effect.exit)
      )
      yield* waitFor(Ref.get(observed.starts), (n) => n === 1)
      yield* TestClock.adjust("30 seconds")
      const exit = yield* Fiber.join(fiber)
      assert.isTrue(Exit.isFailure(exit))
      // The abandoned start is torn down: its stdin closes and the fake leaves.
      yield* settle
      yield* TestClock.adjust("2 seconds")
      const [process] = yield* Ref.get(observed.processes)
      assert.isDefined(process)
      const again = yield* Effect.fork(
        Effect.provide(hover(workspace), context).pipe(Effect.timeout("1 second"), Effect.option)
      )
      // A fresh start, not the abandoned one.
      yield* waitFor(Ref.get(observed.starts), (n) => n === 2)
      yield* TestClock.adjust("1 second")
      assert.isTrue(Option.isNone(yield* Fiber.join(again)))
    }))

  it.scoped("a caller interrupted while queued leaves the queue; the others run in order", () =>
    Effect.gen(function*() {
      const workspace = yield* makeWorkspace()
      const observed = yield* observe
      const release = yield* Deferred.make<void>()
      const answered = yield* Ref.make<ReadonlyArray<number>>([])
      const program = () =>
        Testing.fakeLanguageServer({
          handlers: {
            "textDocument/hover": (request) =>
              Effect.gen(function*() {
                const { line } = Schema.decodeUnknownSync(HoverParams)(request.params).position
                if (line === 0) yield* Deferred.await(release)
                yield* Ref.update(answered, (all) => [...all, line])
                return Testing.result(null)
              })
          }
        })
      const { context } = yield* buildHost(observed, program)
      const at = (line: number) =>
        Effect.provide(
          LspService.query({
            operation: "hover",
            filePath: "main.fake",
            position: { line, character: 0 },
            workspaceRoot: workspace
          }),
          context
        )
      // The status view counts the queries waiting behind the one the server serves (once it has started).
      const waiting = Effect.map(
        statusOf(context),
        (all) => JSON.stringify(all.map((status) => [status.state, status.queued]))
      )
      // Each query is in the queue before the next is sent: a query reads its file first (libuv's thread pool),
      // and on a loaded machine a later one could otherwise overtake it.
      const first = yield* Effect.fork(at(0))
      yield* waitFor(waiting, (now) => now === JSON.stringify([["busy", 0]]))
      const queued = yield* Effect.fork(at(1))
      yield* waitFor(waiting, (now) => now === JSON.stringify([["busy", 1]]))
      const last = yield* Effect.fork(at(2))
      yield* waitFor(waiting, (now) => now === JSON.stringify([["busy", 2]]))
      yield* Fiber.interrupt(queued)
      assert.strictEqual(yield* waiting, JSON.stringify([["busy", 1]]))
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(last)
      assert.strictEqual(yield* waiting, JSON.stringify([["idle", 0]]))
      assert.deepStrictEqual(yield* Ref.get(answered), [0, 2])
      assert.strictEqual(yield* Ref.get(observed.starts), 1)
    }))

  it.scoped("a hung server does not hold up another server's query on the same workspace", () =>
    Effect.gen(function*() {
      const workspace = yield* makeWorkspace({ "main.other": "y\n" })
      const observed = yield* observe
      const answered = yield* Ref.make<ReadonlyArray<string>>([])
      // The "mem" server never answers a hover; the "other" server answers at once.
      const program = () => (process: Testing.MemoryProcess) =>
        Testing.fakeLanguageServer({
          handlers: {
            "textDocument/hover": () =>
              process.command.args[0] === "other"
                ? Effect.as(Ref.update(answered, (all) => [...all, "other"]), Testing.result(null))
                : Effect.never
          }
        })(process)
      const other = {
        command: process.execPath,
        args: ["other"],
        extensionToLanguage: { other: "other" },
        shutdownTimeoutMs: 1_000,
        killGraceMs: 500
      }
      const { context } = yield* buildHost(observed, program, {}, { servers: { other } })
      const query = (filePath: string, line: number) =>
        Effect.provide(
          LspService.query({
            operation: "hover",
            filePath,
            position: { line, character: 0 },
            workspaceRoot: workspace
          }),
          context
        )
      const hung = yield* Effect.fork(query("main.fake", 0))
      yield* waitFor(Ref.get(observed.starts), (n) => n === 1)
      const queuedBehindHung = yield* Effect.fork(query("main.fake", 1))
      // Another language in the same workspace answers while "mem" is stuck, without any clock moving.
      const answer = yield* query("main.other", 0)
      assert.deepStrictEqual(answer, { kind: "hover", hover: null })
      assert.deepStrictEqual(yield* Ref.get(answered), ["other"])
      // Queries for the hung server itself still wait their turn, in order.
      assert.isNull(yield* Fiber.poll(queuedBehindHung).pipe(Effect.map(Option.getOrNull)))
      yield* Fiber.interrupt(hung)
      yield* Fiber.interrupt(queuedBehindHung)
    }))

  const answering = () =>
    Testing.fakeLanguageServer({ handlers: { "textDocument/hover": () => Effect.succeed(Testing.result(null)) } })

  const statusOf = (context: Context.Context<StdioStatus.StdioStatus>) =>
    Effect.flatMap(Effect.provide(StdioStatus.StdioStatus, context), (host) => host.status)

  it.scoped("an idle server is shut down after idleTimeoutMs and started again on demand", () =>
    Effect.gen(function*() {
      const workspace = yield* makeWorkspace()
      const observed = yield* observe
      const { context } = yield* buildHost(observed, answering, { idleTimeoutMs: 10_000 })
      yield* Effect.provide(hover(workspace), context)
      yield* TestClock.adjust("9999 millis")
      yield* settle
      assert.strictEqual((yield* statusOf(context)).length, 1, "still pooled just before the timeout")
      yield* TestClock.adjust("1 millis")
      yield* waitFor(statusOf(context), (all) => all.length === 0)
      yield* Effect.provide(hover(workspace), context)
      assert.strictEqual(yield* Ref.get(observed.starts), 2)
    }))

  it.scoped("use resets the idle clock", () =>
    Effect.gen(function*() {
      const workspace = yield* makeWorkspace()
      const observed = yield* observe
      const { context } = yield* buildHost(observed, answering, { idleTimeoutMs: 10_000 })
      yield* Effect.provide(hover(workspace), context)
      yield* TestClock.adjust("6 seconds")
      yield* Effect.provide(hover(workspace), context)
      yield* TestClock.adjust("6 seconds")
      yield* settle
      const [status] = yield* statusOf(context)
      assert.strictEqual(status?.queriesServed, 2)
      assert.strictEqual(status?.state, "idle")
      assert.strictEqual(yield* Ref.get(observed.starts), 1)
    }))

  it.scoped("after maxCrashes crashes in the window, queries fail fast until the window has passed", () =>
    Effect.gen(function*() {
      const workspace = yield* makeWorkspace()
      const observed = yield* observe
      const crashing = () =>
        Testing.fakeLanguageServer({
          onNotification: (method, _params, process) =>
            method === "textDocument/didOpen"
              ? Effect.zipRight(process.writeStderr(new TextEncoder().encode("segfault\n")), process.exit(139))
              : Effect.void
        })
      const { context } = yield* buildHost(observed, crashing, { crashLoop: { maxCrashes: 4, windowMs: 60_000 } })
      // Each query crashes twice (the first try and its one retry).
      assert.strictEqual((yield* Effect.flip(Effect.provide(hover(workspace), context))).code, "LSP_SERVER_EXITED")
      assert.strictEqual((yield* Effect.flip(Effect.provide(hover(workspace), context))).code, "LSP_SERVER_EXITED")
      assert.strictEqual(yield* Ref.get(observed.starts), 4)
      const refused = yield* Effect.flip(Effect.provide(hover(workspace), context))
      assert.strictEqual(refused.code, "LSP_CRASH_LOOP")
      assert.include(refused.message, "segfault")
      assert.include(refused.message, "try again in 60 s")
      assert.strictEqual(yield* Ref.get(observed.starts), 4, "no restart while the budget is spent")
      yield* TestClock.adjust("59999 millis")
      assert.strictEqual((yield* Effect.flip(Effect.provide(hover(workspace), context))).code, "LSP_CRASH_LOOP")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* Effect.flip(Effect.provide(hover(workspace), context))).code, "LSP_SERVER_EXITED")
      assert.strictEqual(yield* Ref.get(observed.starts), 6)
    }))

  it.scoped("at maxServers, a new workspace replaces the least recently used idle server", () =>
    Effect.gen(function*() {
      const [a, b, c] = [yield* makeWorkspace(), yield* makeWorkspace(), yield* makeWorkspace()]
      const observed = yield* observe
      const { context } = yield* buildHost(observed, answering, {}, { maxServers: 2 })
      yield* Effect.provide(hover(a), context)
      yield* TestClock.adjust("1 second")
      yield* Effect.provide(hover(b), context)
      yield* TestClock.adjust("1 second")
      yield* Effect.provide(hover(a), context) // b is now the least recently used
      yield* Effect.provide(hover(c), context)
      yield* waitFor(statusOf(context), (all) => all.length === 2)
      const workspaces = (yield* statusOf(context)).map((s) => s.workspace).sort()
      assert.deepStrictEqual(workspaces, [a, c].sort())
      assert.strictEqual(yield* Ref.get(observed.starts), 3)
    }))

  // Issue 32's load (bench 14): 4 workspaces × 3 languages asked round and round by agents. Under a bound of 8,
  // least-recently-used replacement evicted the very server asked next, and every query became a cold start.
  it.scoped("by default, 12 servers asked in turn keep running: none replaces another", () =>
    Effect.gen(function*() {
      const workspaces: Array<string> = []
      for (let i = 0; i < 12; i++) workspaces.push(yield* makeWorkspace())
      const observed = yield* observe
      const { context } = yield* buildHost(observed, answering)
      for (let round = 0; round < 2; round++) {
        for (const workspace of workspaces) {
          yield* Effect.provide(hover(workspace), context)
          yield* TestClock.adjust("1 second")
        }
      }
      assert.strictEqual(yield* Ref.get(observed.starts), 12)
      assert.strictEqual((yield* statusOf(context)).length, 12)
    }))

  it.scoped("at maxServers with every server busy, a new workspace waits until one is idle", () =>
    Effect.gen(function*() {
      const [a, b] = [yield* makeWorkspace(), yield* makeWorkspace()]
      const observed = yield* observe
      const release = yield* Deferred.make<void>()
      const slowFirst = (index: number) =>
        Testing.fakeLanguageServer({
          handlers: {
            "textDocument/hover": () =>
              Effect.as(index === 0 ? Deferred.await(release) : Effect.void, Testing.result(null))
          }
        })
      const { context } = yield* buildHost(observed, slowFirst, {}, { maxServers: 1 })
      const busy = yield* Effect.fork(Effect.provide(hover(a), context))
      yield* waitFor(statusOf(context), (all) => all[0]?.state === "busy")
      const waiting = yield* Effect.fork(Effect.provide(hover(b), context))
      yield* settle
      assert.strictEqual(yield* Ref.get(observed.starts), 1, "b waits: the only server is busy")
      assert.isTrue(Option.isNone(yield* Fiber.poll(waiting)))
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(busy)
      assert.deepStrictEqual(yield* Fiber.join(waiting), { kind: "hover", hover: null })
      assert.strictEqual(yield* Ref.get(observed.starts), 2)
      assert.deepStrictEqual((yield* statusOf(context)).map((s) => s.workspace), [b])
    }))

  it.scoped("status reports provider, workspace, pid, state, uptime, queries, restarts and last crash", () =>
    Effect.gen(function*() {
      const workspace = yield* makeWorkspace()
      const observed = yield* observe
      const crashOnce = (index: number) =>
        Testing.fakeLanguageServer({
          onNotification: (method, _params, process) =>
            method === "textDocument/didOpen" && index === 0
              ? Effect.zipRight(process.writeStderr(new TextEncoder().encode("first one died\n")), process.exit(1))
              : Effect.void,
          handlers: { "textDocument/hover": () => Effect.succeed(Testing.result(null)) }
        })
      const { context } = yield* buildHost(observed, crashOnce)
      yield* Effect.provide(hover(workspace), context)
      yield* TestClock.adjust("5 seconds")
      const [status] = yield* statusOf(context)
      const [, second] = yield* Ref.get(observed.processes)
      assert.deepStrictEqual(status, {
        providerId: "mem",
        workspace,
        root: workspace,
        pid: second!.pid,
        state: "idle",
        uptimeMs: 5_000,
        queriesServed: 1,
        queued: 0,
        restarts: 1,
        lastError: status?.lastError ?? null,
        rssBytes: null
      })
      assert.include(status?.lastError ?? "", "first one died")
    }))

  /** A server that reports startup work from `initialized` until `workMs` later. */
  const indexing = (workMs: number, opened: Deferred.Deferred<void>) => () =>
    Testing.fakeLanguageServer({
      onNotification: (method, _params, process) => {
        if (method === "textDocument/didOpen") return Deferred.succeed(opened, undefined)
        if (method !== "initialized") return Effect.void
        const progress = (value: unknown) =>
          process.writeStdout(Framing.encode({ jsonrpc: "2.0", method: "$/progress", params: { token: "idx", value } }))
        return progress({ kind: "begin", title: "Indexing" }).pipe(
          Effect.zipRight(Effect.sleep(workMs)),
          Effect.zipRight(progress({ kind: "end" })),
          Effect.fork,
          Effect.asVoid
        )
      },
      handlers: { "textDocument/hover": () => Effect.succeed(Testing.result({ contents: "complete" })) }
    })

  it.scoped("the first query waits until the server's startup progress has ended", () =>
    Effect.gen(function*() {
      const workspace = yield* makeWorkspace()
      const observed = yield* observe
      const opened = yield* Deferred.make<void>()
      const { context } = yield* buildHost(observed, indexing(3_000, opened))
      const fiber = yield* Effect.fork(Effect.provide(hover(workspace), context))
      // Progress began at `initialized`; the host waits from just after didOpen.
      yield* Deferred.await(opened)
      yield* settle
      yield* TestClock.adjust("2999 millis")
      yield* settle
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)), "still indexing")
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(yield* Fiber.join(fiber), { kind: "hover", hover: { contents: "complete" } })
    }))

  it.scoped("when the caller's deadline comes first, the answer is given in time and marked incomplete", () =>
    Effect.gen(function*() {
      const workspace = yield* makeWorkspace()
      const observed = yield* observe
      const opened = yield* Deferred.make<void>()
      const { context } = yield* buildHost(observed, indexing(60_000, opened))
      const fiber = yield* Effect.fork(Effect.provide(hover(workspace).pipe(LspDeadline.within(2_000)), context))
      yield* Deferred.await(opened)
      yield* settle
      // A quarter of the budget is kept for the request itself.
      yield* TestClock.adjust("1500 millis")
      assert.deepStrictEqual(yield* Fiber.join(fiber), {
        kind: "hover",
        hover: { contents: "complete" },
        incomplete: true,
        incompleteReasons: [LspResult.readiness]
      })
    }))

  it.scoped("maxWaitMs bounds the wait even without a deadline", () =>
    Effect.gen(function*() {
      const workspace = yield* makeWorkspace()
      const observed = yield* observe
      const opened = yield* Deferred.make<void>()
      const { context } = yield* buildHost(observed, indexing(60_000, opened), { readiness: { maxWaitMs: 5_000 } })
      const fiber = yield* Effect.fork(Effect.provide(hover(workspace), context))
      yield* Deferred.await(opened)
      yield* settle
      yield* TestClock.adjust("5 seconds")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.incomplete, true)
    }))

  /** A retained host on the memory executor, noting which files it opens and the document notifications. */
  const retainedHost = Effect.gen(function*() {
    const workspace = yield* makeWorkspace()
    const main = `${workspace}/main.fake`
    // A whole second a minute ago: the platform file system keeps whole milliseconds, so this is exact.
    const lastChange = Math.floor(Date.now() / 1_000) * 1_000 - 60_000
    NodeFs.utimesSync(main, new Date(lastChange), new Date(lastChange))
    const observed = yield* observe
    const opened: Array<string> = []
    const unreadable = new Set<string>()
    const notes: Array<string> = []
    const program = () =>
      Testing.fakeLanguageServer({
        handlers: { "textDocument/hover": () => Effect.succeed(Testing.result(null)) },
        onNotification: (method) =>
          Effect.sync(() => {
            if (method.startsWith("textDocument/")) notes.push(method)
          })
      })
    const { context } = yield* buildHost(
      observed,
      program,
      { documentSync: "retained" },
      {},
      noteOpens(opened, unreadable)
    )
    return {
      main,
      unreadable,
      lastChange,
      observed,
      notes,
      ask: Effect.provide(hover(workspace), context),
      opensOfMain: () => opened.filter((path) => path === main).length,
      /** Rewrites main.fake with other bytes of the same size and puts its times back. */
      rewriteInPlace: (bytes: (size: number) => Uint8Array) => {
        NodeFs.writeFileSync(main, bytes(NodeFs.statSync(main).size))
        NodeFs.utimesSync(main, new Date(lastChange), new Date(lastChange))
      }
    }
  })

  it.scoped("retained: a held file unchanged on disk is not read again; a changed one is read and sent", () =>
    Effect.gen(function*() {
      const { ask, main, notes, opensOfMain } = yield* retainedHost
      // Files modified within the last two seconds are always read: put the clock well after the file's mtime.
      yield* TestClock.setTime(NodeFs.statSync(main).mtimeMs + 10_000)
      yield* ask
      yield* ask
      yield* ask
      assert.strictEqual(opensOfMain(), 1)
      NodeFs.appendFileSync(main, "y\n")
      yield* TestClock.setTime(NodeFs.statSync(main).mtimeMs + 10_000)
      yield* ask
      assert.strictEqual(opensOfMain(), 2)
      yield* waitFor(Effect.sync(() => notes.length), (n) => n >= 2)
      assert.deepStrictEqual(notes, ["textDocument/didOpen", "textDocument/didChange"])
    }))

  it.scoped("retained: a text read soon after its file changed is compared again later, size and times alike", () =>
    Effect.gen(function*() {
      const { ask, lastChange, notes, opensOfMain, rewriteInPlace } = yield* retainedHost
      // Read half a second after the last change: a same-size rewrite within the same tick of a coarse
      // clock would leave every time as it is.
      yield* TestClock.setTime(lastChange + 500)
      yield* ask
      rewriteInPlace((size) => new TextEncoder().encode("y".repeat(size - 1) + "\n"))
      yield* TestClock.setTime(lastChange + 10_000)
      yield* ask
      assert.strictEqual(opensOfMain(), 2)
      yield* waitFor(Effect.sync(() => notes.length), (n) => n >= 2)
      assert.deepStrictEqual(notes, ["textDocument/didOpen", "textDocument/didChange"])
      // Read again well after the change: now its stat is enough.
      yield* ask
      assert.strictEqual(opensOfMain(), 2)
    }))

  it.scoped("retained: a server that died is not trusted to hold a file, whose checks come before a new start", () =>
    Effect.gen(function*() {
      const { ask, lastChange, observed, rewriteInPlace } = yield* retainedHost
      yield* TestClock.setTime(lastChange + 10_000)
      yield* ask
      const [first] = yield* Ref.get(observed.processes)
      yield* first!.exit(1)
      yield* settle
      // Invalid UTF-8 with the held copy's size and times: only reading it can tell.
      rewriteInPlace((size) => new Uint8Array(size).fill(0xff))
      const error = yield* Effect.flip(ask)
      assert.strictEqual(error.code, "LSP_SOURCE_INVALID_UTF8")
      assert.strictEqual(yield* Ref.get(observed.starts), 1)
    }))

  it.scoped("retained: a held file that can no longer be read is refused, as transient open would", () =>
    Effect.gen(function*() {
      const { ask, lastChange, main, unreadable } = yield* retainedHost
      yield* TestClock.setTime(lastChange + 10_000)
      yield* ask
      unreadable.add(main)
      const error = yield* Effect.flip(ask)
      assert.strictEqual(error.code, "LSP_SOURCE_NOT_A_FILE")
    }))
})
