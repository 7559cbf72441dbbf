import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schedule, Scope } from "effect"
import * as NodeChild from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as ProcessTree from "../src/internal/process/processTree.js"
import * as Watchdog from "../src/internal/process/watchdog.js"
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

/** A process group that leaves on SIGTERM (as most servers do). Killed in the test's scope in any case. */
const politeGroup = Effect.acquireRelease(
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
const openWatchdog = (graceMs: number, spawn?: Watchdog.Spawn) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const watchdog = yield* Scope.extend(Watchdog.make(graceMs, spawn), scope)
    return { watchdog, close: Scope.close(scope, Exit.void) }
  })

/** Resolves after the event loop's next check phase (where the watchdog's deferred start runs). */
const nextTurn = Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))

/** A spawn that counts its calls and hands each started process to the test. */
const countingSpawn = (replace?: (args: ReadonlyArray<string>) => readonly [string, ReadonlyArray<string>]) => {
  const started: Array<NodeChild.ChildProcess> = []
  const closed: Array<NodeChild.ChildProcess> = []
  const spawn: Watchdog.Spawn = (command, args, options) => {
    const [actualCommand, actualArgs] = replace?.(args) ?? [command, args]
    const child = NodeChild.spawn(actualCommand, actualArgs, options)
    started.push(child)
    child.once("close", () => closed.push(child))
    return child
  }
  return { spawn, started, closed }
}

/** A pid that no process has (one that existed and has been reaped). */
const vanishedPid = Effect.async<number>((resume) => {
  const child = NodeChild.spawn(process.execPath, ["-e", ""], { stdio: "ignore" })
  child.once("close", () => resume(Effect.succeed(child.pid!)))
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
    "a spawn that throws costs a start, not the host; the next watch starts one",
    () =>
      Effect.gen(function*() {
        const group = yield* stubbornGroup
        let calls = 0
        const spawn: Watchdog.Spawn = (command, args, options) => {
          calls += 1
          if (calls === 1) throw new Error("spawn E2BIG")
          return NodeChild.spawn(command, args, options)
        }
        const { close, watchdog } = yield* openWatchdog(1_000, spawn)
        yield* watchdog.watch(group.pgid)
        yield* nextTurn
        assert.strictEqual(calls, 1)
        assert.isUndefined(yield* watchdog.pid)
        yield* watchdog.watch(group.pgid)
        yield* started(watchdog)
        assert.strictEqual(calls, 2)
        yield* close
        yield* eventually(Effect.map(groupAlive(group.pgid), (alive) => !alive), "the watched group ended")
      }),
    { timeout: 15_000 }
  )

  it.scopedLive("a watchdog that could not start is not retried in a loop", () =>
    Effect.gen(function*() {
      const group = yield* stubbornGroup
      const { closed, spawn, started: spawned } = countingSpawn(() => ["/nonexistent/lsp-seam-sh", []])
      const { close, watchdog } = yield* openWatchdog(1_000, spawn)
      yield* watchdog.watch(group.pgid)
      yield* eventually(Effect.sync(() => closed.length >= 1), "the failed start was reported")
      yield* nextTurn
      yield* nextTurn
      assert.strictEqual(spawned.length, 1)
      yield* close
    }))

  it.scopedLive("a group with no process left at close is dropped, not signalled", () =>
    Effect.gen(function*() {
      const gone = yield* vanishedPid
      const { spawn, started: spawned } = countingSpawn()
      const { close, watchdog } = yield* openWatchdog(1_000, spawn)
      yield* watchdog.watch(gone)
      // Closed before the deferred start: had the group been kept, the close would start a watchdog for it.
      yield* close
      assert.strictEqual(spawned.length, 0)
    }))

  it.scopedLive(
    "a close that outwaits the watchdog leaves it running to finish its work",
    () =>
      Effect.gen(function*() {
        const group = yield* stubbornGroup
        // Stands in for a watchdog still in its grace period when the host stops waiting for it.
        const { spawn, started: spawned } = countingSpawn(() => ["/bin/sh", ["-c", "sleep 4"]])
        yield* Effect.addFinalizer(() => Effect.sync(() => spawned.forEach((child) => child.kill("SIGKILL"))))
        const { close, watchdog } = yield* openWatchdog(1_000, spawn)
        yield* watchdog.watch(group.pgid)
        const pid = yield* started(watchdog)
        yield* close
        assert.isTrue(isRunning(pid), "the host stopped waiting after grace + 1 s but did not kill it")
      }),
    { timeout: 15_000 }
  )

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
        const polite = yield* politeGroup
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

/** Where a shell is installed, if it is (looked up on PATH). */
const onPath = (name: string): string | undefined =>
  (process.env["PATH"] ?? "").split(NodePath.delimiter).map((dir) => NodePath.join(dir, name)).find((file) => {
    try {
      NodeFs.accessSync(file, NodeFs.constants.X_OK)
      return true
    } catch {
      return false
    }
  })

// The script is meant for any POSIX sh: /bin/sh is dash on Debian, bash elsewhere, busybox on Alpine.
const shells: ReadonlyArray<
  {
    readonly name: string
    readonly command: (args: ReadonlyArray<string>) => readonly [string, ReadonlyArray<string>] | undefined
  }
> = [
  {
    name: "dash",
    command: (args) => {
      const dash = onPath("dash")
      return dash === undefined ? undefined : [dash, args]
    }
  },
  {
    name: "bash",
    command: (args) => {
      const bash = onPath("bash")
      return bash === undefined ? undefined : [bash, args]
    }
  },
  {
    name: "busybox sh",
    command: (args) => {
      const busybox = onPath("busybox")
      return busybox === undefined ? undefined : [busybox, ["sh", ...args]]
    }
  }
]

for (const shell of shells) {
  const available = shell.command([]) !== undefined
  const name = `the watchdog's script under ${shell.name}`
  if (!available) {
    describe.skip(name, () => it.skip(`needs ${shell.name} on PATH (.ci/run installs it)`, () => {}))
    continue
  }
  describe(name, () => {
    it.scopedLive(
      "ends a group that obeys SIGTERM with it, and one that ignores it with SIGKILL after the grace",
      () =>
        Effect.gen(function*() {
          const stubborn = yield* stubbornGroup
          const polite = yield* politeGroup
          const { spawn, started: spawned } = countingSpawn((args) => shell.command(args)!)
          const { close, watchdog } = yield* openWatchdog(1_000, spawn)
          yield* watchdog.watch(stubborn.pgid)
          yield* watchdog.watch(polite)
          const pid = yield* started(watchdog)
          assert.strictEqual(spawned.length, 1)
          yield* close
          yield* eventually(
            Effect.map(Effect.all([groupAlive(stubborn.pgid), groupAlive(polite)]), (alive) => alive.every((a) => !a)),
            "both groups ended"
          )
          const sigtermAt = stubborn.sigtermAt()
          assert.isDefined(sigtermAt, "SIGTERM came first")
          assert.isAtLeast(Date.now() - sigtermAt!, 900)
          yield* eventually(Effect.sync(() => !isRunning(pid)), "the watchdog left")
        }),
      { timeout: 15_000 }
    )
  })
}
