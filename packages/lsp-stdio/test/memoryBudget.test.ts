import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { LspService } from "@lsp-seam/lsp"
import { type Context, Deferred, Effect, Exit, Fiber, Layer, Option, Ref, Scope, TestClock } from "effect"
import * as ProcessMemory from "../src/internal/process/processMemory.js"
import { DEFAULT_SAMPLE_EVERY_MS } from "../src/internal/servers/memoryBudget.js"
import * as LspStdio from "../src/LspStdio.js"
import * as StdioStatus from "../src/StdioStatus.js"
import * as Testing from "../src/testing.js"
import { makeWorkspace } from "./support/fakeHost.js"
import { settle, waitFor } from "./support/settle.js"

// The real host and pool on the in-memory executor, with the servers' memory measured by a fake whose numbers
// the test sets per workspace: only TestClock moves time.

const MiB = 1024 * 1024

/** Fake servers' resident memory, by the workspace each runs in (its working directory). */
interface Resident {
  /** Bytes by workspace; a workspace without an entry holds 0. */
  readonly byWorkspace: Map<string, number>
  /** The workspace of each live fake process, by pid. */
  readonly workspaceOf: Map<number, string>
}

const fakeMemory = (resident: Resident): ProcessMemory.ProcessMemoryShape => ({
  trees: (pids) =>
    Effect.sync(() =>
      Option.some(
        new Map(pids.map((pid) => {
          const workspace = resident.workspaceOf.get(pid)
          return [pid, workspace === undefined ? 0 : resident.byWorkspace.get(workspace) ?? 0]
        }))
      )
    ),
  machineBytes: Effect.succeed(Option.some(16 * 1024 * MiB))
})

interface Observed {
  readonly starts: Ref.Ref<ReadonlyArray<string>>
  readonly exits: Ref.Ref<ReadonlyArray<string>>
}

const buildHost = (
  resident: Resident | undefined,
  maxMemory: string | number,
  hover: (workspace: string) => Effect.Effect<void> = () => Effect.void
) =>
  Effect.gen(function*() {
    const observed: Observed = {
      starts: yield* Ref.make<ReadonlyArray<string>>([]),
      exits: yield* Ref.make<ReadonlyArray<string>>([])
    }
    const scope = yield* Scope.make()
    const program: Testing.MemoryProgram = (process) => {
      const workspace = Option.getOrElse(process.command.cwd, () => "")
      return Effect.gen(function*() {
        resident?.workspaceOf.set(process.pid, workspace)
        yield* Ref.update(observed.starts, (all) => [...all, workspace])
        return yield* Testing.fakeLanguageServer({
          handlers: {
            "textDocument/hover": () => Effect.as(hover(workspace), Testing.result(null))
          }
        })(process)
      }).pipe(
        Effect.ensuring(Effect.suspend(() => {
          resident?.workspaceOf.delete(process.pid)
          return Ref.update(observed.exits, (all) => [...all, workspace])
        }))
      )
    }
    const config = {
      maxMemory,
      servers: {
        mem: {
          command: globalThis.process.execPath,
          args: ["fake"],
          extensionToLanguage: { fake: "fake" },
          shutdownTimeoutMs: 1_000,
          killGraceMs: 500
        }
      }
    }
    const measured = resident === undefined
      ? Layer.empty
      : Layer.succeed(ProcessMemory.ProcessMemory, fakeMemory(resident))
    const context = yield* Layer.buildWithScope(
      LspStdio.layer(config, { local: false }).pipe(
        Layer.provideMerge(LspService.layer),
        Layer.provide(Layer.mergeAll(
          Testing.layerMemoryExecutor(() => program),
          NodeFileSystem.layer,
          NodePath.layer,
          measured
        ))
      ),
      scope
    )
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    return { context, observed }
  })

type HostContext = Context.Context<LspService.LspService | StdioStatus.StdioStatus>

const hover = (context: HostContext, workspace: string) =>
  Effect.provide(
    LspService.query({
      operation: "hover",
      filePath: "main.fake",
      position: { line: 0, character: 0 },
      workspaceRoot: workspace
    }),
    context
  )

const statusOf = (context: HostContext) =>
  Effect.flatMap(Effect.provide(StdioStatus.StdioStatus, context), (v) => v.status)
const memoryOf = (context: HostContext) =>
  Effect.flatMap(Effect.provide(StdioStatus.StdioStatus, context), (view) => view.memory!)

const runningWorkspaces = (context: HostContext) =>
  Effect.map(statusOf(context), (all) => all.map((server) => server.workspace).sort())

/** One sampling period of the budget, then whatever it set off (a stop in the background) has run. */
const nextSample = Effect.zipRight(TestClock.adjust(DEFAULT_SAMPLE_EVERY_MS), settle)

describe("the memory budget (maxMemory) under TestClock", () => {
  it.scoped("over budget, the least recently used idle server is stopped first, and only as many as needed", () =>
    Effect.gen(function*() {
      const [a, b, c] = [yield* makeWorkspace(), yield* makeWorkspace(), yield* makeWorkspace()]
      const resident: Resident = {
        byWorkspace: new Map([[a, 40 * MiB], [b, 40 * MiB], [c, 40 * MiB]]),
        workspaceOf: new Map()
      }
      const { context, observed } = yield* buildHost(resident, "100MiB")
      yield* hover(context, a)
      yield* TestClock.adjust("1 second")
      yield* hover(context, b)
      yield* TestClock.adjust("1 second")
      // Before c's start the two servers fit (80 MiB), so nothing is stopped; after it, 120 MiB do not.
      yield* hover(context, c)
      assert.deepStrictEqual(yield* runningWorkspaces(context), [a, b, c].sort())
      yield* TestClock.adjust("1 second")
      yield* hover(context, a) // b is now the least recently used
      yield* nextSample
      yield* waitFor(Ref.get(observed.exits), (exits) => exits.length === 1)
      assert.deepStrictEqual(yield* Ref.get(observed.exits), [b], "b, the least recently used, went first")
      assert.deepStrictEqual(yield* runningWorkspaces(context), [a, c].sort(), "one stop brought it under budget")
      const memory = yield* memoryOf(context)
      assert.strictEqual(memory.enforced, true)
      assert.strictEqual(memory.budgetBytes, 100 * MiB)
      assert.strictEqual(memory.totalBytes, 80 * MiB)
      assert.strictEqual(memory.evictions, 1)
      assert.deepStrictEqual(
        memory.recentEvictions.map(({ rssBytes, totalBytes, workspace }) => ({ rssBytes, totalBytes, workspace })),
        [{ rssBytes: 40 * MiB, totalBytes: 120 * MiB, workspace: b }]
      )
      // Under budget now: later samples stop nothing more.
      yield* nextSample
      yield* nextSample
      assert.strictEqual((yield* Ref.get(observed.exits)).length, 1)
      // A query that needs the stopped server starts it again and answers.
      assert.deepStrictEqual(yield* hover(context, b), { kind: "hover", hover: null })
      assert.deepStrictEqual(yield* Ref.get(observed.starts), [a, b, c, b])
    }))

  it.scoped("a server that is answering is never stopped, even when it is the least recently used", () =>
    Effect.gen(function*() {
      const [a, b] = [yield* makeWorkspace(), yield* makeWorkspace()]
      const resident: Resident = { byWorkspace: new Map([[a, 60 * MiB], [b, 10 * MiB]]), workspaceOf: new Map() }
      const asked = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      let first = true
      const slowA = (workspace: string) => {
        if (workspace !== a || !first) return Effect.void
        first = false
        return Effect.zipRight(Deferred.succeed(asked, undefined), Deferred.await(release))
      }
      const { context, observed } = yield* buildHost(resident, "50MiB", slowA)
      const busy = yield* Effect.fork(hover(context, a))
      yield* Deferred.await(asked)
      yield* TestClock.adjust("1 second")
      // b starts: a (60 MiB, busy) is alone over the budget already, and nothing idle can be stopped for it.
      yield* hover(context, b)
      yield* nextSample
      yield* waitFor(Ref.get(observed.exits), (exits) => exits.length === 1)
      assert.deepStrictEqual(yield* Ref.get(observed.exits), [b], "the idle one went; the answering one stayed")
      yield* nextSample
      yield* nextSample
      assert.deepStrictEqual(yield* Ref.get(observed.exits), [b], "still over budget, but a is answering")
      const [running] = yield* statusOf(context)
      assert.strictEqual(running?.state, "busy")
      assert.strictEqual(running?.rssBytes, 60 * MiB)
      // Its answer arrives; once idle and alone over the budget, it is stopped at the next sample.
      yield* Deferred.succeed(release, undefined)
      assert.deepStrictEqual(yield* Fiber.join(busy), { kind: "hover", hover: null })
      yield* nextSample
      yield* waitFor(Ref.get(observed.exits), (exits) => exits.length === 2)
      assert.deepStrictEqual(yield* Ref.get(observed.exits), [b, a])
      assert.strictEqual((yield* memoryOf(context)).evictions, 2)
    }))

  it.scoped("before a start, idle servers over the budget are stopped first", () =>
    Effect.gen(function*() {
      const [a, b] = [yield* makeWorkspace(), yield* makeWorkspace()]
      const resident: Resident = { byWorkspace: new Map([[a, 80 * MiB], [b, 10 * MiB]]), workspaceOf: new Map() }
      const { context, observed } = yield* buildHost(resident, "50MiB")
      yield* hover(context, a)
      // No sample has run yet (the clock has not moved): the start itself decides.
      yield* hover(context, b)
      yield* waitFor(Ref.get(observed.exits), (exits) => exits.length === 1)
      assert.deepStrictEqual(yield* Ref.get(observed.exits), [a])
      assert.deepStrictEqual(yield* runningWorkspaces(context), [b])
    }))

  it.scoped("where memory cannot be measured, the budget is reported but not enforced", () =>
    Effect.gen(function*() {
      const [a, b] = [yield* makeWorkspace(), yield* makeWorkspace()]
      // The in-memory executor's own world: no /proc for its processes.
      const { context, observed } = yield* buildHost(undefined, "1MiB")
      yield* hover(context, a)
      yield* hover(context, b)
      yield* nextSample
      assert.deepStrictEqual(yield* Ref.get(observed.exits), [])
      const memory = yield* memoryOf(context)
      assert.strictEqual(memory.enforced, false)
      assert.strictEqual(memory.totalBytes, null)
      assert.strictEqual(memory.budgetBytes, 1024 * 1024)
      assert.isAbove(memory.hostBytes, 0)
      assert.deepStrictEqual((yield* statusOf(context)).map((server) => server.rssBytes), [null, null])
    }))
})
