import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { type LspQuery, LspResult, LspService } from "@lsp-seam/lsp"
import { StdioConfig } from "@lsp-seam/lsp-stdio"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Prewarm from "../src/internal/serve/prewarm.js"

/** A workspace with one file for each of three servers. */
const workspace = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "lsp-seam-prewarm-"))
    for (const file of ["a.one", "b.two", "c.three"]) NodeFs.writeFileSync(NodePath.join(dir, file), "x\n")
    return dir
  }),
  (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
)

const configWith = (options: { readonly maxServers?: number } = {}) =>
  StdioConfig.decode({
    ...options,
    servers: Object.fromEntries(
      ["one", "two", "three"].map((id) => [id, { command: "unused", extensionToLanguage: { [id]: id } }])
    )
  })

const config = configWith()

interface Seen {
  /** Queries in the order they began, by file name. */
  readonly began: ReadonlyArray<string>
  /** The most queries in flight at once. */
  readonly peak: number
}

/**
 * An LspService whose queries wait for `gate` (each a fresh one, handed out in order) and record when they
 * begin and how many run at once.
 */
const recordingService = Effect.gen(function*() {
  const seen = yield* Ref.make<Seen>({ began: [], peak: 0 })
  const gates = yield* Ref.make<ReadonlyArray<Deferred.Deferred<void>>>([])
  let running = 0
  const service = LspService.LspService.of({
    registerProvider: () => Effect.void,
    query: (request: LspQuery.LspQueryRequest) =>
      Effect.gen(function*() {
        const gate = yield* Deferred.make<void>()
        yield* Ref.update(gates, (all) => [...all, gate])
        running++
        yield* Ref.update(seen, (s) => ({
          began: [...s.began, NodePath.basename(request.filePath ?? "")],
          peak: Math.max(s.peak, running)
        }))
        yield* Deferred.await(gate).pipe(Effect.ensuring(Effect.sync(() => running--)))
        return LspResult.hover(null)
      })
  })
  /** Opens the gate of the `index`-th query, once it has begun. */
  const release = (index: number) =>
    Effect.gen(function*() {
      while ((yield* Ref.get(gates)).length <= index) yield* Effect.sleep("5 millis")
      yield* Deferred.succeed((yield* Ref.get(gates))[index]!, undefined)
    })
  return { service, seen, release }
})

/** Each test's start: a workspace of three files, and a recording service. */
const setup = Effect.all({ dir: workspace, recording: recordingService }).pipe(
  Effect.map(({ dir, recording }) => ({ dir, ...recording }))
)

/** Waits until `count` queries have begun. */
const begun = (seen: Ref.Ref<Seen>, count: number) =>
  Effect.gen(function*() {
    while ((yield* Ref.get(seen)).began.length < count) yield* Effect.sleep("5 millis")
    return yield* Ref.get(seen)
  })

/**
 * Lets the queries numbered `from` to `to` (from 0, inclusive) through one at a time: each is released once
 * it has begun, and the next is waited for only after that.
 */
const oneAtATime = (
  seen: Ref.Ref<Seen>,
  release: (index: number) => Effect.Effect<void>,
  from: number,
  to: number
) =>
  Effect.gen(function*() {
    for (let index = from; index <= to; index++) {
      yield* begun(seen, index + 1)
      yield* release(index)
    }
  })

/** The query a session would make of `a.one` in `dir`. */
const hoverIn = (dir: string) =>
  ({
    operation: "hover",
    filePath: NodePath.join(dir, "a.one"),
    position: { line: 0, character: 0 },
    workspaceRoot: dir
  }) as const

/**
 * `dir` made a polyglot workspace: four roots of a Python server rooted by pyproject.toml (lib, the workspace
 * itself through tools/, which has no marker, svc/api and svc/web) and a file of an unrooted server.
 */
const withRoots = (dir: string) => {
  for (const file of ["a.one", "b.two", "c.three"]) NodeFs.rmSync(NodePath.join(dir, file))
  for (
    const file of [
      "lib/pyproject.toml",
      "lib/z.py",
      "tools/a.py",
      "svc/api/pyproject.toml",
      "svc/api/x.py",
      "svc/web/pyproject.toml",
      "svc/web/y.py",
      "m.one"
    ]
  ) {
    NodeFs.mkdirSync(NodePath.dirname(NodePath.join(dir, file)), { recursive: true })
    NodeFs.writeFileSync(NodePath.join(dir, file), "x = 1\n")
  }
  return dir
}

const rootedConfig = StdioConfig.decode({
  servers: {
    py: { command: "unused", extensionToLanguage: { py: "python" }, rootMarkers: [["pyproject.toml", "setup.py"]] },
    one: { command: "unused", extensionToLanguage: { one: "one" } }
  }
})

describe("prewarm", () => {
  it.scopedLive("warms one server at a time, each after the previous warm-up has ended", () =>
    Effect.gen(function*() {
      const { dir, release, seen, service } = yield* setup
      const warming = yield* Effect.fork(Prewarm.warm(service, yield* config, dir))
      yield* oneAtATime(seen, release, 0, 2)
      yield* Fiber.join(warming)
      const { began, peak } = yield* Ref.get(seen)
      assert.sameMembers([...began], ["a.one", "b.two", "c.three"])
      assert.strictEqual(peak, 1)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("warms no more servers than the host keeps at once (maxServers)", () =>
    Effect.gen(function*() {
      const { dir, release, seen, service } = yield* setup
      // Every warm-up that begins is let through, a third one too, were there one.
      yield* Effect.forkScoped(Effect.forEach([0, 1, 2], release, { discard: true }))
      yield* Prewarm.warm(service, yield* configWith({ maxServers: 2 }), dir)
      assert.strictEqual((yield* Ref.get(seen)).began.length, 2)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("warms no data or markup server (JSON, YAML, HTML, CSS) unless the configuration names it", () =>
    Effect.gen(function*() {
      const { dir, release, seen, service } = yield* setup
      NodeFs.writeFileSync(NodePath.join(dir, "d.json"), "{}\n")
      const withJson = yield* StdioConfig.decode({
        servers: {
          one: { command: "unused", extensionToLanguage: { one: "one" } },
          json: { command: "unused", extensionToLanguage: { ".json": "json", ".jsonc": "jsonc" } }
        }
      })
      yield* Effect.forkScoped(Effect.forEach([0, 1, 2, 3], release, { discard: true }))
      yield* Prewarm.warm(service, withJson, dir)
      assert.deepStrictEqual((yield* Ref.get(seen)).began, ["a.one"])
      // Named by a configuration file: warmed too.
      yield* Prewarm.warm(service, withJson, dir, Option.none(), true)
      assert.deepStrictEqual([...(yield* Ref.get(seen)).began].sort(), ["a.one", "a.one", "d.json"])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("skips servers already running for the workspace, and counts every running server against maxServers", () =>
    Effect.gen(function*() {
      const { dir, release, seen, service } = yield* setup
      const status: Prewarm.Status = Effect.succeed([
        { providerId: "one", workspace: NodeFs.realpathSync(dir), state: "idle" },
        { providerId: "two", workspace: "/elsewhere", state: "idle" }
      ])
      yield* Effect.forkScoped(Effect.forEach([0, 1, 2], release, { discard: true }))
      yield* Prewarm.warm(service, yield* configWith({ maxServers: 3 }), dir, Option.some(status))
      // "one" runs here already; room for one more server beside the two running.
      assert.strictEqual((yield* Ref.get(seen)).began.length, 1)
      assert.notInclude((yield* Ref.get(seen)).began, "a.one")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a warm-up's hover is not cancelled when its server is up (it loads its project then), only after maxWarmUpMs", () =>
    Effect.gen(function*() {
      const { dir, seen, service } = yield* setup
      const interrupted = yield* Ref.make(0)
      const watched = LspService.LspService.of({
        ...service,
        query: (request) => service.query(request).pipe(Effect.onInterrupt(() => Ref.update(interrupted, (n) => n + 1)))
      })
      // The status view shows each server up (idle) as soon as its warm-up has begun.
      const byFile: Record<string, string> = { "a.one": "one", "b.two": "two", "c.three": "three" }
      const status: Prewarm.Status = Effect.map(
        Ref.get(seen),
        ({ began }) =>
          began.map((file) => ({ providerId: byFile[file]!, workspace: NodeFs.realpathSync(dir), state: "idle" }))
      )
      yield* Effect.fork(Prewarm.warm(watched, yield* config, dir, Option.some(status)))
      // Each server up, the next one's warm-up begins; none of the hovers is cancelled for it.
      for (let poll = 0; poll < 100 && (yield* Ref.get(seen)).began.length < 3; poll++) {
        yield* TestClock.adjust("100 millis")
        yield* Effect.yieldNow()
      }
      assert.deepStrictEqual([...(yield* Ref.get(seen)).began].sort(), ["a.one", "b.two", "c.three"])
      yield* TestClock.adjust(Prewarm.maxWarmUpMs - 1_000)
      yield* Effect.yieldNow()
      assert.strictEqual(yield* Ref.get(interrupted), 0)
      // A hover that never answers is given up at the bound, so it holds up its server's first query no longer.
      yield* TestClock.adjust("2 seconds")
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      assert.strictEqual(yield* Ref.get(interrupted), 3)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("warms a server rooted per project once per root its markers find (bounded), each server's first root first", () =>
    Effect.gen(function*() {
      const { dir, release, seen, service } = yield* setup
      yield* Effect.forkScoped(Effect.forEach([0, 1, 2, 3, 4], release, { discard: true }))
      yield* Prewarm.warm(service, yield* rootedConfig, withRoots(dir))
      assert.deepStrictEqual((yield* Ref.get(seen)).began, ["z.py", "m.one", "a.py", "x.py"])
      assert.strictEqual(Prewarm.maxRootsPerServer, 3)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("skips a root whose server already runs, not the server's other roots", () =>
    Effect.gen(function*() {
      const { dir, release, seen, service } = yield* setup
      const canonical = NodeFs.realpathSync(withRoots(dir))
      const status: Prewarm.Status = Effect.succeed([
        { providerId: "py", workspace: canonical, root: NodePath.join(canonical, "lib"), state: "idle" }
      ])
      yield* Effect.forkScoped(Effect.forEach([0, 1, 2, 3, 4], release, { discard: true }))
      yield* Prewarm.warm(service, yield* rootedConfig, dir, Option.some(status))
      assert.deepStrictEqual((yield* Ref.get(seen)).began, ["m.one", "a.py", "x.py"])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a host warms a workspace only once the query that named it has ended, and only the first time", () =>
    Effect.gen(function*() {
      const { dir, release, seen, service } = yield* setup
      const prewarm = yield* Prewarm.make(service, yield* config, true)
      const served = Prewarm.afterQueries(service, prewarm)
      const request = hoverIn(dir)
      const first = yield* Effect.fork(served.query(request))
      yield* begun(seen, 1)
      // The query runs alone: no warm-up has begun while it is in flight (a warm-up begun with the query
      // would have walked three files and asked its first hover well within this window).
      yield* Effect.sleep("50 millis")
      assert.deepStrictEqual((yield* Ref.get(seen)).began, ["a.one"])
      yield* release(0)
      yield* Fiber.join(first)
      // Then the warm-ups begin, one at a time.
      yield* oneAtATime(seen, release, 1, 3)
      // A second query of the same workspace warms nothing more.
      const second = yield* Effect.fork(served.query(request))
      yield* begun(seen, 5)
      yield* release(4)
      yield* Fiber.join(second)
      yield* Effect.sleep("50 millis")
      const { began, peak } = yield* Ref.get(seen)
      assert.strictEqual(began.length, 5)
      assert.sameMembers(began.slice(1, 4), ["a.one", "b.two", "c.three"])
      assert.strictEqual(peak, 1)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a warm-up begun after a query is interrupted when the prewarm's scope closes", () =>
    Effect.gen(function*() {
      const { dir, release, seen, service } = yield* setup
      const interrupted = yield* Deferred.make<void>()
      const watched = LspService.LspService.of({
        registerProvider: service.registerProvider,
        query: (request) => Effect.onInterrupt(service.query(request), () => Deferred.succeed(interrupted, undefined))
      })
      const scope = yield* Scope.make()
      const prewarm = yield* Scope.extend(Prewarm.make(watched, yield* config, true), scope)
      const query = yield* Effect.fork(Prewarm.afterQueries(watched, prewarm).query(hoverIn(dir)))
      yield* release(0)
      yield* Fiber.join(query)
      // The first warm-up waits for a gate that is never opened.
      yield* begun(seen, 2)
      // Disconnected, so that a close that never ends fails here instead of holding the test.
      yield* Scope.close(scope, Exit.void).pipe(
        Effect.disconnect,
        Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("the warm-up held the scope open") })
      )
      yield* Deferred.await(interrupted)
      assert.strictEqual((yield* Ref.get(seen)).began.length, 2)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a disabled prewarm warms nothing", () =>
    Effect.gen(function*() {
      const { dir, release, seen, service } = yield* setup
      const served = Prewarm.afterQueries(service, yield* Prewarm.make(service, yield* config, false))
      const query = yield* Effect.fork(served.query(hoverIn(dir)))
      yield* release(0)
      yield* Fiber.join(query)
      yield* Effect.sleep("50 millis")
      assert.deepStrictEqual((yield* Ref.get(seen)).began, ["a.one"])
    }).pipe(Effect.provide(NodeContext.layer)))
})
