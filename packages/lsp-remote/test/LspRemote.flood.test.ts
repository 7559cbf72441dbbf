import { assert, describe, it } from "@effect/vitest"
import { LspRemoteClient, type LspRpc } from "@lsp-seam/lsp-remote"
import { Effect } from "effect"
import * as Net from "node:net"
import * as Path from "node:path"
import { makeHost, serveSocket, tempDir } from "./support.js"

// Issue 42 on the Unix socket transport: a client that writes Status requests and never reads its answers.
// (The WebSocket transport, with a real `serve`: packages/cli/test/serve.flood.e2e.test.ts.)

/** Status lines, 2,000 at a time, written until the kernel stops taking them; never reads. */
const flood = (path: string) =>
  Effect.acquireRelease(
    Effect.async<{ readonly sent: () => number }>((resume) => {
      const socket = Net.createConnection({ path }, () => {
        socket.pause()
        let sent = 0
        const write = (): void => {
          const lines = Array.from({ length: 2_000 }, (_, i) =>
            `{"_tag":"Request","id":"${sent + i}","tag":"Status","headers":[]}\n`)
          sent += lines.length
          if (socket.write(lines.join(""))) {
            setImmediate(write)
          } else socket.once("drain", write)
        }
        write()
        resume(Effect.succeed(Object.assign(socket, {
          sent: () =>
            sent
        })))
      })
      socket.on("error", () => {})
    }),
    (socket) => Effect.sync(() => (socket as unknown as Net.Socket).destroy())
  )

/** Polls `value` every 100 ms until it has not changed for `quietMs`; fails after `timeoutMs`. */
const settled = (what: string, value: () => number, quietMs: number, timeoutMs: number) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    let last = value()
    let since = Date.now()
    while (Date.now() - since < quietMs) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`${what} never settled (at ${value()})`))
      yield* Effect.sleep("100 millis")
      if (value() !== last) [last, since] = [value(), Date.now()]
    }
    return last
  })

describe("a connection that does not read its answers", () => {
  it.scopedLive("is no longer read: the host answers a bounded number of its requests and serves others", () =>
    Effect.gen(function*() {
      const host = yield* makeHost
      const dir = yield* tempDir
      const socket = Path.join(dir, "host.sock")
      let statusCalls = 0
      // About 4 KiB per answer, so the kernel's buffers hold only a few dozen.
      const server: LspRpc.ServerStatus = {
        providerId: "x".repeat(4_000),
        workspace: "/ws",
        pid: 1,
        state: "idle",
        uptimeMs: 0,
        queriesServed: 0,
        restarts: 0,
        lastError: null,
        rssBytes: null
      }
      yield* serveSocket(host.context, {
        path: socket,
        status: Effect.sync(() => {
          statusCalls++
          return [server]
        }),
        maxRequestsPerClient: 8,
        maxUnreadBytesPerClient: 64 * 1024
      })
      const flooder = yield* flood(socket)
      // The host stops reading, so the flooder's writes stop being taken, and the host stops answering.
      const sent = yield* settled("the flooder's writes", flooder.sent, 1_000, 20_000)
      const answered = yield* settled("the host's Status calls", () => statusCalls, 1_000, 20_000)
      assert.isAtLeast(sent, 4_000)
      assert.isBelow(answered, 1_000, `${answered} Status calls for ${sent} requests`)
      // Another client is served meanwhile, Status included.
      const other = yield* LspRemoteClient.make({ transport: LspRemoteClient.socket(socket) })
      assert.deepStrictEqual(yield* other.status, [server])
    }))
})
