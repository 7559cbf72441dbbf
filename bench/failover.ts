/**
 * Benchmark 17, the cluster's failover (issue 42): how long after a SIGKILL of the runner holding a workspace that
 * workspace answers again, over SQLite storage and over PostgreSQL (a server of the bench's own). Each trial: two
 * runners (`lsp-seam runner`, the compiled command) over fresh storage, a workspace placed and answered once
 * (the fake server, which answers at once: what is measured is the cluster's recovery, not a server's start), its
 * runner SIGKILLed (the runner alone: its servers end through their watchdog), then the same question asked in a
 * loop through `LspClusterClient`, each attempt within 10 s, until the first answer.
 */
import type { LspQuery } from "@lsp-seam/lsp"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as LspClusterClient from "../packages/lsp-cluster/src/LspClusterClient.js"
import * as LspClusterStorage from "../packages/lsp-cluster/src/LspClusterStorage.js"
import { startPostgres } from "../packages/lsp-cluster/test/support.js"
import { freePort, startCli, type Started } from "./cluster.js"
import { configOf } from "./load.js"
import { build } from "./remote.js"
import { ms, type Options, type Section } from "./support/report.js"
import { typescriptWorkspace } from "./support/servers.js"
import { median } from "./support/stats.js"

/** What one trial measured. */
export interface Trial {
  readonly storage: "SQLite" | "PostgreSQL"
  /** From the SIGKILL to the first answer, ms. */
  readonly firstAnswerMs: number
  /** The attempts that failed meanwhile, with their codes. */
  readonly failed: ReadonlyArray<string>
}

export interface FailoverPart {
  readonly trials: ReadonlyArray<Trial>
}

/** Past this, a trial counts as no failover at all. */
const boundMs = 90_000

const trial = (storageText: string, label: Trial["storage"], log: (message: string) => void) =>
  Effect.gen(function*() {
    const directory = Fs.realpathSync(Fs.mkdtempSync(Path.join(Os.tmpdir(), "lsp-seam-bench-failover-")))
    yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(directory, { recursive: true, force: true })))
    const workspace = typescriptWorkspace({ "main.fake": "let x = 1\nx\n" })
    const configFile = Path.join(directory, "lsp-seam.json")
    Fs.writeFileSync(configFile, JSON.stringify(configOf(false)))
    const runners: Array<Started & { readonly address: string }> = []
    yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all(runners.map((r) => r.stop()))))
    for (let i = 0; i < 2; i++) {
      const address = `127.0.0.1:${yield* Effect.promise(freePort)}`
      const runner = yield* Effect.promise(() =>
        startCli(
          `runner ${address}`,
          [
            "runner",
            "--storage",
            storageText,
            "--listen",
            address,
            "--root",
            Path.dirname(workspace),
            "--config",
            configFile
          ],
          directory,
          /joined the cluster/
        )
      )
      runners.push({ ...runner, address })
    }
    const storage = yield* LspClusterStorage.decode(storageText)
    const client = Context.get(
      yield* Layer.build(LspClusterClient.layer({ storage })),
      LspClusterClient.LspClusterClient
    )
    const request: LspQuery.LspQueryRequest = {
      operation: "hover",
      filePath: "main.fake",
      position: { line: 0, character: 4 },
      workspaceRoot: workspace
    }
    yield* client.query(request).pipe(Effect.timeout("60 seconds"))
    const holder = (yield* client.hello(workspace)).fingerprint
    const victim = runners.find((runner) => runner.address === holder)
    if (victim === undefined) return yield* Effect.dieMessage(`no runner at ${holder} holds the workspace`)
    yield* Effect.sync(() => log(`failover (${label}): SIGKILL of ${holder}`))
    const killedAt = performance.now()
    process.kill(victim.pid, "SIGKILL")
    const failed: Array<string> = []
    for (;;) {
      const exit = yield* Effect.exit(client.query(request).pipe(Effect.timeout("10 seconds")))
      if (Exit.isSuccess(exit)) break
      failed.push(exit.cause._tag === "Fail" ? String(Reflect.get(exit.cause.error, "code") ?? "timeout") : "defect")
      if (performance.now() - killedAt > boundMs) break
      yield* Effect.sleep("100 millis")
    }
    return { storage: label, firstAnswerMs: performance.now() - killedAt, failed } satisfies Trial
  }).pipe(Effect.scoped)

export const measureFailover = async (options: Options, log: (message: string) => void): Promise<FailoverPart> => {
  log("failover: building the command")
  build()
  const count = options.quick ? 1 : 3
  const trials: Array<Trial> = []
  await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    for (let i = 0; i < count; i++) {
      const directory = Fs.realpathSync(Fs.mkdtempSync(Path.join(Os.tmpdir(), "lsp-seam-bench-store-")))
      trials.push(yield* trial(`sqlite:${Path.join(directory, "cluster.db")}`, "SQLite", log))
      Fs.rmSync(directory, { recursive: true, force: true })
    }
    for (let i = 0; i < count; i++) {
      // A fresh database each time: no runner or lock of an earlier trial is left in it.
      trials.push(yield* Effect.scoped(Effect.flatMap(startPostgres, (url) => trial(url, "PostgreSQL", log))))
    }
  })))
  return { trials }
}

export const failoverSection = (part: FailoverPart, options: Options): Section => {
  const of = (storage: Trial["storage"]) => part.trials.filter((t) => t.storage === storage)
  const medianOf = (storage: Trial["storage"]) => median(of(storage).map((t) => t.firstAnswerMs))
  const judged = (storage: Trial["storage"]) =>
    options.quick ? null : of(storage).every((t) => t.firstAnswerMs < 30_000 && t.firstAnswerMs < boundMs)
  return {
    id: "failover",
    title: "Failover: the first answer after SIGKILL of the runner holding a workspace",
    method: "Two runners (the compiled `lsp-seam runner`) over fresh storage per trial (SQLite file; PostgreSQL " +
      "server started by the bench); a workspace answered once through `LspClusterClient`, the runner holding it " +
      "SIGKILLed, then the same hover (fake server) asked in a loop, each attempt within 10 s, until answered. " +
      `${part.trials.length} trials.`,
    tables: [{
      caption: "Time from the SIGKILL to the first answer (ms), and the attempts that failed meanwhile",
      columns: ["storage", "first answer after", "failed attempts"],
      rows: part.trials.map((t) => [
        t.storage,
        ms(t.firstAnswerMs),
        t.failed.length === 0 ? "none" : `${t.failed.length} (${[...new Set(t.failed)].join(", ")})`
      ])
    }],
    targets: (["SQLite", "PostgreSQL"] as const).map((storage) => ({
      name: `failover, ${storage}`,
      goal: "the holder's workspace answers again within 30 s of its SIGKILL",
      measured: `median ${ms(medianOf(storage))} ms, worst ${
        ms(Math.max(...of(storage).map((t) => t.firstAnswerMs)))
      } ms`,
      pass: judged(storage)
    })),
    notes: [
      "The cluster's timings (packages/lsp-cluster/src/internal/sharding.ts): a runner is found dead within about " +
      "1 s plus the ping's retries; on SQLite a new runner takes its shards once the dead runner's lock has " +
      "expired (6 s); on PostgreSQL the lock goes with its connection."
    ],
    data: part
  }
}
