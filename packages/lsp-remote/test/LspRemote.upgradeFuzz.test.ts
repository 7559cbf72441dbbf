import { assert, describe, it } from "@effect/vitest"
import { LspRemoteClient } from "@lsp-seam/lsp-remote"
import { Effect, Redacted } from "effect"
import { makeHost, request, serveHttp, token } from "./support.js"
import { exchange, rightUpgrade, tally, upgradeCases, violations } from "./upgradeFuzzCases.js"

// A fuzz of the upgrade and authentication path on a real host (the cases: upgradeFuzzCases.ts, shared with the
// reliability bench). Nothing may be upgraded without the token, every connection must be closed by the host
// within its handshake time, and the host must answer a real client afterwards. Seeded: the same cases every run.
const cases = 1_000
const handshakeTimeoutMs = 500

const real = Redacted.value(token)

describe("upgrade and authentication fuzz", () => {
  it.scopedLive(
    `${cases} random connections: none upgraded without the token, none left open, the host serves on`,
    () =>
      Effect.gen(function*() {
        const host = yield* makeHost
        const { port, url } = yield* serveHttp(host.context, { handshakeTimeoutMs, maxPendingConnections: 64 })
        const samples = upgradeCases(real, { seed: 30, count: cases })
        const started = Date.now()
        const outcomes = yield* Effect.forEach(
          samples,
          (chunks) => exchange(port, chunks, handshakeTimeoutMs + 2_000),
          {
            concurrency: 16
          }
        )
        const elapsedMs = Date.now() - started
        const slowest = Math.max(...outcomes.map((outcome) => outcome.closedAfterMs))
        console.log(
          `upgrade fuzz: ${cases} connections in ${elapsedMs} ms; outcomes ${
            JSON.stringify(tally(outcomes))
          }; slowest close ${slowest} ms`
        )
        assert.deepStrictEqual(violations(outcomes), [])
        assert.isBelow(slowest, handshakeTimeoutMs + 1_000)
        // The host is intact, and the oracle is not vacuous: the right token upgrades.
        const client = yield* LspRemoteClient.make({ transport: LspRemoteClient.webSocket(url, token) })
        assert.deepStrictEqual(yield* client.query(request("a.ts")), yield* host.service.query(request("a.ts")))
        const right = yield* exchange(port, rightUpgrade(real), 300)
        assert.strictEqual(right.status, "open:101", "the right token upgrades, and the connection stays")
      }),
    120_000
  )
})
