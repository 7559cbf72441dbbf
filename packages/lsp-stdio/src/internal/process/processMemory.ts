/**
 * How much memory servers hold: the resident memory of each server's process tree (the server, everything
 * in its process group, and every descendant, also one that started a group of its own), and the machine's
 * memory a share of which makes a budget. On Linux both come from /proc (and the cgroup's limit, when the
 * host runs in a container); anywhere else the answer is "unknown", and a budget is not enforced.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import { listProcesses, type ProcEntry } from "./processTree.js"

/** The resident bytes of each asked-for server's tree, by the server's pid; `None` where it cannot tell. */
export type TreeBytes = Option.Option<ReadonlyMap<number, number>>

export interface ProcessMemoryShape {
  /** One look at the trees of `pids`: a pid that is gone counts 0. */
  readonly trees: (pids: ReadonlyArray<number>) => Effect.Effect<TreeBytes>
  /** The memory of the machine the servers run on, in bytes; `None` where it cannot tell. */
  readonly machineBytes: Effect.Effect<Option.Option<number>>
}

/**
 * The measurement the host uses. `LspStdio` picks `proc` on the local machine and `unknown` elsewhere, unless
 * its context already holds one (tests measure fake servers that way).
 */
export class ProcessMemory extends Context.Tag("@lsp-seam/lsp-stdio/ProcessMemory")<
  ProcessMemory,
  ProcessMemoryShape
>() {}

const residentOf = (pid: number): number => {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(NodeFs.readFileSync(`/proc/${pid}/status`, "latin1"))
    return match === null ? 0 : Number(match[1]) * 1024
  } catch {
    // It left between listing and reading.
    return 0
  }
}

/** The members of `root`'s tree: its group, then every descendant of a member, each once. */
const treeOf = (root: number, all: ReadonlyArray<ProcEntry>, children: ReadonlyMap<number, Array<number>>) => {
  const members = new Set<number>()
  const pending: Array<number> = []
  const add = (pid: number) => {
    if (members.has(pid)) return
    members.add(pid)
    pending.push(pid)
  }
  for (const entry of all) if (entry.pid === root || entry.pgrp === root) add(entry.pid)
  while (pending.length > 0) for (const child of children.get(pending.pop()!) ?? []) add(child)
  return members
}

/**
 * The trees of `pids` from one pass over /proc (synchronous reads of small kernel files: a few milliseconds
 * for a few hundred processes, taken only when the pool samples or decides, never per query).
 */
export const procTrees = (pids: ReadonlyArray<number>): TreeBytes => {
  if (pids.length === 0) return NodeFs.existsSync("/proc/self/stat") ? Option.some(new Map()) : Option.none()
  const all = listProcesses()
  if (all === undefined) return Option.none()
  const children = new Map<number, Array<number>>()
  for (const entry of all) {
    const siblings = children.get(entry.ppid)
    if (siblings === undefined) children.set(entry.ppid, [entry.pid])
    else siblings.push(entry.pid)
  }
  const bytes = new Map<number, number>()
  for (const pid of pids) {
    let total = 0
    for (const member of treeOf(pid, all, children)) total += residentOf(member)
    bytes.set(pid, total)
  }
  return Option.some(bytes)
}

/** The cgroup (v2, then v1) memory limit of this process, when one is set below the machine's memory. */
const cgroupLimit = (): number | undefined => {
  for (const file of ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]) {
    try {
      const limit = Number(NodeFs.readFileSync(file, "latin1").trim())
      if (Number.isSafeInteger(limit) && limit > 0) return limit
    } catch {
      // No such controller here.
    }
  }
  return undefined
}

/** The machine's memory as far as the host may use it: the smaller of the RAM and the container's limit. */
export const machineMemory = (): number => Math.min(NodeOs.totalmem(), cgroupLimit() ?? Infinity)

/** The local Linux machine, read from /proc. */
export const proc: ProcessMemoryShape = {
  trees: (pids) => Effect.sync(() => procTrees(pids)),
  machineBytes: Effect.sync(() => NodeFs.existsSync("/proc/self/status") ? Option.some(machineMemory()) : Option.none())
}

/** A world whose processes the host cannot see (a sandbox, a remote machine, the in-memory executor). */
export const unknown: ProcessMemoryShape = {
  trees: () => Effect.succeed(Option.none()),
  machineBytes: Effect.succeed(Option.none())
}
