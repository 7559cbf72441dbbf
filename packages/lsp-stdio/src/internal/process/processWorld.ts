import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as FileAccess from "../files/fileAccess.js"
import * as ProcessMemory from "./processMemory.js"
import * as ProcessTree from "./processTree.js"
import * as Watchdog from "./watchdog.js"

/**
 * Where servers run, as far as lifecycle is concerned. On the local machine lsp-seam tells servers its
 * own pid (so they exit when it dies) and ends whole process groups; in any other world (a sandbox, a
 * remote machine, the in-memory test executor) it can only use what the `CommandExecutor` offers.
 */
export interface ProcessWorld {
  /** `initialize.processId`: the host's pid when servers share its process namespace, else null. */
  readonly hostPid: number | null
  /** Sends `signal` to the server and everything it started. */
  readonly signalTree: (
    pid: number,
    signal: CommandExecutor.Signal,
    kill: (signal: CommandExecutor.Signal) => Effect.Effect<void, unknown>
  ) => Effect.Effect<void>
  /** Waits up to `timeoutMs` until the server and everything it started are gone; false on timeout. */
  readonly treeGone: (pid: number, exited: Effect.Effect<unknown>, timeoutMs: number) => Effect.Effect<boolean>
  /** The resident memory of servers' process trees, and of the machine, where the world can tell. */
  readonly memory: ProcessMemory.ProcessMemoryShape
  /** How workspaces and sources are read: where the servers are, given the platform's file system. */
  readonly files: (fs: FileSystem.FileSystem) => FileAccess.FileAccess
  /** A server has started: from now on it is ended even if the host dies without tearing it down. */
  readonly watch: (pid: number) => Effect.Effect<void>
  /** The host has seen the server and everything it started gone (at its exit or in its teardown). */
  readonly release: (pid: number) => Effect.Effect<void>
}

// Teardown runs in finalisers, which are uninterruptible: each wait must opt back in, or its timeout could
// never stop it.
const awaitExit = (exited: Effect.Effect<unknown>, timeoutMs: number) =>
  Effect.interruptible(exited).pipe(
    Effect.timeoutTo({ duration: timeoutMs, onSuccess: () => true, onTimeout: () => false })
  )

/**
 * The local POSIX machine: servers are process-group leaders and the host can watch the whole group. A
 * watchdog (see watchdog.ts) ends the groups of a host that dies without tearing them down, after
 * `killGraceMs`; it lives in the current scope.
 */
export const makeLocal = (killGraceMs: number): Effect.Effect<ProcessWorld, never, Scope.Scope> =>
  Effect.map(Watchdog.make(killGraceMs), (watchdog) => ({
    hostPid: process.pid,
    signalTree: (pid, signal) => ProcessTree.signalGroup(pid, signal),
    treeGone: (pid, exited, timeoutMs) =>
      Effect.zipWith(awaitExit(exited, timeoutMs), ProcessTree.awaitGroupGone(pid, timeoutMs), (a, b) => a && b, {
        concurrent: true
      }),
    memory: ProcessMemory.proc,
    // This machine's files, read with synchronous calls (see fileAccess.ts for why).
    files: () => FileAccess.local,
    watch: watchdog.watch,
    release: watchdog.release
  }))

/** Any other world: signals go through the executor, and "gone" means the process reported its exit. */
export const remote: ProcessWorld = {
  hostPid: null,
  // The executor's kill waits for the exit; do not let it block the escalation.
  signalTree: (_pid, signal, kill) =>
    kill(signal).pipe(Effect.ignore, Effect.interruptible, Effect.fork, Effect.asVoid),
  treeGone: (_pid, exited, timeoutMs) => awaitExit(exited, timeoutMs),
  memory: ProcessMemory.unknown,
  files: FileAccess.platform,
  // Nothing here can signal a process the executor does not know about.
  watch: () => Effect.void,
  release: () => Effect.void
}
