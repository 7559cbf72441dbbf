/**
 * Helpers for host tests against the fake server script: a temporary workspace, a config that runs the
 * script, and readers for what the script recorded.
 */
import { NodeContext } from "@effect/platform-node"
import { type LspError, type LspResult, LspService } from "@lsp-seam/lsp"
import { Effect, Layer, Schedule } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import * as ProcessTree from "../../src/internal/process/processTree.js"
import * as LspStdio from "../../src/LspStdio.js"
import type * as StdioConfig from "../../src/StdioConfig.js"

export const fakeServerScript = fileURLToPath(new URL("../fixtures/fake-server.mjs", import.meta.url))

/** A fresh directory with a `main.fake` file (and any extra files), removed when the scope closes. */
export const makeWorkspace = (files: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const root = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "lsp-seam-host-"))
      const all = { "main.fake": "let x = 1\nx\n", ...files }
      for (const [name, text] of Object.entries(all)) {
        NodeFs.mkdirSync(NodePath.dirname(NodePath.join(root, name)), { recursive: true })
        NodeFs.writeFileSync(NodePath.join(root, name), text)
      }
      return NodeFs.realpathSync(root)
    }),
    (root) => Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true }))
  )

export interface Recorded {
  readonly type: "message" | "answer" | "event"
  readonly method?: string
  readonly event?: string
  readonly id?: number | string
  readonly params?: unknown
  readonly result?: unknown
  readonly error?: { readonly code: number; readonly message: string }
  readonly pid?: number
  readonly env?: Record<string, string | null>
  readonly [key: string]: unknown
}

/** The value at `path` inside recorded JSON, or undefined. */
export const dig = (value: unknown, ...path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>(
    (current, key) => typeof current === "object" && current !== null ? Reflect.get(current, key) : undefined,
    value
  )

/** Everything the fake servers wrote to `recordFile`, in order. */
export const readRecord = (recordFile: string): ReadonlyArray<Recorded> =>
  NodeFs.existsSync(recordFile)
    ? NodeFs.readFileSync(recordFile, "utf8").split("\n").filter((line) => line.length > 0).map((line) =>
      JSON.parse(line)
    )
    : []

export const messages = (recordFile: string, method: string) =>
  readRecord(recordFile).filter((r) => r.type === "message" && r.method === method)

export const events = (recordFile: string, event: string) =>
  readRecord(recordFile).filter((r) => r.type === "event" && r.event === event)

/** Pids of every fake server process that started (from their `start` events). */
export const startedPids = (recordFile: string) => events(recordFile, "start").map((r) => r.pid as number)

/** True when no process of any group led by these pids is alive. */
export const allGone = (pids: ReadonlyArray<number>) =>
  Effect.forEach(pids, (pid) => ProcessTree.groupMembers(pid)).pipe(
    Effect.map((groups) => groups.every((members) => members.length === 0))
  )

/** True while `pid` is a running process (a zombie, which only waits to be reaped, does not count). */
export const isRunning = (pid: number): boolean => {
  try {
    const stat = NodeFs.readFileSync(`/proc/${pid}/stat`, "latin1")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return false
  }
}

/** Pids of the watchdog processes `parent` started (their command line names them). */
export const watchdogsOf = (parent: number): ReadonlyArray<number> =>
  NodeFs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).flatMap((entry) => {
    try {
      const stat = NodeFs.readFileSync(`/proc/${entry}/stat`, "latin1")
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      const command = NodeFs.readFileSync(`/proc/${entry}/cmdline`, "latin1")
      return ppid === parent && command.includes("lsp-seam-watchdog") ? [Number(entry)] : []
    } catch {
      return []
    }
  })

/** Waits (polling, bounded) until `predicate` holds on the record. */
export const waitForRecord = (
  recordFile: string,
  predicate: (all: ReadonlyArray<Recorded>) => boolean,
  timeoutMs = 5_000
) =>
  Effect.sync(() => predicate(readRecord(recordFile))).pipe(
    Effect.repeat({ until: (ok) => ok, schedule: Schedule.spaced("10 millis") }),
    Effect.timeoutFail({ duration: timeoutMs, onTimeout: () => new Error("the fake server never recorded that") })
  )

export interface FakeOptions {
  readonly fake?: Record<string, unknown>
  readonly server?: Partial<StdioConfig.ServerConfig.Encoded>
  readonly recordFile: string
}

/** A stdio config with one provider, "fake", serving `.fake` files with the fake server script. */
export const fakeConfig = (options: FakeOptions): StdioConfig.StdioConfig.Encoded => ({
  servers: {
    fake: {
      command: process.execPath,
      args: [fakeServerScript],
      extensionToLanguage: { fake: "fake" },
      env: { FAKE_LSP: JSON.stringify({ record: options.recordFile, ...options.fake }) },
      shutdownTimeoutMs: 1_000,
      killGraceMs: 300,
      // These tests follow the open → request → close lifecycle message by message; the retained default has
      // its own (LspStdio.retained.test.ts, and the retained half of the fault matrix).
      documentSync: "transient",
      ...options.server
    }
  }
})

/** The seam with the host registered for `config`, on the local Node platform. */
export const hostLayer = (
  config: StdioConfig.StdioConfig.Encoded,
  options?: LspStdio.Options
): Layer.Layer<LspService.LspService, LspError.LspError> =>
  LspStdio.layer(config, options).pipe(
    Layer.provideMerge(LspService.layer),
    Layer.provide(NodeContext.layer)
  )

/** Builds the host for `config` in a scope of its own around `use`, so each test owns its servers. */
export const withHost = <A, E>(
  config: StdioConfig.StdioConfig.Encoded,
  use: Effect.Effect<A, E, LspService.LspService>
): Effect.Effect<A, E | LspError.LspError> =>
  Effect.scoped(Effect.flatMap(Layer.build(hostLayer(config)), (context) => Effect.provide(use, context)))

/** The error code of a query, or "success". */
export const codeOf = <A, R>(effect: Effect.Effect<A, LspError.LspError, R>): Effect.Effect<string, never, R> =>
  Effect.match(effect, { onFailure: (e) => e.code, onSuccess: () => "success" })

export const query = (
  workspaceRoot: string,
  operation: "goToDefinition" | "findReferences" | "goToImplementation" | "hover" = "goToDefinition",
  filePath = "main.fake",
  position = { line: 1, character: 0 }
): Effect.Effect<LspResult.LspQueryResult, LspError.LspError, LspService.LspService> =>
  LspService.query({ operation, filePath, position, workspaceRoot })

/** Every fake server pid any test of this file started, collected when its record file is removed. */
export const everyStartedPid: Array<number> = []

/** A fresh record file path inside a temporary directory of its own. */
export const makeRecordFile = Effect.acquireRelease(
  Effect.sync(() => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "lsp-seam-record-"))),
  (dir) =>
    Effect.sync(() => {
      everyStartedPid.push(...startedPids(NodePath.join(dir, "record.jsonl")))
      NodeFs.rmSync(dir, { recursive: true, force: true })
    })
).pipe(Effect.map((dir) => NodePath.join(dir, "record.jsonl")))

/** For `afterAll`: fails unless every process group any test started is gone (waiting up to 5 s). */
export const assertNothingSurvives = () =>
  Effect.runPromise(
    allGone(everyStartedPid).pipe(
      Effect.repeat({ until: (gone) => gone, schedule: Schedule.spaced("20 millis") }),
      Effect.timeoutFail({
        duration: "5 seconds",
        onTimeout: () => new Error(`a fake server outlived its test (pids ${everyStartedPid.join(", ")})`)
      })
    )
  )
