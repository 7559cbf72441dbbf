/**
 * The last line of orphan protection on the local POSIX machine. Servers are told the host's pid and lose
 * their stdin when it dies, but a server that heeds neither would outlive a host killed with SIGKILL (no
 * finaliser runs then). The watchdog is a tiny shell process, a session of its own, that learns through a
 * pipe from the host which server process groups it should end: each group from its server's spawn until
 * the host has seen the group empty (at the server's exit or its teardown). When that pipe ends with groups
 * still listed (the host died, or closed without seeing them go), it sends them SIGTERM, waits up to the
 * grace period for them to go, and sends SIGKILL to those still there. It is started just after the first
 * server and costs one `sh` process per host.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as NodeChild from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"

export interface Watchdog {
  /** Hands a server's process group to the watchdog, to be ended if the host dies before `release`. */
  readonly watch: (pgid: number) => Effect.Effect<void>
  /** The group is gone (its teardown has seen it go): the watchdog forgets it. */
  readonly release: (pgid: number) => Effect.Effect<void>
  /** The watchdog's pid while one runs, as far as this process has seen (for tests and diagnostics). */
  readonly pid: Effect.Effect<number | undefined>
}

/**
 * The watchdog's program: `+PGID` lines add a group, `-PGID` lines remove it. At the end of input the groups
 * left get SIGTERM; then, once a second for `$1` seconds, the groups that still have a process are kept and
 * the rest forgotten (so it leaves as soon as all are gone); SIGKILL goes only to the groups still there at
 * the end. POSIX sh; `kill` without `--`, which busybox would take for a pid (failing the `kill -0` probe).
 */
const script = `
groups=' '
while IFS= read -r line; do
  case $line in
    +*) groups="$groups\${line#+} " ;;
    -*) kept=' '; for g in $groups; do [ "$g" = "\${line#-}" ] || kept="$kept$g "; done; groups=$kept ;;
  esac
done
for g in $groups; do kill -TERM "-$g" 2>/dev/null; done
waited=0
while :; do
  alive=' '; for g in $groups; do kill -0 "-$g" 2>/dev/null && alive="$alive$g "; done; groups=$alive
  [ "$groups" = ' ' ] && exit 0
  [ "$waited" -ge "$1" ] && break
  sleep 1; waited=$((waited + 1))
done
for g in $groups; do kill -KILL "-$g" 2>/dev/null; done
exit 0
`

const shell = "/bin/sh"

/** Whether this machine can run the watchdog (POSIX with /bin/sh). */
const supported = (): boolean => process.platform !== "win32" && NodeFs.existsSync(shell)

/** Whether any process (a zombie too: it still holds its id) belongs to the group. */
const groupExists = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    return !(error instanceof Error && "code" in error && error.code === "ESRCH")
  }
}

/** How the watchdog process is started; replaceable in tests. */
export type Spawn = (
  command: string,
  args: ReadonlyArray<string>,
  options: NodeChild.SpawnOptions
) => NodeChild.ChildProcess

/** How many times in a row a watchdog that died is replaced before the next watch (so no restart loop). */
const maxRestarts = 3

/**
 * A watchdog for one host, living in the current scope. Closing the scope ends the watchdog's input and
 * waits (at most the grace period and a second) for it to finish: it exits at once when every group has
 * been released, and otherwise ends what is left first.
 */
// Long on purpose (~110 lines): the watched groups, the child and its restarts are one piece of state that
// `watch`, `release`, a restart and the close all update; each is a short function inside.
export const make = (
  graceMs: number,
  spawn: Spawn = NodeChild.spawn
): Effect.Effect<Watchdog, never, Scope.Scope> =>
  Effect.gen(function*() {
    const graceSeconds = Math.max(1, Math.ceil(graceMs / 1000))
    // State changes only inside synchronous steps, so a check-and-update cannot interleave with another.
    const groups = new Set<number>()
    let child: NodeChild.ChildProcess | undefined = undefined
    let exited: Promise<void> = Promise.resolve()
    let closed = false
    let restarts = 0

    const write = (line: string) => {
      if (child?.stdin?.writable === true) child.stdin.write(`${line}\n`)
    }

    const running = (): NodeChild.ChildProcess | undefined =>
      child !== undefined && child.pid !== undefined && child.exitCode === null && child.signalCode === null
        ? child
        : undefined

    /** Starts a watchdog unless one is running (again, if the last one died), telling it every group. */
    const ensureRunning = () => {
      if (closed || running() !== undefined || groups.size === 0 || !supported()) return
      let started: NodeChild.ChildProcess
      try {
        // A small environment of its own: the host's may be too large to pass (E2BIG), and `sleep` is all
        // the script needs from PATH.
        started = spawn(shell, ["-c", script, "lsp-seam-watchdog", String(graceSeconds)], {
          stdio: ["pipe", "ignore", "ignore"],
          detached: true,
          env: { PATH: "/usr/bin:/bin" }
        })
      } catch {
        // Some spawn failures (ENOMEM, E2BIG) are thrown rather than emitted; the next watch tries again.
        return
      }
      // The watchdog never keeps the host alive, and its failures are not the host's.
      started.on("error", () => {})
      started.stdin?.on("error", () => {})
      started.unref()
      if (started.stdin instanceof NodeNet.Socket) started.stdin.unref()
      exited = new Promise((resolve) =>
        started.once("close", () => {
          resolve()
          // One that ran and died while the host lives is replaced at once, so no listed group goes
          // unwatched; one that never started (no pid), or a run of deaths, waits for the next watch.
          if (closed || groups.size === 0 || started.pid === undefined || restarts >= maxRestarts) return
          restarts += 1
          scheduleStart()
        })
      )
      child = started
      for (const pgid of groups) write(`+${pgid}`)
    }

    // Spawning blocks the event loop for a few milliseconds (3–12 ms measured here), so it is done on the
    // next turn: the first server is by then waiting for its handshake, and the query does not pay for it.
    let scheduled: ReturnType<typeof setImmediate> | undefined = undefined
    const scheduleStart = () => {
      scheduled ??= setImmediate(() => {
        scheduled = undefined
        ensureRunning()
      })
    }

    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        if (scheduled !== undefined) clearImmediate(scheduled)
        scheduled = undefined
        // A listed group with no process left emptied after the host last looked at it: its id may be reused
        // by now, so it is not the watchdog's to signal.
        for (const pgid of Array.from(groups)) {
          if (!groupExists(pgid)) {
            groups.delete(pgid)
            write(`-${pgid}`)
          }
        }
        // Groups still listed (their teardown never saw them go) are the watchdog's to end, started or not.
        ensureRunning()
        closed = true
        const last = child
        child = undefined
        if (last === undefined) return Effect.void
        last.stdin?.end()
        // It leaves at once when nothing is listed; otherwise it is left to finish on its own after this wait
        // (killing it could spare the groups it was about to end).
        const finished = exited
        return Effect.promise(() => finished).pipe(
          Effect.interruptible,
          Effect.timeoutOption(Duration.millis(graceSeconds * 1000 + 1000)),
          Effect.asVoid
        )
      })
    )

    return {
      watch: (pgid) =>
        Effect.sync(() => {
          groups.add(pgid)
          restarts = 0
          if (running() === undefined) scheduleStart()
          else write(`+${pgid}`)
        }),
      release: (pgid) =>
        Effect.sync(() => {
          if (groups.delete(pgid)) write(`-${pgid}`)
        }),
      pid: Effect.sync(() => running()?.pid)
    }
  })
