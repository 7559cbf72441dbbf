import { NodeContext } from "@effect/platform-node"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { LspService } from "@lsp-seam/lsp"
import { Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import { fileURLToPath } from "node:url"
import * as LspStdio from "../src/LspStdio.js"
import type * as StdioConfig from "../src/StdioConfig.js"
import * as StdioStatus from "../src/StdioStatus.js"
import {
  assertNothingSurvives,
  everyStartedPid,
  makeRecordFile,
  makeWorkspace,
  query,
  startedPids
} from "./support/fakeHost.js"
import { waitFor } from "./support/settle.js"

// Real processes that hold a known amount of memory, measured from /proc: the budget's measurement and
// eviction with nothing faked. Linux only (elsewhere the budget is not enforced, which memoryBudget.test.ts
// shows).

const MiB = 1024 * 1024
const hog = fileURLToPath(new URL("fixtures/memory-hog.mjs", import.meta.url))
const linux = NodeFs.existsSync("/proc/self/status")

const hogConfig = (
  recordFile: string,
  memory: { readonly mb: number; readonly childMb?: number },
  maxMemory: string
) => ({
  maxMemory,
  servers: {
    hog: {
      command: process.execPath,
      args: [hog],
      extensionToLanguage: { fake: "fake" },
      env: { FAKE_LSP: JSON.stringify({ record: recordFile }), MEMORY_HOG: JSON.stringify(memory) },
      shutdownTimeoutMs: 1_000,
      killGraceMs: 300
    }
  }
})

const build = (config: StdioConfig.StdioConfig.Encoded) =>
  Layer.build(
    LspStdio.layer(config).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer))
  )

/** The resident memory of one process alone, from /proc. */
const ownRss = (pid: number): number => {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(NodeFs.readFileSync(`/proc/${pid}/status`, "latin1"))
  return match === null ? 0 : Number(match[1]) * 1024
}

describe.runIf(linux)("the memory budget with real processes (/proc)", () => {
  afterAll(assertNothingSurvives)

  it.scopedLive("a server's RSS counts its whole process tree, a child in a session of its own included", () =>
    Effect.gen(function*() {
      const recordFile = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const context = yield* build(hogConfig(recordFile, { mb: 20, childMb: 80 }, "16GiB"))
      yield* Effect.provide(query(workspace, "hover"), context)
      const view = yield* Effect.provide(StdioStatus.StdioStatus, context)
      // The child allocates after it starts: wait until its memory shows beside the server's own.
      const [server] = yield* waitFor(
        Effect.orDie(view.status),
        (all) => all[0]?.pid != null && (all[0].rssBytes ?? 0) - ownRss(all[0].pid) >= 80 * MiB,
        "the tree never showed the detached child's 80 MiB"
      )
      assert.deepStrictEqual(startedPids(recordFile), [server!.pid])
      assert.isAtLeast(ownRss(server!.pid!), 20 * MiB, "the server's own 20 MiB")
      const memory = yield* view.memory!
      assert.strictEqual(memory.enforced, true)
      assert.strictEqual(memory.totalBytes !== null && memory.totalBytes >= 100 * MiB, true)
      assert.strictEqual(memory.budgetBytes, 16 * 1024 * MiB)
    }))

  it.scopedLive(
    "three servers under a budget that fits two: the least recently used goes, every query answers",
    () =>
      Effect.gen(function*() {
        const recordFile = yield* makeRecordFile
        const [a, b, c] = [yield* makeWorkspace(), yield* makeWorkspace(), yield* makeWorkspace()]
        // Each server is Node (~40 MiB) holding 100 MiB more: two fit in 350 MiB, three do not.
        const context = yield* build(hogConfig(recordFile, { mb: 100 }, "350MiB"))
        const view = yield* Effect.provide(StdioStatus.StdioStatus, context)
        for (const workspace of [a, b, c]) {
          assert.strictEqual((yield* Effect.provide(query(workspace, "hover"), context)).kind, "hover")
        }
        // The budget's sampler (every 5 s) finds three over the budget and stops the least recently used, a.
        const memory = yield* waitFor(
          view.memory!,
          (status) => status.evictions >= 1,
          "no server was stopped over the budget"
        )
        assert.strictEqual(memory.recentEvictions[0]?.workspace, a)
        assert.isAbove(memory.recentEvictions[0]!.totalBytes, 350 * MiB)
        const running = yield* Effect.orDie(view.status)
        assert.deepStrictEqual(running.map((server) => server.workspace).sort(), [b, c].sort())
        const total = running.reduce((sum, server) => sum + (server.rssBytes ?? 0), 0)
        assert.isAtMost(total, 350 * MiB, "two servers fit the budget")
        // a's next query starts it again (and the next decision stops b, now the least recently used).
        assert.strictEqual((yield* Effect.provide(query(a, "hover"), context)).kind, "hover")
        assert.strictEqual(startedPids(recordFile).length, 4)
      }),
    60_000
  )
})

// Every server these tests started is checked for leftovers by `assertNothingSurvives`.
void everyStartedPid
