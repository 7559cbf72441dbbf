import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schedule, Scope } from "effect"
import * as NodeChild from "node:child_process"
import * as ProcessTree from "../src/internal/processTree.js"
import * as Watchdog from "../src/internal/watchdog.js"
import { isRunning } from "./support/fakeHost.js"

/**
 * A process group that ignores SIGTERM (it only reports it) and has no stdin, as a server that heeds
 * neither its stdin's end nor the host's pid would be: only SIGKILL ends it. Killed in the test's scope in
 * any case.
 */
const stubbornGroup = Effect.acquireRelease(
  Effect.async<{ readonly pgid: number; readonly sigtermAt: () => number | undefined }, Error>((resume) => {
    const child = NodeChild.spawn(
      process.execPath,
      [
        "-e",
        "process.on('SIGTERM', () => process.stdout.write('sigterm')); process.stdout.write('up'); " +
        "setInterval(() => {}, 1 << 30)"
      ],
      { stdio: ["ignore", "pipe", "ignore"], detached: true }
    )
    let sigtermAt: number | undefined = undefined
    child.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("sigterm")) sigtermAt ??= Date.now()
    })
    child.stdout.once("data", () => resume(Effect.succeed({ pgid: child.pid!, sigtermAt: () => sigtermAt })))
    child.once("error", (error) => resume(Effect.fail(error)))
    child.unref()
  }),
  ({ pgid }) => ProcessTree.signalGroup(pgid, "SIGKILL")
)

const groupAlive = (pgid: number) => Effect.map(ProcessTree.groupMembers(pgid), (members) => members.length > 0)

/** Waits (polling, bounded) until `condition` holds. */
const eventually = (condition: Effect.Effect<boolean>, what: string, timeoutMs = 5_000) =>
  condition.pipe(
    Effect.repeat({ until: (ok) => ok, schedule: Schedule.spaced("20 millis") }),
    Effect.timeoutFail({ duration: timeoutMs, onTimeout: () => new Error(`never happened: ${what}`) })
  )

/** The pid of the watchdog, once it has started (on the event loop's next turn after a watch). */
const started = (watchdog: Watchdog.Watchdog) =>
  eventually(Effect.map(watchdog.pid, (pid) => pid !== undefined), "the watchdog started").pipe(
    Effect.zipRight(watchdog.pid),
    Effect.map((pid) => pid!)
  )

/** A watchdog in a scope the test closes itself (closing it is what a dying host does to the pipe). */
const openWatchdog = (graceMs: number) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const watchdog = yield* Scope.extend(Watchdog.make(graceMs), scope)
    return { watchdog, close: Scope.close(scope, Exit.void) }
  })

describe("watchdog", () => {
  it.scopedLive("starts nothing until a group is watched, nor for a group released before it could start", () =>
    Effect.gen(function*() {
      const { close, watchdog } = yield* openWatchdog(1_000)
      assert.isUndefined(yield* watchdog.pid)
      yield* watchdog.watch(1_234_567)
      yield* watchdog.release(1_234_567)
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      assert.isUndefined(yield* watchdog.pid)
      yield* close
    }))

  it.scopedLive(
    "ends a group still listed when the host closes before the watchdog could start",
    () =>
      Effect.gen(function*() {
        const group = yield* stubbornGroup
        const { close, watchdog } = yield* openWatchdog(1_000)
        yield* watchdog.watch(group.pgid)
        yield* close
        yield* eventually(Effect.map(groupAlive(group.pgid), (alive) => !alive), "the listed group ended")
      }),
    { timeout: 15_000 }
  )

  it.scopedLive(
    "ends a watched group when its input ends: SIGTERM, then SIGKILL after the grace",
    () =>
      Effect.gen(function*() {
        const group = yield* stubbornGroup
        const { close, watchdog } = yield* openWatchdog(1_000)
        yield* watchdog.watch(group.pgid)
        const pid = yield* started(watchdog)
        assert.isTrue(isRunning(pid))
        yield* close
        yield* eventually(Effect.map(groupAlive(group.pgid), (alive) => !alive), "the watched group ended")
        const endedAt = Date.now()
        // It was asked first, and killed only once the grace had passed (a lower bound: delays only add).
        const sigtermAt = group.sigtermAt()
        assert.isDefined(sigtermAt, "the group got SIGTERM first")
        assert.isAtLeast(endedAt - sigtermAt!, 900)
        yield* eventually(Effect.sync(() => !isRunning(pid)), "the watchdog left")
      }),
    { timeout: 15_000 }
  )

  it.scopedLive(
    "leaves a released group alone and exits at once when nothing is left to watch",
    () =>
      Effect.gen(function*() {
        const group = yield* stubbornGroup
        const { close, watchdog } = yield* openWatchdog(60_000)
        yield* watchdog.watch(group.pgid)
        const pid = yield* started(watchdog)
        yield* watchdog.release(group.pgid)
        const closing = Date.now()
        yield* close
        // Closing waited for the watchdog to leave, far sooner than its one-minute grace.
        assert.isFalse(isRunning(pid))
        assert.isBelow(Date.now() - closing, 5_000)
        assert.isTrue(yield* groupAlive(group.pgid))
      }),
    { timeout: 15_000 }
  )

  it.scopedLive(
    "replaces a watchdog that died at once, and the new one knows every watched group",
    () =>
      Effect.gen(function*() {
        const first = yield* stubbornGroup
        const second = yield* stubbornGroup
        const { close, watchdog } = yield* openWatchdog(1_000)
        yield* watchdog.watch(first.pgid)
        yield* watchdog.watch(second.pgid)
        const dead = yield* started(watchdog)
        process.kill(dead, "SIGKILL")
        // No new watch is needed: the groups it listed are handed to a new watchdog.
        yield* eventually(
          Effect.map(watchdog.pid, (pid) => pid !== undefined && pid !== dead),
          "a new watchdog started"
        )
        yield* close
        yield* eventually(
          Effect.map(Effect.all([groupAlive(first.pgid), groupAlive(second.pgid)]), (alive) => alive.every((a) => !a)),
          "both watched groups ended"
        )
      }),
    { timeout: 15_000 }
  )

  it.scopedLive(
    "leaves as soon as the groups it signalled are gone, and kills none that went",
    () =>
      Effect.gen(function*() {
        const polite = yield* Effect.acquireRelease(
          Effect.async<number, Error>((resume) => {
            const child = NodeChild.spawn(
              process.execPath,
              ["-e", "process.stdout.write('up'); setInterval(() => {}, 1 << 30)"],
              { stdio: ["ignore", "pipe", "ignore"], detached: true }
            )
            child.stdout.once("data", () => resume(Effect.succeed(child.pid!)))
            child.once("error", (error) => resume(Effect.fail(error)))
            child.unref()
          }),
          (pgid) => ProcessTree.signalGroup(pgid, "SIGKILL")
        )
        const { close, watchdog } = yield* openWatchdog(60_000)
        yield* watchdog.watch(polite)
        const pid = yield* started(watchdog)
        const closing = Date.now()
        yield* close
        // The group left on SIGTERM, so the watchdog did not wait out its one-minute grace.
        assert.isFalse(yield* groupAlive(polite))
        assert.isFalse(isRunning(pid))
        assert.isBelow(Date.now() - closing, 10_000)
      }),
    { timeout: 30_000 }
  )
})
