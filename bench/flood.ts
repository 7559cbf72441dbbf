/**
 * Benchmark 17, a flood from token holders (issue 42): two raw WebSocket connections to a real
 * `lsp-seam serve --listen` (the compiled packages/cli/dist/bin.js, fake server) send Status requests in
 * 10,000-line batches as fast as the kernel takes them and never read an answer (the flooders of
 * packages/cli/test/support/flood.ts, which serve.flood.e2e.test.ts uses too). Meanwhile another client queries
 * on its connection, and new clients connect and query. Recorded: that client's latency during the flood
 * against the idle host, the new connections' time to their first answer, and serve's peak RSS (/proc, every
 * 50 ms) against its RSS before the flood — once as users run it, and once with its heap capped
 * (`--max-old-space-size`): uncapped, V8 lets the heap grow before it collects, by more the idler the machine
 * (+41 MiB at a load of 18, +140 MiB idle), so only the capped run tells what the flood makes serve keep.
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { floodWebSocket, residentBytes } from "../packages/cli/test/support/flood.js"
import * as LspRemoteClient from "../packages/lsp-remote/src/LspRemoteClient.js"
import { ms, type Options, type Section, type Target } from "./support/report.js"
import { round, rounded, summarize, type Summary } from "./support/stats.js"
import { buildCommand, served } from "./upgradeFuzz.js"

/** What one query of the other client may take during the flood (as serve.flood.e2e.test.ts allows). */
const budgetMs = 5_000
/** serve's RSS may grow by at most this much during the flood with its heap capped (docs/security.md). */
const maxGrowthMiB = 64
/** The heap cap of the judged run: far above what serve keeps, far below what an unbounded buffer takes. */
export const heapCapMiB = 96

/** serve's resident memory in one run: before the flood, its peak during it, and after it (MiB). */
export interface FloodMemory {
  readonly rssBeforeMiB: number
  readonly rssPeakMiB: number
  readonly rssAfterMiB: number
  readonly failures: number
}

export interface FloodPart {
  readonly floodSeconds: number
  /** The other client's hover on its open connection: on the idle host, and during the flood (ms). */
  readonly idle: Summary
  readonly underFlood: Summary
  /** New connections during the flood: connect, greet and answer one hover (ms). */
  readonly newConnections: Summary
  readonly failures: number
  readonly rssBeforeMiB: number
  readonly rssPeakMiB: number
  readonly rssAfterMiB: number
  /** Status requests the two flooders got into their sockets (the kernel's buffers included). */
  readonly statusSent: number
  /** The same flood against serve with its heap capped at `heapCapMiB`. */
  readonly capped: FloodMemory
}

const mib = (bytes: number) => bytes / 1024 / 1024

const timed = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.suspend(() => {
    const start = performance.now()
    return Effect.map(Effect.either(effect), (result) => ({ result, ms: performance.now() - start }))
  })

const measure = (options: Options, nodeOptions: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const host = yield* served([], nodeOptions)
    const pid = host.process.pid!
    const token = Redacted.value(host.token)
    const url = `ws://127.0.0.1:${host.port}/lsp-seam`
    const connect = LspRemoteClient.make({ transport: LspRemoteClient.webSocket(url, host.token) })
    const hover = {
      operation: "hover",
      filePath: "main.fake",
      position: { line: 0, character: 4 },
      workspaceRoot: host.workspace
    } as const
    const client = yield* connect
    const within = (effect: Effect.Effect<unknown, unknown>) =>
      Effect.timeoutFail(effect, { duration: budgetMs, onTimeout: () => new Error("over budget") })
    for (let i = 0; i < (options.quick ? 10 : 100); i++) yield* client.query(hover) // warm-up
    const idle: Array<number> = []
    for (let i = 0; i < (options.quick ? 20 : 200); i++) idle.push((yield* timed(client.query(hover))).ms)
    const before = residentBytes(pid)!
    let peak = before
    const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(pid) ?? 0)), 50)
    const flooders = yield* Effect.promise(() =>
      Promise.all([floodWebSocket(host.port, token), floodWebSocket(host.port, token)])
    )
    const floodMs = options.quick ? 5_000 : 30_000
    const started = performance.now()
    const underFlood: Array<number> = []
    const newConnections: Array<number> = []
    let failures = 0
    let rounds = 0
    while (performance.now() - started < floodMs) {
      const asked = yield* timed(within(client.query(hover)))
      if (asked.result._tag === "Right") underFlood.push(asked.ms)
      else failures++
      if (++rounds % 10 === 0) {
        const fresh = yield* timed(within(Effect.scoped(Effect.flatMap(connect, (c) => c.query(hover)))))
        if (fresh.result._tag === "Right") newConnections.push(fresh.ms)
        else failures++
      }
    }
    const floodSeconds = (performance.now() - started) / 1000
    const statusSent = flooders.reduce((sum, flooder) => sum + flooder.sent(), 0)
    for (const flooder of flooders) flooder.stop()
    clearInterval(sampler)
    peak = Math.max(peak, residentBytes(pid) ?? 0)
    yield* client.query(hover)
    return {
      floodSeconds,
      idle: summarize(idle),
      underFlood: summarize(underFlood.length > 0 ? underFlood : [Number.NaN]),
      newConnections: summarize(newConnections.length > 0 ? newConnections : [Number.NaN]),
      failures,
      rssBeforeMiB: mib(before),
      rssPeakMiB: mib(peak),
      rssAfterMiB: mib(residentBytes(pid) ?? 0),
      statusSent
    }
  })

export const measureFlood = async (options: Options): Promise<FloodPart> => {
  buildCommand()
  const uncapped = await Effect.runPromise(Effect.scoped(measure(options, [])))
  const capped = await Effect.runPromise(Effect.scoped(measure(options, [`--max-old-space-size=${heapCapMiB}`])))
  return {
    ...uncapped,
    capped: {
      rssBeforeMiB: capped.rssBeforeMiB,
      rssPeakMiB: capped.rssPeakMiB,
      rssAfterMiB: capped.rssAfterMiB,
      failures: capped.failures
    }
  }
}

export const floodSection = (part: FloodPart, options: Options): Section => {
  const judge = (pass: boolean) => options.quick ? null : pass
  const growth = part.capped.rssPeakMiB - part.capped.rssBeforeMiB
  const targets: Array<Target> = [{
    name: "another client is served during the flood",
    goal: `every query answers within ${budgetMs} ms, on its connection and on new ones`,
    measured: `${part.failures} failed or over budget (${part.capped.failures} with the heap capped); slowest ${
      ms(part.underFlood.max)
    } ms on the open connection, ${ms(part.newConnections.max)} ms for a new one`,
    pass: judge(part.failures === 0 && part.capped.failures === 0)
  }, {
    name: "serve's memory stays bounded",
    goal:
      `with its heap capped at ${heapCapMiB} MiB, serve serves the flood and its peak RSS stays within ${maxGrowthMiB} ` +
      "MiB of its RSS before it",
    measured: `${part.capped.rssBeforeMiB.toFixed(0)} MiB → peak ${part.capped.rssPeakMiB.toFixed(0)} MiB (+${
      growth.toFixed(0)
    }); uncapped +${(part.rssPeakMiB - part.rssBeforeMiB).toFixed(0)}`,
    pass: judge(growth < maxGrowthMiB && part.capped.failures === 0)
  }]
  const row = (name: string, s: Summary) => [name, String(s.n), ms(s.median), ms(s.p99), ms(s.max)]
  return {
    id: "flood",
    title: "18. A flood from token holders on a real serve",
    method: "The compiled `lsp-seam serve --listen 127.0.0.1:0` (fake server, default bounds: 32 requests " +
      "unanswered per connection, 4 MiB of unread answers). Two raw WebSocket connections with the token send " +
      "Status requests in 10,000-line messages as fast as the kernel takes them and never read " +
      `(packages/cli/test/support/flood.ts) for ${part.floodSeconds.toFixed(0)} s. Meanwhile another client ` +
      "(LspRemoteClient) asks hover on its open connection in a closed loop, and every tenth question a new " +
      `client connects and asks one; each has ${budgetMs} ms. Its latency on the idle host before the flood is ` +
      "the reference. serve's RSS is read from /proc every 50 ms.",
    tables: [{
      caption: "The other client's hover, ms",
      columns: ["when", "queries", "median", "p99", "max"],
      rows: [
        row("idle host (reference)", part.idle),
        row("during the flood, open connection", part.underFlood),
        row("during the flood, new connection (connect + hover)", part.newConnections)
      ]
    }, {
      caption: "serve's resident memory, MiB",
      columns: ["serve", "before the flood", "peak during it", "after it"],
      rows: [
        ["as users run it", part.rssBeforeMiB, part.rssPeakMiB, part.rssAfterMiB].map(String),
        [`heap capped at ${heapCapMiB} MiB`, part.capped.rssBeforeMiB, part.capped.rssPeakMiB, part.capped.rssAfterMiB]
          .map(String)
      ].map(([name, ...figures]) => [name!, ...figures.map((f) => Number(f).toFixed(0))])
    }],
    targets,
    notes: [
      `The flooders got ${part.statusSent.toLocaleString("en")} Status requests out (as users run serve) before ` +
      "their writes blocked.",
      "Uncapped, V8 lets the heap grow before it collects, and the idler the machine the more the flooders send and " +
      "the more it grows (+41 MiB at a load of 18, +140 MiB idle); with the heap capped serve answers the same " +
      "flood in a fraction of it, so what the uncapped run shows is garbage not yet collected, not a buffer.",
      "before issue 42's bound, the attack run that found it (the same flood, by hand) grew serve from 104 to " +
      "583 MB, and another client's query failed with LSP_REMOTE_UNAVAILABLE"
    ],
    data: {
      ...part,
      floodSeconds: round(part.floodSeconds, 2),
      idle: rounded(part.idle),
      underFlood: rounded(part.underFlood),
      newConnections: rounded(part.newConnections),
      rssBeforeMiB: round(part.rssBeforeMiB, 1),
      rssPeakMiB: round(part.rssPeakMiB, 1),
      rssAfterMiB: round(part.rssAfterMiB, 1)
    }
  }
}
