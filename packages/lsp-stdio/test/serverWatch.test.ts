import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schedule, Scope } from "effect"
import * as NodeFs from "node:fs"
import * as ProcessWorld from "../src/internal/process/processWorld.js"
import * as ServerInstance from "../src/internal/servers/serverInstance.js"
import * as StdioConfig from "../src/StdioConfig.js"
import { fakeConfig, makeRecordFile, makeWorkspace, waitForRecord } from "./support/fakeHost.js"

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
const startFake = (
  world: ProcessWorld.ProcessWorld,
  fake: Record<string, unknown>,
  server: Record<string, unknown> = {}
) =>
  Effect.gen(function*() {
    const recordFile = yield* makeRecordFile
    const path = yield* makeWorkspace()
    const decoded = yield* StdioConfig.decode(fakeConfig({ recordFile, fake, server }))
    const config = decoded.servers["fake"]!
    const scope = yield* Scope.make()
    const instance = yield* ServerInstance.start(
      { providerId: "fake", executable: process.execPath, env: config.env, config },
      { path, uri: `file://${path}` },
      world
    ).pipe(Scope.extend(scope), Effect.provide(NodeContext.layer))
    return { instance, recordFile, close: Scope.close(scope, Exit.void) }
  })

const openDocument = (instance: ServerInstance.ServerInstance) =>
  instance.connection.post("textDocument/didOpen", {
    textDocument: { uri: "file:///x.fake", languageId: "fake", version: 1, text: "" }
  })

const released = (calls: ReadonlyArray<string>, pid: number) =>
  Effect.sync(() => calls.includes(`release ${pid}`)).pipe(
    Effect.repeat({ until: (done) => done, schedule: Schedule.spaced("20 millis") }),
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("never released") })
  )

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
      yield* openDocument(instance)
      yield* released(calls, instance.pid)
      yield* close
      assert.deepStrictEqual(calls.filter((call) => call.startsWith("watch")), [`watch ${instance.pid}`])
    }))

  it.scopedLive(
    "after a crash, a child that lingers within the grace is waited for, then the group released",
    () =>
      Effect.gen(function*() {
        const { calls, world } = yield* recordingWorld
        let looking = 0
        const watched: ProcessWorld.ProcessWorld = {
          ...world,
          treeGone: (pid, exited, timeoutMs) =>
            Effect.zipRight(Effect.sync(() => looking++), world.treeGone(pid, exited, timeoutMs))
        }
        const pidFile = `${yield* makeRecordFile}.grandchild`
        const { close, instance, recordFile } = yield* startFake(
          watched,
          { crash: "didOpen", grandchild: true, grandchildPidFile: pidFile },
          { killGraceMs: 10_000 }
        )
        yield* waitForRecord(recordFile, (all) => all.some((r) => r.event === "grandchildStart"))
        yield* openDocument(instance)
        // The server has exited and the host has started looking at its group, which the child still holds.
        yield* Effect.sync(() => looking > 0).pipe(
          Effect.repeat({ until: (ok) => ok, schedule: Schedule.spaced("10 millis") }),
          Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("the exit was never looked at") })
        )
        assert.isFalse(calls.includes(`release ${instance.pid}`), "the child still holds the group")
        process.kill(Number(NodeFs.readFileSync(pidFile, "utf8")), "SIGKILL")
        yield* released(calls, instance.pid)
        yield* close
      }),
    { timeout: 20_000 }
  )

  it.scopedLive(
    "teardown never signals a group it has seen gone (its id may have been reused since)",
    () =>
      Effect.gen(function*() {
        const { calls, world } = yield* recordingWorld
        let reused = false
        const signals: Array<string> = []
        const reusing: ProcessWorld.ProcessWorld = {
          ...world,
          // After the release, a stranger's processes hold the id: "not gone" to anyone who looks.
          treeGone: (pid, exited, timeoutMs) => reused ? Effect.succeed(false) : world.treeGone(pid, exited, timeoutMs),
          signalTree: (pid, signal, kill) =>
            Effect.zipRight(Effect.sync(() => signals.push(`${signal} ${pid}`)), world.signalTree(pid, signal, kill))
        }
        const { close, instance } = yield* startFake(reusing, { crash: "didOpen" })
        yield* openDocument(instance)
        yield* released(calls, instance.pid)
        reused = true
        yield* close
        assert.deepStrictEqual(signals, [])
      }),
    { timeout: 20_000 }
  )
})
