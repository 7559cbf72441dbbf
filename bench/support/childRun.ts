/**
 * A benchmark run in a fresh Node process (`--import tsx`), so that nothing else the bench did weighs on it:
 * the child prints its result as the last line of its stdout, JSON with the server pids it started, which
 * are tracked for the bench's check that no process is left behind.
 */
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as Processes from "./processes.js"

const repository = fileURLToPath(new URL("../..", import.meta.url))

/** Whether `u` carries the pids a child started. */
export const hasPids = (u: unknown): u is { readonly pids: ReadonlyArray<number> } =>
  typeof u === "object" && u !== null && "pids" in u && Array.isArray(u.pids)

/**
 * Runs `script` with `args` (and `nodeFlags` before the loader); resolves with its last stdout line when it
 * exits 0 and `isResult` accepts it. Killed after `limitMs` when given. `label` names it in the error.
 */
export const runJsonChild = <A extends { readonly pids: ReadonlyArray<number> }>(options: {
  readonly label: string
  readonly script: string
  readonly args: ReadonlyArray<string>
  readonly nodeFlags?: ReadonlyArray<string>
  readonly limitMs?: number
  readonly isResult: (u: unknown) => u is A
}): Promise<A> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...(options.nodeFlags ?? []), "--import", "tsx", options.script, ...options.args],
      { cwd: repository, stdio: ["ignore", "pipe", "pipe"] }
    )
    const watchdog = options.limitMs === undefined
      ? undefined
      : setTimeout(() => child.kill("SIGKILL"), options.limitMs)
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", (error) => {
      clearTimeout(watchdog)
      reject(error)
    })
    child.on("exit", (code, signal) => {
      clearTimeout(watchdog)
      try {
        const parsed: unknown = JSON.parse(stdout.trim().split("\n").pop() ?? "")
        if (code === 0 && options.isResult(parsed)) {
          Processes.track(parsed.pids)
          return resolve(parsed)
        }
      } catch {
        // Reported below.
      }
      reject(new Error(`the ${options.label} run exited with ${code ?? signal}: ${stderr.slice(-2000)}`))
    })
  })
