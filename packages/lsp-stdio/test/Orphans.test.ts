import { assert, describe, it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import * as NodeChild from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import {
  allGone,
  events,
  fakeServerScript,
  isRunning,
  makeRecordFile,
  makeWorkspace,
  watchdogsOf
} from "./support/fakeHost.js"

const hostScript = fileURLToPath(new URL("./support/orphanHost.ts", import.meta.url))
const tsProject = fileURLToPath(new URL("./fixtures/ts-project", import.meta.url))
const tls = createRequire(import.meta.url).resolve("typescript-language-server/lib/cli.mjs")

/** Starts the host in a process of its own; resolves with its server pids once its queries have run. */
const startHost = (config: unknown, queries: ReadonlyArray<{ workspaceRoot: string; filePath: string }>) =>
  Effect.acquireRelease(
    Effect.async<{ readonly host: NodeChild.ChildProcess; readonly serverPids: ReadonlyArray<number> }, Error>(
      (resume) => {
        const host = NodeChild.spawn(
          process.execPath,
          ["--import", "tsx", hostScript, JSON.stringify(config), JSON.stringify(queries)],
          { stdio: ["ignore", "pipe", "inherit"] }
        )
        let output = ""
        host.stdout.on("data", (chunk: Buffer) => {
          output += chunk.toString()
          const ready = /^ready (.*)$/m.exec(output)
          if (ready !== null) resume(Effect.succeed({ host, serverPids: JSON.parse(ready[1]!) }))
        })
        host.on("exit", (code) => resume(Effect.fail(new Error(`the host exited early (${code})`))))
      }
    ),
    ({ host }) => Effect.sync(() => host.kill("SIGKILL"))
  )

/** The fake server's entry in a host configuration, answering hovers with null. */
const fakeServer = (record: string, fake: Record<string, unknown> = {}, server: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [fakeServerScript],
  extensionToLanguage: { fake: "fake" },
  env: { FAKE_LSP: JSON.stringify({ record, answers: { "textDocument/hover": null }, ...fake }) },
  ...server
})

const goneWithin = (pids: ReadonlyArray<number>, what: string) =>
  allGone(pids).pipe(
    Effect.repeat({ until: (gone) => gone, schedule: Schedule.spaced("50 millis") }),
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error(`${what} outlived its host by 5 s`) })
  )

describe("orphans", () => {
  it.scopedLive(
    "when the host is SIGKILLed, its servers (and tsserver under them) are gone within 5 s",
    () =>
      Effect.gen(function*() {
        const record = yield* makeRecordFile
        const workspace = yield* makeWorkspace()
        const config = {
          servers: {
            typescript: {
              command: process.execPath,
              args: [tls, "--stdio"],
              extensionToLanguage: { ts: "typescript" },
              initializationOptions: { tsserver: { useSyntaxServer: "never" }, disableAutomaticTypingAcquisition: true }
            },
            fake: fakeServer(record)
          }
        }
        const { host, serverPids } = yield* startHost(config, [
          { workspaceRoot: tsProject, filePath: "main.ts" },
          { workspaceRoot: workspace, filePath: "main.fake" }
        ])
        assert.strictEqual(serverPids.length, 2)
        assert.isFalse(yield* allGone(serverPids), "the servers run while the host does")
        host.kill("SIGKILL")
        const started = Date.now()
        yield* goneWithin(serverPids, "a server")
        assert.isBelow(Date.now() - started, 5_000)
        assert.isFalse(serverPids.some(isRunning))
      }),
    { timeout: 60_000 }
  )

  it.scopedLive(
    "a server that ignores its stdin's end, the host's pid and SIGTERM is ended by the watchdog, which then leaves",
    () =>
      Effect.gen(function*() {
        const record = yield* makeRecordFile
        const workspace = yield* makeWorkspace()
        const config = {
          servers: { fake: fakeServer(record, { ignoreStdinEnd: true, ignoreSigterm: true }, { killGraceMs: 500 }) }
        }
        const { host, serverPids } = yield* startHost(config, [{ workspaceRoot: workspace, filePath: "main.fake" }])
        const watchdogs = watchdogsOf(host.pid!)
        assert.strictEqual(watchdogs.length, 1, "one watchdog per host")
        host.kill("SIGKILL")
        yield* goneWithin(serverPids, "the server")
        assert.isNotEmpty(events(record, "stdinEnd"), "the server saw its stdin end and stayed")
        assert.isNotEmpty(events(record, "sigterm"), "and ignored SIGTERM: only SIGKILL ended it")
        yield* Effect.sync(() => watchdogs.every((pid) => !isRunning(pid))).pipe(
          Effect.repeat({ until: (gone) => gone, schedule: Schedule.spaced("50 millis") }),
          Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("the watchdog stayed") })
        )
      }),
    { timeout: 60_000 }
  )
})
