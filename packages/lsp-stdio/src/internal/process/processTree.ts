import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as NodeFs from "node:fs"

/**
 * Signals and inspects a whole process group on the local POSIX machine. Servers are spawned as the
 * leaders of their own group (the platform executor spawns them detached), so the group id is the
 * server's pid and every child that did not start a session of its own belongs to it.
 */

/** Sends `signal` to every process of the group; a group that is already gone is not an error. */
export const signalGroup = (pgid: number, signal: NodeJS.Signals): Effect.Effect<void> =>
  Effect.sync(() => {
    try {
      process.kill(-pgid, signal)
    } catch {
      // ESRCH: nothing left to signal. EPERM cannot happen for our own children.
    }
  })

/** One live (non-zombie) process as /proc lists it. */
export interface ProcEntry {
  readonly pid: number
  readonly ppid: number
  readonly pgrp: number
}

/** Every live (non-zombie) process, from one pass over /proc; undefined where /proc is missing. */
export const listProcesses = (): ReadonlyArray<ProcEntry> | undefined => {
  let names: ReadonlyArray<string>
  try {
    names = NodeFs.readdirSync("/proc")
  } catch {
    return undefined
  }
  const entries: Array<ProcEntry> = []
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue
    let stat: string
    try {
      stat = NodeFs.readFileSync(`/proc/${name}/stat`, "latin1")
    } catch {
      continue
    }
    // Fields after the parenthesised command name: state, ppid, pgrp, ...
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    // A zombie has exited; it only waits for its parent to reap it.
    if (fields[0] !== "Z") entries.push({ pid: Number(name), ppid: Number(fields[1]), pgrp: Number(fields[2]) })
  }
  return entries
}

const readGroupMembers = (pgid: number): ReadonlyArray<number> | undefined =>
  listProcesses()?.filter((entry) => entry.pgrp === pgid).map((entry) => entry.pid)

/** The live (non-zombie) members of the group: read from /proc where it exists, else probed with signal 0. */
export const groupMembers = (pgid: number): Effect.Effect<ReadonlyArray<number>> =>
  Effect.sync(() => {
    const fromProc = readGroupMembers(pgid)
    if (fromProc !== undefined) return fromProc
    try {
      process.kill(-pgid, 0)
      return [pgid]
    } catch {
      return []
    }
  })

const pollSchedule = Schedule.spaced("10 millis")

/** Waits, polling on the Effect clock, until no live process of the group remains; false on timeout. */
export const awaitGroupGone = (pgid: number, timeoutMs: number): Effect.Effect<boolean> =>
  groupMembers(pgid).pipe(
    Effect.repeat({ until: (members) => members.length === 0, schedule: pollSchedule }),
    Effect.interruptible,
    Effect.timeoutTo({ duration: timeoutMs, onTimeout: () => false, onSuccess: () => true })
  )
