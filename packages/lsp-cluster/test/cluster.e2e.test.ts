import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { LspDeadline, LspError, type LspQuery, LspService } from "@lsp-seam/lsp"
import { LspClusterClient, LspClusterStorage } from "@lsp-seam/lsp-cluster"
import { LspStdio } from "@lsp-seam/lsp-stdio"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as NodePath from "node:path"
import { config } from "./fixtures/typescriptConfig.js"
import {
  alive,
  descendants,
  freePort,
  type Runner,
  startPostgres,
  startRunner,
  tempDirectory,
  waitFor,
  workspaces
} from "./support.js"

// Three runner processes over one storage, six workspaces of real TypeScript, typescript-language-server from
// node_modules: placement over the runners, every operation equal to a local host's answer, and one runner
// SIGKILLed while queries run. Live clock throughout; every wait is on an event, bounded.

/** Each query's budget under load, as the `lsp` tool would give it. */
const budgetMs = 30_000
/** How long the dead runner's workspaces may take to answer again (measured figures are printed). */
const failoverBoundMs = 60_000
/** How long the dead runner's language servers may outlive it: the watchdog's grace, rounded up, and margin. */
const orphanBoundMs = 15_000

/** Every operation, at positions of the fixture (zero-based). */
const operations = (workspaceRoot: string): ReadonlyArray<LspQuery.LspQueryRequest> => [
  { operation: "hover", filePath: "main.ts", position: { line: 2, character: 8 }, workspaceRoot },
  { operation: "goToDefinition", filePath: "main.ts", position: { line: 2, character: 36 }, workspaceRoot },
  { operation: "findReferences", filePath: "shape.ts", position: { line: 1, character: 18 }, workspaceRoot },
  { operation: "goToImplementation", filePath: "shape.ts", position: { line: 2, character: 3 }, workspaceRoot },
  { operation: "goToTypeDefinition", filePath: "main.ts", position: { line: 2, character: 8 }, workspaceRoot },
  { operation: "incomingCalls", filePath: "shape.ts", position: { line: 9, character: 3 }, workspaceRoot },
  { operation: "outgoingCalls", filePath: "main.ts", position: { line: 4, character: 14 }, workspaceRoot },
  { operation: "documentSymbol", filePath: "shape.ts", workspaceRoot },
  { operation: "workspaceSymbol", query: "Circle", workspaceRoot },
  { operation: "diagnostics", filePath: "main.ts", workspaceRoot },
  {
    operation: "renamePreview",
    filePath: "shape.ts",
    position: { line: 6, character: 14 },
    newName: "Round",
    workspaceRoot
  }
]

/** An answer or a coded error, as plain JSON, to compare. */
const outcome = (exit: Exit.Exit<unknown, LspError.LspError>) =>
  Exit.match(exit, {
    onSuccess: (value) => JSON.stringify({ ok: value }),
    onFailure: (cause) => JSON.stringify({ cause: String(cause) })
  })

const localHost = LspStdio.layer(config).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer))

interface Record {
  readonly workspace: string
  readonly start: number
  readonly end: number
  readonly code: string | undefined
}

const retriable = new Set(["LSP_REMOTE_UNAVAILABLE", "LSP_TIMEOUT"])

const scenario = (storageText: string, root: string) =>
  Effect.gen(function*() {
    const roots = workspaces(root, 6)
    const runners: Array<Runner> = []
    for (let i = 0; i < 3; i++) {
      runners.push(yield* startRunner({ storage: storageText, port: yield* freePort, root }))
    }
    const storage = yield* LspClusterStorage.decode(storageText)
    const cluster = yield* Layer.build(LspClusterClient.layer({ storage }))
    const client = Context.get(cluster, LspClusterClient.LspClusterClient)

    // Placement: the runners share 300 shards; each workspace's entity lives where its shard is. Until all
    // three runners are counted in, shards move, so wait until two greetings in a row agree.
    const placement = () =>
      Effect.forEach(roots, (workspace) => Effect.map(client.hello(workspace), (hello) => hello.fingerprint))
    let placed = yield* placement()
    const placedBy = Date.now() + 60_000
    for (;;) {
      if (Date.now() > placedBy) return yield* Effect.die(new Error(`placement never settled: ${placed.join()}`))
      const again = yield* placement()
      if (again.join() === placed.join() && new Set(again).size >= 2) break
      placed = again
      yield* Effect.sleep("200 millis")
    }
    const byRunner = new Map<string, Array<string>>()
    placed.forEach((address, i) => byRunner.set(address, [...(byRunner.get(address) ?? []), roots[i]!]))
    console.log(
      `placement (${storage._tag}):\n` +
        [...byRunner].map(([address, list]) => `  ${address}: ${list.map((w) => NodePath.basename(w)).join(", ")}`)
          .join("\n")
    )
    assert.isAtLeast(byRunner.size, 2, "six workspaces over at least two runners")

    // Every operation through the cluster equals the local host's answer, workspace by workspace.
    const local = yield* Layer.build(localHost)
    const localService = Context.get(local, LspService.LspService)
    yield* Effect.forEach(roots, (workspace) =>
      Effect.forEach(operations(workspace), (request) =>
        Effect.gen(function*() {
          const remote = yield* Effect.exit(client.query(request))
          const here = yield* Effect.exit(localService.query(request))
          assert.strictEqual(outcome(remote), outcome(here), `${request.operation} in ${workspace}`)
        })), { concurrency: 3 })

    // Under load: one agent per workspace asks hovers in a loop, each within its budget; one runner is killed.
    const [victimAddress, victimWorkspaces] = [...byRunner].sort((a, b) =>
      b[1].length - a[1].length
    )[0]!
    const victim = runners.find((runner) =>
      runner.address === victimAddress
    )!
    const records: Array<Record> = []
    // What each agent is asking now: the failover must meet queries the dead runner was working on.
    const running = new Map<string, { readonly filePath: string | undefined; readonly start: number }>()
    let stop = false
    const ask = (workspace: string, request: LspQuery.LspQueryRequest) =>
      Effect.gen(function*() {
        const start = Date.now()
        running.set(workspace, { filePath: request.filePath, start })
        const exit = yield* client.query(request).pipe(
          LspDeadline.within(budgetMs),
          Effect.timeoutFail({
            duration: budgetMs,
            onTimeout: () => new LspError.LspTimeoutError({ code: "LSP_TIMEOUT", message: "budget spent" })
          }),
          Effect.exit
        )
        running.delete(workspace)
        records.push({
          workspace,
          start,
          end: Date.now(),
          code: Exit.isSuccess(exit)
            ? undefined
            : exit.cause._tag === "Fail"
            ? exit.cause.error.code
            : `uncoded: ${String(exit.cause)}`
        })
      })
    // Each agent alternates a TypeScript hover and a hover of the fake server that answers after 4 s.
    const agents = yield* Effect.forEach(roots, (workspace) => {
      const [hover] = operations(workspace)
      const slow: LspQuery.LspQueryRequest = {
        operation: "hover",
        filePath: "slow.slow",
        position: { line: 0, character: 0 },
        workspaceRoot: workspace
      }
      return Effect.fork(Effect.whileLoop({
        while: () => !stop,
        body: () => Effect.zipRight(ask(workspace, hover!), ask(workspace, slow)),
        step: () => {}
      }))
    })
    yield* waitFor(
      "every agent to be answered once",
      () => roots.every((w) => records.some((r) => r.workspace === w)),
      60_000
    )
    // Kill while every agent of the victim waits for a slow hover its server is holding.
    const busy = (workspace: string) =>
      Effect.map(
        Effect.orElseSucceed(client.status(workspace), () => []),
        (servers) => servers.some((server) => server.providerId === "slow" && server.state === "busy")
      )
    const killBy = Date.now() + 60_000
    for (;;) {
      if (Date.now() > killBy) {
        const statuses = yield* Effect.forEach(victimWorkspaces, (w) => Effect.either(client.status(w)))
        return yield* Effect.die(
          new Error(
            `the victim's agents never all waited on it: ${JSON.stringify([...running])} ${JSON.stringify(statuses)}`
          )
        )
      }
      const now = Date.now()
      const waiting = victimWorkspaces.every((w) => {
        const current = running.get(w)
        return current?.filePath === "slow.slow" && now - current.start > 300
      })
      if (waiting && (yield* Effect.forEach(victimWorkspaces, busy)).every((b) => b)) break
      yield* Effect.sleep("20 millis")
    }
    const tree = descendants(victim.pid)
    assert.isNotEmpty(tree, "the victim runs language servers")
    const killedAt = Date.now()
    yield* victim.kill
    const orphansGone = yield* Effect.fork(Effect.map(
      waitFor("the dead runner's processes to end", () => tree.every((pid) => !alive(pid)), orphanBoundMs),
      () => Date.now() - killedAt
    ))
    yield* waitFor(
      "the dead runner's workspaces to answer again",
      () =>
        victimWorkspaces.every((w) =>
          records.some((r) => r.workspace === w && r.start > killedAt && r.code === undefined)
        ),
      failoverBoundMs
    )
    const failover = victimWorkspaces.map((w) =>
      Math.min(
        ...records.filter((r) => r.workspace === w && r.start > killedAt && r.code === undefined)
          .map((r) => r.end - killedAt)
      )
    )
    const orphansGoneMs = yield* Fiber.join(orphansGone)
    stop = true
    yield* Fiber.joinAll(agents)

    const failures = records.filter((r) => r.code !== undefined)
    const inFlight = records.filter((r) =>
      r.start < killedAt && r.end > killedAt && victimWorkspaces.includes(r.workspace)
    )
    console.log(
      `SIGKILL of ${victimAddress} (${victimWorkspaces.length} workspaces, ${tree.length} processes) ` +
        `under load (${storage._tag}): ${records.length} queries; on the victim at the kill: ` +
        inFlight.map((r) => `${r.code ?? "answered"} ${r.end - killedAt} ms after the kill`).join(", ") + "; " +
        `${failures.length} failed (${[...new Set(failures.map((r) => r.code))].join(", ") || "none"}); ` +
        `a query sent after the kill first answered (cold) after ${failover.join(", ")} ms; ` +
        `its processes gone ${orphansGoneMs} ms after the kill`
    )
    assert.strictEqual(inFlight.length, victimWorkspaces.length, "every victim agent was cut short")
    for (const record of records) {
      assert.isTrue(record.code === undefined || retriable.has(record.code), `coded and retriable: ${record.code}`)
      assert.isAtMost(record.end - record.start, budgetMs + 2_000, "within the budget")
    }
    // The dead runner's workspaces now live elsewhere.
    for (const workspace of victimWorkspaces) {
      assert.notStrictEqual((yield* client.hello(workspace)).fingerprint, victimAddress)
    }
  })

describe("a cluster of three runners", () => {
  it.scopedLive(
    "SQLite: six workspaces over the runners answer as a local host; a runner SIGKILLed under load loses no " +
      "query outside its budget, its workspaces answer again elsewhere and its servers die with it",
    () =>
      Effect.gen(function*() {
        const directory = yield* tempDirectory("lsp-cluster-")
        yield* scenario(`sqlite:${NodePath.join(directory, "cluster.db")}`, NodePath.join(directory, "root"))
      }),
    240_000
  )

  it.scopedLive(
    "PostgreSQL (a server of the test's own): the same",
    () =>
      Effect.gen(function*() {
        const url = yield* startPostgres
        const directory = yield* tempDirectory("lsp-cluster-")
        yield* scenario(url, NodePath.join(directory, "root"))
      }),
    240_000
  )
})
