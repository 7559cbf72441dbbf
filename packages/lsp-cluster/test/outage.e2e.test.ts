import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as NodePath from "node:path"
import { fakeWorkspace, front, query, runner, type Started, type Workspace } from "./cliSupport.js"
import { freePort, postgresServer, waitFor } from "./support.js"

// A cluster that cannot answer, said at once: the compiled `lsp-seam serve --cluster` in front of compiled
// `lsp-seam runner`s (the CLI's global setup builds them), over SQLite and over a PostgreSQL of the test's own.
// With no runner registered, none answering (SIGSTOPped) or the storage stopped, `query --remote` fails within
// the bound with LSP_REMOTE_UNAVAILABLE naming the cause, and serve logs it; once the runner or the storage is
// back, queries are answered again by the same serve. Live clock; every wait is on an event, bounded.

/** The slack over a bound for a command's own start and the client's look interval (1 s) under load. */
const slackMs = 5_000

/** Asks until the front answers (a cluster coming back takes a few looks), at most `timeoutMs`. */
const answered = (workspace: Workspace, timeoutMs: number) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const result = yield* query(workspace)
      if (result.code === 0) return result
      if (Date.now() > deadline) return yield* Effect.die(new Error(`never answered again: ${result.stderr}`))
    }
  })

type Result = Effect.Effect.Success<ReturnType<typeof query>>

/** The query failed with LSP_REMOTE_UNAVAILABLE naming `cause`, within `boundMs` (plus the slack). */
const assertUnavailable = (result: Result, cause: RegExp, boundMs: number) => {
  assert.strictEqual(result.code, 1, result.stderr)
  assert.match(result.stderr, /^error\[LSP_REMOTE_UNAVAILABLE\]: The lsp-seam cluster cannot answer/)
  assert.match(result.stderr, cause, result.stderr)
  assert.isAtMost(result.ms, boundMs + slackMs, `failed after ${result.ms} ms`)
}

const failsWith = (workspace: Workspace, cause: RegExp, boundMs: number) =>
  Effect.map(query(workspace), (result) => assertUnavailable(result, cause, boundMs))

const waitForLog = (started: Started, line: RegExp, timeoutMs = 20_000) =>
  waitFor(`serve to log ${line}`, () => line.test(started.stderr()), timeoutMs)

describe("a cluster outage, said at once", () => {
  it.scopedLive(
    "SQLite: no runner registered, then none answering (SIGSTOP), each failing within --cluster-unavailable-after",
    () =>
      Effect.gen(function*() {
        const workspace = yield* fakeWorkspace
        const storage = `sqlite:${NodePath.join(workspace.dir, "cluster.db")}`
        const served = yield* front(workspace, storage, ["--cluster-unavailable-after", "4s"])
        yield* waitForLog(served, /the cluster cannot answer: no runner registered in sqlite:/)
        yield* failsWith(workspace, /no runner registered in sqlite:\S+cluster\.db, for 4s/, 4_000)
        // A runner joins: the same serve answers.
        const started = yield* runner(workspace, storage, yield* freePort)
        const answer = yield* answered(workspace, 30_000)
        assert.strictEqual(answer.stdout, "fake hover\n")
        yield* waitForLog(served, /the cluster answers \(runners: 127\.0\.0\.1:[0-9]+\)/)
        // Frozen, it answers nothing (and, its registration no longer refreshed, the storage soon drops it).
        started.child.kill("SIGSTOP")
        yield* waitForLog(served, /the cluster cannot answer: no runner answering \(registered: 127\.0\.0\.1:[0-9]+\)/)
        yield* failsWith(workspace, /no runner (answering|registered)/, 4_000)
        started.child.kill("SIGCONT")
        assert.strictEqual((yield* answered(workspace, 30_000)).stdout, "fake hover\n")
      }),
    240_000
  )

  it.scopedLive(
    "PostgreSQL: the storage stopped fails within the default bound naming its address; started again, answers",
    () =>
      Effect.gen(function*() {
        const workspace = yield* fakeWorkspace
        const postgres = yield* postgresServer
        yield* runner(workspace, postgres.url, yield* freePort)
        const served = yield* front(workspace, postgres.url)
        assert.strictEqual((yield* answered(workspace, 30_000)).stdout, "fake hover\n")
        yield* postgres.stop
        const address = postgres.url.replace(/[.]/g, "\\.")
        yield* waitForLog(served, new RegExp(`the cluster cannot answer: storage unreachable at ${address}`))
        // A runner still holding its shards may answer a moment longer; then it drops them, and a query fails
        // within the default bound (10 s, within the 15 s), never hangs.
        const deadline = Date.now() + 60_000
        let result = yield* query(workspace)
        while (result.code === 0) {
          if (Date.now() > deadline) return yield* Effect.die(new Error("the cluster answered without storage"))
          result = yield* query(workspace)
        }
        assertUnavailable(result, new RegExp(`storage unreachable at ${address} \\(.+\\), for 10s`), 10_000)
        yield* postgres.start
        assert.strictEqual((yield* answered(workspace, 60_000)).stdout, "fake hover\n")
        yield* waitForLog(served, /the cluster answers/)
      }),
    240_000
  )

  it.scopedLive(
    "one budget per command: a front that never answers costs the command one budget (60 s), not two",
    () =>
      Effect.gen(function*() {
        const workspace = yield* fakeWorkspace
        const storage = `sqlite:${NodePath.join(workspace.dir, "cluster.db")}`
        const started = yield* runner(workspace, storage, yield* freePort)
        // The front waits out any outage for 10 minutes: the command's budget must end the query first.
        yield* front(workspace, storage, ["--cluster-unavailable-after", "10m"])
        assert.strictEqual((yield* answered(workspace, 30_000)).stdout, "fake hover\n")
        started.child.kill("SIGSTOP")
        const result = yield* query(workspace)
        started.child.kill("SIGCONT")
        assert.strictEqual(result.code, 1, result.stderr)
        assert.match(result.stderr, /^error\[LSP_TIMEOUT\]: The language server did not answer within 60000 ms/)
        // The edge spends the budget and says so; the full client is not given a second one (it was: 120 s).
        assert.isAtLeast(result.ms, 59_000)
        assert.isAtMost(result.ms, 60_000 + slackMs, `answered after ${result.ms} ms`)
      }),
    240_000
  )
})
