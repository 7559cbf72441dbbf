import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Net from "node:net"
import { fakeWorkspace, front, query, runner, type Workspace } from "./cliSupport.js"
import { freePort, postgresServer, waitFor } from "./support.js"

// Issue 42: through a PostgreSQL that stalls (answers nothing, closes nothing), the cluster's shard-lock
// operations time out one after another on the one connection @effect/cluster reserves for them, and the pg
// driver printed "Calling client.query() when the client is already executing a query is deprecated" (an
// error from pg 9 on). The compiled `lsp-seam runner` and `serve --cluster`, a PostgreSQL of the test's own,
// and a TCP proxy between them that stops forwarding.

interface Proxy {
  readonly port: number
  /** Stops forwarding in both directions, on every connection, new ones included. */
  readonly stall: Effect.Effect<void>
  /** Forwards again. */
  readonly resume: Effect.Effect<void>
}

/** A TCP proxy on loopback to `target`; closed with the scope. */
const proxy = (target: number): Effect.Effect<Proxy, never, Scope.Scope> =>
  Effect.gen(function*() {
    let stalled = false
    const sockets = new Set<Net.Socket>()
    const track = (socket: Net.Socket) => {
      sockets.add(socket)
      socket.on("error", () => socket.destroy())
      socket.once("close", () => sockets.delete(socket))
      if (stalled) socket.pause()
    }
    const server = Net.createServer((client) => {
      const upstream = Net.connect({ host: "127.0.0.1", port: target })
      track(client)
      track(upstream)
      client.pipe(upstream)
      upstream.pipe(client)
      client.once("close", () => upstream.destroy())
      upstream.once("close", () => client.destroy())
    })
    const port = yield* Effect.acquireRelease(
      Effect.async<number>((resume) => {
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
        })
      }),
      () =>
        Effect.sync(() => {
          for (const socket of sockets) socket.destroy()
          server.close()
        })
    )
    return {
      port,
      stall: Effect.sync(() => {
        stalled = true
        for (const socket of sockets) socket.pause()
      }),
      resume: Effect.sync(() => {
        stalled = false
        for (const socket of sockets) socket.resume()
      })
    }
  })

/** Asks until the front answers, at most `timeoutMs`. */
const answered = (workspace: Workspace, timeoutMs: number) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const result = yield* query(workspace)
      if (result.code === 0) return result
      if (Date.now() > deadline) return yield* Effect.die(new Error(`never answered: ${result.stderr}`))
    }
  })

const warning = "already executing a query"

describe("PostgreSQL that stalls", () => {
  it.scopedLive(
    "the shard-lock connection never runs two queries at once: no pg warning through a stall and back",
    () =>
      Effect.gen(function*() {
        const workspace = yield* fakeWorkspace
        const postgres = yield* postgresServer
        const port = Number(new URL(postgres.url).port)
        const between = yield* proxy(port)
        const url = postgres.url.replace(`:${port}/`, `:${between.port}/`)
        const started = yield* runner(workspace, url, yield* freePort)
        const served = yield* front(workspace, url)
        assert.strictEqual((yield* answered(workspace, 30_000)).stdout, "fake hover\n")
        yield* between.stall
        // serve sees the storage gone; meanwhile the runner's lock operations time out on its reserved connection.
        yield* waitFor(
          "serve to say the storage is unreachable",
          () => /the cluster cannot answer: storage unreachable/.test(served.stderr()),
          60_000
        )
        // The runner answers while it believes it holds its shards; once its lock refreshes have failed long
        // enough it drops them, and a query fails: by then several lock operations have timed out.
        const deadline = Date.now() + 60_000
        while ((yield* query(workspace)).code === 0) {
          if (Date.now() > deadline) return yield* Effect.die(new Error("the cluster answered through the stall"))
        }
        yield* between.resume
        assert.strictEqual((yield* answered(workspace, 90_000)).stdout, "fake hover\n")
        yield* waitFor("serve to say the cluster answers", () => /the cluster answers/.test(served.stderr()), 30_000)
        for (const [name, process] of [["runner", started], ["serve", served]] as const) {
          assert.notInclude(process.stderr(), warning, `${name}:\n${process.stderr()}`)
        }
      }),
    300_000
  )
})
