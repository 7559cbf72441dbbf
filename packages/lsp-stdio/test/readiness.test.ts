import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Option, TestClock } from "effect"
import * as Readiness from "../src/internal/servers/readiness.js"

const begin = (token: string | number) => ({ token, value: { kind: "begin", title: "Indexing" } })
const end = (token: string | number) => ({ token, value: { kind: "end" } })

/** clangd's rule: its index, reported as progress, begins only once a file is open. */
// yaml-language-server's rule: settled when it says its configuration is applied.
const announcingRule = {
  quietMs: 0,
  progress: true,
  maxWaitMs: 60_000,
  readyLog: null,
  openStartsProgress: false,
  readyNotification: "yaml/schema/store/initialized"
}
const indexingRule = {
  quietMs: 0,
  progress: true,
  maxWaitMs: 60_000,
  readyLog: null,
  readyNotification: null,
  openStartsProgress: true
}

describe("readiness", () => {
  it.effect("with no progress and no quiet period, a server is settled at once", () =>
    Effect.gen(function*() {
      const tracker = yield* Readiness.make({
        quietMs: 0,
        progress: true,
        maxWaitMs: 1_000,
        readyLog: null,
        readyNotification: null,
        openStartsProgress: false
      })
      assert.isTrue(yield* tracker.awaitSettled(0))
    }))

  it.effect("waits while a progress token is active, and settles the moment it ends", () =>
    Effect.gen(function*() {
      const tracker = yield* Readiness.make({
        quietMs: 0,
        progress: true,
        maxWaitMs: 60_000,
        readyLog: null,
        readyNotification: null,
        openStartsProgress: false
      })
      yield* tracker.observe("$/progress", begin("index"))
      yield* tracker.observe("$/progress", begin(7))
      const waiting = yield* Effect.fork(tracker.awaitSettled(60_000))
      yield* TestClock.adjust("5 seconds")
      yield* tracker.observe("$/progress", end("index"))
      assert.isTrue(Option.isNone(yield* Fiber.poll(waiting)), "token 7 is still active")
      yield* tracker.observe("$/progress", { token: 7, value: { kind: "report", percentage: 90 } })
      yield* TestClock.adjust("5 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(waiting)))
      yield* tracker.observe("$/progress", end(7))
      assert.isTrue(yield* Fiber.join(waiting))
    }))

  it.effect("gives up at the deadline, and says so", () =>
    Effect.gen(function*() {
      const tracker = yield* Readiness.make({
        quietMs: 0,
        progress: true,
        maxWaitMs: 60_000,
        readyLog: null,
        readyNotification: null,
        openStartsProgress: false
      })
      yield* tracker.observe("$/progress", begin("index"))
      const waiting = yield* Effect.fork(tracker.awaitSettled(3_000))
      yield* TestClock.adjust("2999 millis")
      assert.isTrue(Option.isNone(yield* Fiber.poll(waiting)))
      yield* TestClock.adjust("1 millis")
      assert.isFalse(yield* Fiber.join(waiting))
    }))

  it.effect("with readyLog, a server is not settled before its log says so, however quiet it is", () =>
    Effect.gen(function*() {
      const tracker = yield* Readiness.make({
        quietMs: 100,
        progress: true,
        maxWaitMs: 60_000,
        readyLog: "^(Found \\d+ source files?|No source files found)",
        openStartsProgress: false,
        readyNotification: null
      })
      const waiting = yield* Effect.fork(tracker.awaitSettled(60_000))
      yield* tracker.observe("window/logMessage", { type: 3, message: "Starting service instance" })
      // Five seconds of silence mid-startup, as a loaded machine gives pyright: not settled.
      yield* TestClock.adjust("5 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(waiting)))
      yield* tracker.observe("window/logMessage", { type: 3, message: "Searching for source files: Found 3" })
      yield* tracker.observe("window/logMessage", { message: 42 })
      yield* TestClock.adjust("5 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(waiting)), "no message matched")
      yield* tracker.observe("window/logMessage", { type: 3, message: "Found 2 source files" })
      // Then the quiet period, as without a log rule.
      yield* TestClock.adjust("99 millis")
      assert.isTrue(Option.isNone(yield* Fiber.poll(waiting)))
      yield* TestClock.adjust("1 millis")
      assert.isTrue(yield* Fiber.join(waiting))
    }))

  it.effect("a server whose log never says so is not settled: the wait ends at the deadline, flagged", () =>
    Effect.gen(function*() {
      const tracker = yield* Readiness.make({
        quietMs: 0,
        progress: true,
        maxWaitMs: 60_000,
        readyLog: "^ready$",
        openStartsProgress: false,
        readyNotification: null
      })
      const waiting = yield* Effect.fork(tracker.awaitSettled(2_000))
      yield* TestClock.adjust("2 seconds")
      assert.isFalse(yield* Fiber.join(waiting))
    }))

  it.effect("with readyNotification, a quiet server is not settled before that notification arrives", () =>
    Effect.gen(function*() {
      const tracker = yield* Readiness.make(announcingRule)
      const waiting = yield* Effect.fork(tracker.awaitSettled(60_000))
      // Seconds of silence while the server applies its configuration, as on a loaded machine: not settled.
      yield* TestClock.adjust("5 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(waiting)))
      yield* tracker.observe("window/logMessage", { type: 3, message: "yaml/schema/store/initialized" })
      yield* tracker.observe("textDocument/publishDiagnostics", { uri: "file:///a.yaml", diagnostics: [] })
      yield* TestClock.adjust("5 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(waiting)), "another method, even one quoting it, is not it")
      yield* tracker.observe("yaml/schema/store/initialized", {})
      assert.isTrue(yield* Fiber.join(waiting))
      assert.isTrue(tracker.isSettled())
    }))

  it.effect("a readyNotification that never comes ends the wait at the deadline, flagged", () =>
    Effect.gen(function*() {
      const tracker = yield* Readiness.make(announcingRule)
      const waiting = yield* Effect.fork(tracker.awaitSettled(3_000))
      yield* TestClock.adjust("2999 millis")
      assert.isTrue(Option.isNone(yield* Fiber.poll(waiting)))
      yield* TestClock.adjust("1 millis")
      assert.isFalse(yield* Fiber.join(waiting))
      assert.isFalse(tracker.isSettled())
    }))

  it.effect("expecting progress (clangd's index begins at the first open), silence is no sign of readiness", () =>
    Effect.gen(function*() {
      const tracker = yield* Readiness.make(indexingRule)
      const waiting = yield* Effect.fork(tracker.awaitSettled(60_000, true))
      // Seconds without a word, as a loaded machine gives clangd before its index begins: not settled.
      yield* TestClock.adjust("5 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(waiting)))
      yield* tracker.observe("$/progress", begin("backgroundIndexProgress"))
      yield* TestClock.adjust("5 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(waiting)), "the index is running")
      yield* tracker.observe("$/progress", end("backgroundIndexProgress"))
      assert.isTrue(yield* Fiber.join(waiting))
    }))

  it.effect("expecting progress that never begins, the wait ends at the deadline, flagged", () =>
    Effect.gen(function*() {
      const tracker = yield* Readiness.make(indexingRule)
      const waiting = yield* Effect.fork(tracker.awaitSettled(2_000, true))
      yield* TestClock.adjust("2 seconds")
      assert.isFalse(yield* Fiber.join(waiting))
      // A file no project marker governs starts no index: such a query does not wait for one.
      assert.isTrue(yield* tracker.awaitSettled(2_000, false))
    }))

  it.effect("a quiet period restarts with every message from the server", () =>
    Effect.gen(function*() {
      const tracker = yield* Readiness.make({
        quietMs: 200,
        progress: true,
        maxWaitMs: 60_000,
        readyLog: null,
        readyNotification: null,
        openStartsProgress: false
      })
      const waiting = yield* Effect.fork(tracker.awaitSettled(60_000))
      yield* TestClock.adjust("150 millis")
      yield* tracker.observe("window/logMessage", { type: 3, message: "loading" })
      yield* TestClock.adjust("199 millis")
      assert.isTrue(Option.isNone(yield* Fiber.poll(waiting)))
      yield* TestClock.adjust("1 millis")
      assert.isTrue(yield* Fiber.join(waiting))
    }))

  it.effect("once settled, later progress does not make queries wait again", () =>
    Effect.gen(function*() {
      const tracker = yield* Readiness.make({
        quietMs: 0,
        progress: true,
        maxWaitMs: 60_000,
        readyLog: null,
        readyNotification: null,
        openStartsProgress: false
      })
      assert.isTrue(yield* tracker.awaitSettled(0))
      yield* tracker.observe("$/progress", begin("reindex"))
      assert.isTrue(yield* tracker.awaitSettled(0))
    }))

  it.effect("progress is ignored when the rule says so, and malformed progress never counts", () =>
    Effect.gen(function*() {
      const ignoring = yield* Readiness.make({
        quietMs: 0,
        progress: false,
        maxWaitMs: 60_000,
        readyLog: null,
        readyNotification: null,
        openStartsProgress: false
      })
      yield* ignoring.observe("$/progress", begin("index"))
      assert.isTrue(yield* ignoring.awaitSettled(0))
      const strict = yield* Readiness.make({
        quietMs: 0,
        progress: true,
        maxWaitMs: 60_000,
        readyLog: null,
        readyNotification: null,
        openStartsProgress: false
      })
      yield* strict.observe("$/progress", { token: { nested: true }, value: { kind: "begin" } })
      yield* strict.observe("$/progress", { token: "x", value: "begin" })
      assert.strictEqual(yield* strict.activeTokens, 0)
      assert.isTrue(yield* strict.awaitSettled(0))
    }))
})
