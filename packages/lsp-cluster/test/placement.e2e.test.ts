import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { command, fakeWorkspace, front, query, runner, type Workspace } from "./cliSupport.js"
import { freePort, postgresServer } from "./support.js"

// Where a cluster's workspaces live, seen from its front: `lsp-seam doctor --remote <serve --cluster>` lists
// the runners, their health and the workspaces each holds, over SQLite and over PostgreSQL, and asking it starts
// no workspace. Compiled CLI processes throughout (the CLI's global setup builds them).

/** `doctor --remote <front>`: its report, which must succeed. */
const doctor = (workspace: Workspace) =>
  Effect.map(command(workspace, ["doctor", "--remote", workspace.socket]), (result) => {
    assert.strictEqual(result.code, 0, result.stderr)
    return result.stdout
  })

/** The report's runners: address, health words and the workspaces listed under each. */
const runnersOf = (report: string) => {
  const runners: Array<{ address: string; state: string; workspaces: Array<string> }> = []
  for (const line of report.split("\n")) {
    const runner = /^ {2}runner (\S+): (.+), [0-9]+ workspaces?$/.exec(line)
    if (runner !== null) runners.push({ address: runner[1]!, state: runner[2]!, workspaces: [] })
    else if (/^ {4}\//.test(line)) runners.at(-1)!.workspaces.push(line.trim())
  }
  return runners
}

const scenario = (storage: (workspace: Workspace) => Effect.Effect<string, never, Scope.Scope>) =>
  Effect.gen(function*() {
    const workspace = yield* fakeWorkspace
    const url = yield* storage(workspace)
    const ports = [yield* freePort, yield* freePort]
    for (const port of ports) yield* runner(workspace, url, port)
    yield* front(workspace, url)
    // Before any query: both runners, answering, holding nothing — and asking twice starts nothing either.
    for (let i = 0; i < 2; i++) {
      const report = yield* doctor(workspace)
      assert.notInclude(report, "no status view")
      assert.match(report, /^ {2}cluster at \S+: 2 runners$/m)
      assert.deepStrictEqual(
        runnersOf(report).map((r) => [r.address, r.state, r.workspaces]).sort(),
        ports.map((port) => [`127.0.0.1:${port}`, "healthy, answering", []]).sort()
      )
    }
    // Two workspaces asked: each is listed under exactly one runner.
    const roots = ["one", "two"].map((name) => {
      const dir = NodePath.join(workspace.dir, name)
      NodeFs.mkdirSync(dir)
      NodeFs.writeFileSync(NodePath.join(dir, "a.fake"), "hello\n")
      return dir
    })
    for (const root of roots) {
      const answer = yield* query(workspace, ["--cwd", root])
      assert.deepStrictEqual([answer.code, answer.stdout], [0, "fake hover\n"], answer.stderr)
    }
    const placed = runnersOf(yield* doctor(workspace))
    assert.strictEqual(placed.length, 2)
    assert.deepStrictEqual(placed.flatMap((r) => r.workspaces).sort(), [...roots].sort())
  })

describe("doctor --remote <cluster front>", () => {
  it.scopedLive(
    "SQLite: lists the runners, their health and the workspaces each holds, starting none",
    () => scenario((workspace) => Effect.succeed(`sqlite:${NodePath.join(workspace.dir, "cluster.db")}`)),
    180_000
  )

  it.scopedLive(
    "PostgreSQL: the same, though PostgreSQL keeps the shards' owners only as advisory locks",
    () => scenario(() => Effect.map(postgresServer, (server) => server.url)),
    180_000
  )
})
