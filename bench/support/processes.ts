/**
 * Proof that the bench leaves no process behind: every server's process group, and every descendant of
 * the bench process started, must be gone at the end (read from /proc, like the host's own tests do).
 */
import * as Fs from "node:fs"

interface ProcessEntry {
  readonly pid: number
  readonly state: string
  readonly ppid: number
  readonly pgrp: number
}

const processes = (): Array<ProcessEntry> => {
  const entries: Array<ProcessEntry> = []
  for (const name of Fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    let stat: string
    try {
      stat = Fs.readFileSync(`/proc/${name}/stat`, "latin1")
    } catch {
      continue
    }
    // Fields after the parenthesised command name: state, ppid, pgrp, ...
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    entries.push({ pid: Number(name), state: fields[0]!, ppid: Number(fields[1]), pgrp: Number(fields[2]) })
  }
  return entries
}

/** Server pids seen during the run (each leads its own process group). */
export const serverPids = new Set<number>()

export const track = (pids: Iterable<number>) => {
  for (const pid of pids) serverPids.add(pid)
}

/** Descendants of this process that are not the bench's own (the TypeScript loader's esbuild service). */
let baseline = new Set<number>()

/** Records the processes that were there before the bench started anything. */
export const takeBaseline = () => {
  baseline = new Set(survivors())
}

/** Live (non-zombie) processes in a tracked group or descending from this process, except the baseline. */
export const survivors = (): Array<number> => {
  const live = processes().filter((entry) => entry.state !== "Z")
  const descendants = new Set<number>([process.pid])
  let grew = true
  while (grew) {
    grew = false
    for (const entry of live) {
      if (!descendants.has(entry.pid) && descendants.has(entry.ppid)) {
        descendants.add(entry.pid)
        grew = true
      }
    }
  }
  descendants.delete(process.pid)
  return live.filter((entry) => !baseline.has(entry.pid) && (descendants.has(entry.pid) || serverPids.has(entry.pgrp)))
    .map((entry) => entry.pid)
}

/** Waits up to `timeoutMs` for every tracked process to be gone; returns those still alive. */
export const awaitNoSurvivors = async (timeoutMs = 5_000): Promise<Array<number>> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const left = survivors()
    if (left.length === 0 || Date.now() > deadline) return left
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
