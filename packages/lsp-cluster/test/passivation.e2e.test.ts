import { assert, describe, it } from "@effect/vitest"
import { LspClusterClient, LspClusterStorage } from "@lsp-seam/lsp-cluster"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodePath from "node:path"
import { alive, freePort, startRunner, tempDirectory, waitFor, workspaces } from "./support.js"

// Idle passivation is idle eviction: an entity that gets no message for the runner's idle time is passivated by
// the cluster, its scope closes and its stdio host stops the language servers; the next query activates it
// again. A real runner process with a 2 s idle time.
describe("an idle workspace entity", () => {
  it.scopedLive(
    "is passivated: its language servers stop, and the next query starts them again",
    () =>
      Effect.gen(function*() {
        const directory = yield* tempDirectory("lsp-cluster-idle-")
        const root = NodePath.join(directory, "root")
        const [workspace] = workspaces(root, 1)
        const storageText = `sqlite:${NodePath.join(directory, "cluster.db")}`
        const runner = yield* startRunner({ storage: storageText, port: yield* freePort, root, idleSeconds: 2 })
        const storage = yield* LspClusterStorage.decode(storageText)
        const client = Context.get(
          yield* Layer.build(LspClusterClient.layer({ storage })),
          LspClusterClient.LspClusterClient
        )
        const hover = {
          operation: "hover",
          filePath: "main.ts",
          position: { line: 2, character: 8 },
          workspaceRoot: workspace!
        } as const
        const first = yield* client.query(hover)
        assert.strictEqual(first.kind, "hover")
        const servers = yield* client.status(workspace!)
        const pids = servers.flatMap((server) => (server.pid === null ? [] : [server.pid]))
        assert.isNotEmpty(pids)
        assert.isTrue(pids.every(alive))
        // Nothing is sent to the entity now (a Status call would count as activity).
        const quietSince = Date.now()
        yield* waitFor("the idle entity's servers to stop", () => !pids.some(alive), 30_000)
        console.log(`passivated: servers ${pids.join(", ")} gone ${Date.now() - quietSince} ms after the last message`)
        assert.isTrue(runner.child.exitCode === null, "the runner itself runs on")
        const again = yield* client.query(hover)
        assert.deepStrictEqual(again, first)
        const restarted = (yield* client.status(workspace!)).flatMap((server) =>
          server.pid === null ? [] : [server.pid]
        )
        assert.isNotEmpty(restarted)
        assert.isTrue(restarted.every((pid) => !pids.includes(pid)), "fresh servers")
      }),
    120_000
  )
})
