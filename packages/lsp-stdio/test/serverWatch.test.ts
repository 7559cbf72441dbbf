import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schedule, Scope } from "effect"
import * as ProcessWorld from "../src/internal/processWorld.js"
import * as ServerInstance from "../src/internal/serverInstance.js"
import * as StdioConfig from "../src/StdioConfig.js"
import { fakeConfig, makeRecordFile, makeWorkspace } from "./support/fakeHost.js"

/** The local world, with the watchdog's watch and release calls recorded (and still made). */
const recordingWorld = Effect.gen(function*() {
  const base = yield* ProcessWorld.makeLocal(300)
  const calls: Array<string> = []
  const world: ProcessWorld.ProcessWorld = {
    ...base,
    watch: (pid) => Effect.zipRight(Effect.sync(() => calls.push(`watch ${pid}`)), base.watch(pid)),
    release: (pid) => Effect.zipRight(Effect.sync(() => calls.push(`release ${pid}`)), base.release(pid))
  }
  return { world, calls }
})

/** Starts the fake server (options as in FAKE_LSP) in a scope the test closes itself. */
const startFake = (world: ProcessWorld.ProcessWorld, fake: Record<string, unknown>) =>
  Effect.gen(function*() {
    const recordFile = yield* makeRecordFile
    const path = yield* makeWorkspace()
    const decoded = yield* StdioConfig.decode(fakeConfig({ recordFile, fake }))
    const config = decoded.servers["fake"]!
    const scope = yield* Scope.make()
    const instance = yield* ServerInstance.start(
      { providerId: "fake", executable: process.execPath, env: config.env, config },
      { path, uri: `file://${path}` },
      world
    ).pipe(Scope.extend(scope), Effect.provide(NodeContext.layer))
    return { instance, close: Scope.close(scope, Exit.void) }
  })

describe("a server and the watchdog", () => {
  it.scopedLive("is watched from its start and released once its teardown has seen it gone", () =>
    Effect.gen(function*() {
      const { calls, world } = yield* recordingWorld
      const { close, instance } = yield* startFake(world, {})
      assert.deepStrictEqual(calls, [`watch ${instance.pid}`])
      yield* close
      // Released by teardown or already by the exit watcher when the server left on `exit` (or by both).
      assert.strictEqual(calls[0], `watch ${instance.pid}`)
      assert.deepStrictEqual(new Set(calls.slice(1)), new Set([`release ${instance.pid}`]))
    }))

  it.scopedLive("is released as soon as it exits on its own, long before its teardown", () =>
    Effect.gen(function*() {
      const { calls, world } = yield* recordingWorld
      const { close, instance } = yield* startFake(world, { crash: "didOpen" })
      yield* instance.connection.post("textDocument/didOpen", {
        textDocument: { uri: "file:///x.fake", languageId: "fake", version: 1, text: "" }
      })
      yield* Effect.sync(() => calls.includes(`release ${instance.pid}`)).pipe(
        Effect.repeat({ until: (released) => released, schedule: Schedule.spaced("20 millis") }),
        Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("never released") })
      )
      yield* close
      assert.deepStrictEqual(calls.filter((call) => call.startsWith("watch")), [`watch ${instance.pid}`])
    }))
})
