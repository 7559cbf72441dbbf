import { assert, describe, it } from "@effect/vitest"
import { LspRemoteTarget } from "@lsp-seam/setup/remote"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import * as NodePath from "node:path"
import * as RemoteQuery from "../src/internal/query/remoteQuery.js"
import * as IdleExit from "../src/internal/serve/idleExit.js"
import { parseListen } from "../src/internal/serve/serve.js"

describe("--remote", () => {
  it("auto, a socket path (resolved) or an http/ws URL (the WebSocket path added)", () => {
    assert.deepStrictEqual(LspRemoteTarget.parse("auto"), Either.right({ _tag: "Auto" }))
    assert.deepStrictEqual(
      LspRemoteTarget.parse("run/host.sock"),
      Either.right({ _tag: "Socket", path: NodePath.resolve("run/host.sock") })
    )
    assert.deepStrictEqual(
      LspRemoteTarget.parse("http://127.0.0.1:7777"),
      Either.right({ _tag: "WebSocket", url: "ws://127.0.0.1:7777/lsp-seam" })
    )
    assert.deepStrictEqual(
      LspRemoteTarget.parse("ws://[::1]:7777/lsp-seam"),
      Either.right({ _tag: "WebSocket", url: "ws://[::1]:7777/lsp-seam" })
    )
    assert.isTrue(Either.isLeft(LspRemoteTarget.parse("ftp://host:21")))
    assert.isTrue(Either.isLeft(LspRemoteTarget.parse("http://host")))
    assert.isTrue(Either.isLeft(LspRemoteTarget.parse("")))
  })

  it("the fast path takes the query's own options and leaves everything else to the full command", () => {
    assert.deepStrictEqual(
      RemoteQuery.parse(["query", "hover", "a.ts:1:2", "--remote", "auto", "--cwd=/w", "--json"]),
      { operation: "hover", target: "a.ts:1:2", options: { remote: "auto", cwd: "/w" }, json: true }
    )
    assert.strictEqual(RemoteQuery.parse(["query", "hover", "a.ts:1:2", "--remote", "auto", "--help"]), undefined)
    assert.strictEqual(RemoteQuery.parse(["query", "hover", "--remote", "auto"]), undefined)
    assert.strictEqual(RemoteQuery.parse(["query", "hover", "a.ts:1:2", "--remote"]), undefined)
    assert.strictEqual(RemoteQuery.parse(["query", "hover", "a.ts:1:2", "--remote", "a", "--remote", "b"]), undefined)
    assert.strictEqual(RemoteQuery.parse(["query", "hover", "a.ts:1:2"]), undefined)
  })
})

describe("serve's options", () => {
  it("--listen HOST:PORT, [v6]:PORT or :PORT", () => {
    assert.deepStrictEqual(parseListen("0.0.0.0:7777"), Either.right({ host: "0.0.0.0", port: 7777 }))
    assert.deepStrictEqual(parseListen("[::1]:0"), Either.right({ host: "::1", port: 0 }))
    assert.deepStrictEqual(parseListen(":80"), Either.right({ host: "127.0.0.1", port: 80 }))
    assert.isTrue(Either.isLeft(parseListen("host")))
    assert.isTrue(Either.isLeft(parseListen("host:70000")))
  })

  it("--idle-exit: 30s, 10m, 1h, 500ms, 1.5h, or Effect's \"10 minutes\"; more than zero", () => {
    const millis = (text: string) => Either.map(IdleExit.parseDuration(text), Duration.toMillis)
    assert.deepStrictEqual(millis("30s"), Either.right(30_000))
    assert.deepStrictEqual(millis("10m"), Either.right(600_000))
    assert.deepStrictEqual(millis("1h"), Either.right(3_600_000))
    assert.deepStrictEqual(millis("500ms"), Either.right(500))
    assert.deepStrictEqual(millis("1.5h"), Either.right(5_400_000))
    assert.deepStrictEqual(millis("10 minutes"), Either.right(600_000))
    for (const bad of ["0s", "10", "ten minutes", "-1m", "1d", ""]) assert.isTrue(Either.isLeft(millis(bad)), bad)
  })

  it.scoped("the idle tracker fires only after the idle time with no query running", () =>
    Effect.gen(function*() {
      const tracker = yield* IdleExit.make(Duration.seconds(10))
      const idle = yield* Effect.fork(tracker.idle)
      yield* TestClock.adjust("9 seconds")
      // A query that runs for 30 s holds the host up however long it takes…
      const query = yield* Effect.fork(tracker.track(Effect.sleep("30 seconds")))
      yield* TestClock.adjust("29 seconds")
      assert.isNull(yield* Fiber.poll(idle).pipe(Effect.map((exit) => exit._tag === "Some" ? "done" : null)))
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(query)
      // …and the count restarts when it ends.
      yield* TestClock.adjust("9 seconds")
      assert.strictEqual((yield* Fiber.poll(idle))._tag, "None")
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(idle)
    }))
})
