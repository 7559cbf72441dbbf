/**
 * The last line of orphan protection on the local POSIX machine. Servers are told the host's pid and lose
 * their stdin when it dies, but a server that heeds neither would outlive a host killed with SIGKILL (no
 * finaliser runs then). The watchdog is a tiny shell process, a session of its own, that learns which
 * server process groups are alive through a pipe from the host. When that pipe ends with groups still
 * listed (the host died, or closed without seeing a group gone), it sends them SIGTERM, waits the grace
 * period and sends SIGKILL. It is started just after the first server and costs one `sh` process per host.
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
 * The watchdog's program: `+PGID` lines add a group, `-PGID` lines remove it; at the end of input the
 * groups left get SIGTERM, then SIGKILL after `$1` seconds. Pure POSIX sh (dash, bash, busybox).
 */
const script = `
groups=' '
while IFS= read -r line; do
  case $line in
    +*) groups="$groups\${line#+} " ;;
    -*) kept=' '; for g in $groups; do [ "$g" = "\${line#-}" ] || kept="$kept$g "; done; groups=$kept ;;
  esac
done
[ "$groups" = ' ' ] && exit 0
for g in $groups; do kill -s TERM -- "-$g" 2>/dev/null; done
sleep "$1"
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
exit 0
`

const shell = "/bin/sh"

/** Whether this machine can run the watchdog (POSIX with /bin/sh). */
const supported = (): boolean => process.platform !== "win32" && NodeFs.existsSync(shell)

/**
 * A watchdog for one host, living in the current scope. Closing the scope ends the watchdog's input and
 * waits (at most the grace period and a second) for it to finish: it exits at once when every group has
 * been released, and otherwise ends what is left first.
 */
export const make = (graceMs: number): Effect.Effect<Watchdog, never, Scope.Scope> =>
  Effect.gen(function*() {
    const graceSeconds = Math.max(1, Math.ceil(graceMs / 1000))
    // State changes only inside synchronous steps, so a check-and-update cannot interleave with another.
    const groups = new Set<number>()
    let child: NodeChild.ChildProcess | undefined = undefined
    let exited: Promise<void> = Promise.resolve()
    let closed = false

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
      const started = NodeChild.spawn(shell, ["-c", script, "lsp-seam-watchdog", String(graceSeconds)], {
        stdio: ["pipe", "ignore", "ignore"],
        detached: true
      })
      // The watchdog never keeps the host alive, and its failures are not the host's: one that could not
      // start or died is replaced at the next watch.
      started.on("error", () => {})
      started.stdin?.on("error", () => {})
      started.unref()
      if (started.stdin instanceof NodeNet.Socket) started.stdin.unref()
      exited = new Promise((resolve) => started.once("close", () => resolve()))
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
        // Groups still listed (their teardown never saw them go) are the watchdog's to end, started or not.
        ensureRunning()
        closed = true
        const last = child
        child = undefined
        if (last === undefined) return Effect.void
        last.stdin?.end()
        const finished = exited
        return Effect.promise(() => finished).pipe(
          Effect.interruptible,
          Effect.timeoutTo({
            duration: Duration.millis(graceSeconds * 1000 + 1000),
            onSuccess: () => true,
            onTimeout: () => false
          }),
          Effect.flatMap((done) => done ? Effect.void : Effect.sync(() => last.kill("SIGKILL")))
        )
      })
    )

    return {
      watch: (pgid) =>
        Effect.sync(() => {
          groups.add(pgid)
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
