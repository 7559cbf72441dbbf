import { assert, describe, it } from "@effect/vitest"
import { LspClusterClient, LspClusterStorage } from "@lsp-seam/lsp-cluster"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { freePort, startRunner, tempDirectory, workspaces } from "./support.js"

// The SQLite store lists the addresses every runner and client dials: real runner processes create it private and
// refuse one that other users may write.

const modeOf = (path: string) => NodeFs.statSync(path).mode & 0o777

/** Starts a runner that must refuse its storage: its output. */
const refusedRunner = (options: Parameters<typeof startRunner>[0]) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(startRunner(options))
    assert.isTrue(Exit.isFailure(exit), "the runner joined")
    return Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""
  })

describe("the SQLite store's permissions", () => {
  it.scopedLive("a new store and its side files are created 0600", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory("lsp-cluster-store-")
      const root = NodePath.join(directory, "root")
      workspaces(root, 1)
      const store = NodePath.join(directory, "cluster.db")
      yield* startRunner({ storage: `sqlite:${store}`, port: yield* freePort, root })
      for (const path of [store, `${store}-wal`, `${store}-shm`]) {
        assert.strictEqual(modeOf(path).toString(8), "600", path)
      }
    }), 60_000)

  it.scopedLive(
    "a store or directory others may write is refused with LSP_INVALID_CONFIG unless accepted",
    () =>
      Effect.gen(function*() {
        const directory = yield* tempDirectory("lsp-cluster-store-")
        const root = NodePath.join(directory, "root")
        workspaces(root, 1)
        const store = NodePath.join(directory, "cluster.db")
        NodeFs.writeFileSync(store, "")
        NodeFs.chmodSync(store, 0o666)
        const why = yield* refusedRunner({ storage: `sqlite:${store}`, port: yield* freePort, root })
        assert.include(why, "LSP_INVALID_CONFIG")
        assert.include(why, `${store} is world-writable (mode 666)`)
        assert.include(why, "--allow-writable-storage")
        // A client is refused the same way, before it reads a runner address from the store.
        const client = yield* Effect.flip(Layer.build(LspClusterClient.layer({
          storage: yield* LspClusterStorage.decode(`sqlite:${store}`)
        })))
        assert.strictEqual(client.code, "LSP_INVALID_CONFIG")
        // Accepted explicitly, the runner joins and says what it accepted.
        const accepted = yield* startRunner({
          storage: `sqlite:${store}`,
          port: yield* freePort,
          root,
          extra: ["--allow-writable-storage"]
        })
        assert.include(accepted.output(), "WARNING: --allow-writable-storage")
        yield* accepted.kill
        // A private store in a directory others may write is refused too: they could plant its side files.
        const shared = NodePath.join(directory, "shared")
        NodeFs.mkdirSync(shared)
        NodeFs.chmodSync(shared, 0o777)
        const inShared = yield* refusedRunner({
          storage: `sqlite:${NodePath.join(shared, "cluster.db")}`,
          port: yield* freePort,
          root
        })
        assert.include(inShared, `the directory ${shared} is world-writable (mode 777)`)
        assert.isFalse(NodeFs.existsSync(NodePath.join(shared, "cluster.db")), "the store was created")
      }),
    90_000
  )
})
