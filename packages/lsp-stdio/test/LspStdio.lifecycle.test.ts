import { NodeContext } from "@effect/platform-node"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { LspService } from "@lsp-seam/lsp"
import { Context, Effect, Exit, Layer, Schedule, Scope } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as LspStdio from "../src/LspStdio.js"
import type * as StdioConfig from "../src/StdioConfig.js"
import * as StdioStatus from "../src/StdioStatus.js"
import {
  allGone,
  assertNothingSurvives,
  dig,
  events,
  fakeConfig,
  hostLayer,
  isRunning,
  makeRecordFile,
  makeWorkspace,
  messages,
  query,
  readRecord,
  startedPids,
  waitForRecord,
  watchdogsOf,
  withHost
} from "./support/fakeHost.js"

const location = {
  uri: "file:///elsewhere/def.fake",
  range: { start: { line: 3, character: 4 }, end: { line: 3, character: 9 } }
}

// No test may leave a language server (or anything it started) behind.
afterAll(assertNothingSurvives)

describe("LspStdio host lifecycle (fake server)", () => {
  it.scopedLive("handshake, transient open, the request, didClose, and a graceful teardown", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const config = fakeConfig({ recordFile: record, fake: { answers: { "textDocument/definition": [location] } } })
      const result = yield* withHost(config, query(workspace, "goToDefinition"))
      assert.deepStrictEqual(result, {
        kind: "locations",
        locations: [location],
        resolvedWorkspaceUri: `file://${workspace}`
      })
      const [initialize] = messages(record, "initialize")
      assert.strictEqual(dig(initialize?.params, "processId"), process.pid)
      assert.strictEqual(dig(initialize?.params, "rootUri"), `file://${workspace}`)
      assert.deepStrictEqual(dig(initialize?.params, "workspaceFolders"), [{
        uri: `file://${workspace}`,
        name: NodePath.basename(workspace)
      }])
      assert.deepStrictEqual(dig(initialize?.params, "capabilities", "general"), { positionEncodings: ["utf-16"] })
      assert.deepStrictEqual(dig(initialize?.params, "capabilities", "window"), { workDoneProgress: true })
      assert.deepStrictEqual(dig(initialize?.params, "initializationOptions"), null)
      assert.deepStrictEqual(dig(messages(record, "initialized")[0], "params"), {})
      const [didOpen] = messages(record, "textDocument/didOpen")
      assert.deepStrictEqual(dig(didOpen, "params", "textDocument"), {
        uri: `file://${workspace}/main.fake`,
        languageId: "fake",
        version: 1,
        text: "let x = 1\nx\n"
      })
      const methods = readRecord(record).filter((r) => r.type === "message").map((r) => r.method)
      assert.deepStrictEqual(methods, [
        "initialize",
        "initialized",
        "textDocument/didOpen",
        "textDocument/definition",
        "textDocument/didClose",
        "shutdown",
        "exit"
      ])
      assert.isTrue(yield* allGone(startedPids(record)))
    }))

  it.scopedLive("findReferences always asks with includeDeclaration: true", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const config = fakeConfig({ recordFile: record, fake: { answers: { "textDocument/references": null } } })
      const result = yield* withHost(config, query(workspace, "findReferences"))
      assert.deepStrictEqual(result, { kind: "locations", locations: [], resolvedWorkspaceUri: `file://${workspace}` })
      assert.deepStrictEqual(dig(messages(record, "textDocument/references")[0], "params", "context"), {
        includeDeclaration: true
      })
    }))

  it.scopedLive("two concurrent first queries share one server start", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const config = fakeConfig({ recordFile: record, fake: { answers: { "textDocument/hover": null } } })
      const results = yield* withHost(
        config,
        Effect.all([query(workspace, "hover"), query(workspace, "hover")], { concurrency: "unbounded" })
      )
      assert.deepStrictEqual(results, [{ kind: "hover", hover: null }, { kind: "hover", hover: null }])
      assert.strictEqual(events(record, "start").length, 1)
      assert.strictEqual(messages(record, "initialize").length, 1)
    }))

  it.scopedLive("a symlinked alias of a workspace shares the canonical server", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const alias = `${workspace}-alias`
      NodeFs.symlinkSync(workspace, alias)
      yield* Effect.addFinalizer(() => Effect.sync(() => NodeFs.rmSync(alias, { force: true })))
      const config = fakeConfig({ recordFile: record, fake: { answers: { "textDocument/definition": [] } } })
      const [viaAlias, direct] = yield* withHost(config, Effect.all([query(alias), query(workspace)]))
      assert.strictEqual(viaAlias.kind === "locations" && viaAlias.resolvedWorkspaceUri, `file://${workspace}`)
      assert.deepStrictEqual(viaAlias, direct)
      assert.strictEqual(events(record, "start").length, 1)
    }))

  it.scopedLive("credentials and lsp-seam's own variables never reach the server; configured env does", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const echoEnv = ["MY_API_KEY", "DB_PASSWORD", "LSP_SEAM_CONFIG", "HOME_DIR_HINT", "EXPLICIT_TOKEN"]
      const config = fakeConfig({
        recordFile: record,
        fake: { echoEnv, answers: { "textDocument/hover": null } }
      })
      const withEnv = {
        servers: {
          fake: { ...config.servers.fake, env: { ...config.servers.fake.env, EXPLICIT_TOKEN: "given" } }
        }
      }
      const ambient = {
        ...process.env,
        MY_API_KEY: "k",
        DB_PASSWORD: "p",
        LSP_SEAM_CONFIG: "{}",
        HOME_DIR_HINT: "kept"
      }
      yield* Effect.scoped(
        Effect.flatMap(
          Layer.build(
            hostLayerWith(withEnv, ambient)
          ),
          (context) => Effect.provide(query(workspace, "hover"), context)
        )
      )
      const [start] = events(record, "start")
      assert.deepStrictEqual(start?.env, {
        MY_API_KEY: null,
        DB_PASSWORD: null,
        LSP_SEAM_CONFIG: null,
        HOME_DIR_HINT: "kept",
        EXPLICIT_TOKEN: "given"
      })
    }))

  it.scopedLive("a server that ignores shutdown and SIGTERM, with a grandchild, is gone after close", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const pidFile = `${record}.grandchild`
      const config = fakeConfig({
        recordFile: record,
        fake: {
          hang: ["shutdown"],
          ignoreSigterm: true,
          ignoreStdinEnd: true,
          grandchild: true,
          grandchildPidFile: pidFile,
          answers: { "textDocument/hover": null }
        },
        server: { shutdownTimeoutMs: 200, killGraceMs: 200 }
      })
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(hostLayer(config), scope)
      yield* Effect.provide(query(workspace, "hover"), context)
      yield* waitForRecord(record, (all) => all.some((r) => r.event === "grandchildStart"))
      const grandchild = Number(NodeFs.readFileSync(pidFile, "utf8"))
      const watchdogs = watchdogsOf(process.pid)
      assert.isNotEmpty(watchdogs, "the host's watchdog runs while its servers do")
      const started = Date.now()
      yield* Scope.close(scope, Exit.void)
      const took = Date.now() - started
      assert.isTrue(yield* allGone(startedPids(record)), "the server's process group is gone")
      assert.isFalse(isRunning(grandchild), "the grandchild is gone")
      // Every group was seen gone, so the watchdog had nothing to end and left with the host.
      assert.isTrue(watchdogs.every((pid) => !isRunning(pid)), "the watchdog is gone")
      // shutdown budget + SIGTERM grace + SIGKILL, well within killGraceMs + 1 s of the escalation.
      assert.isBelow(took, 200 + 200 + 1_000)
      assert.isAbove(events(record, "sigterm").length, 0)
      assert.strictEqual(events(record, "stdinEnd").length, 1, "stdin was closed before the signals")
    }))
})

describe("a server that exits on its own", () => {
  it.scopedLive("is evicted at once: its remaining processes are ended and the status shows no dead server", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const config = fakeConfig({
        recordFile: record,
        // Crashes once the query is answered, leaving a child behind in its group.
        fake: { crash: "didClose", grandchild: true, answers: { "textDocument/hover": null } },
        // Nothing else would end it for ten minutes: no further query comes, and it is far from idle timeout.
        server: { idleTimeoutMs: 600_000 }
      })
      const context = yield* Layer.build(
        LspStdio.layer(config).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer))
      )
      yield* Effect.provide(query(workspace, "hover"), context)
      yield* waitForRecord(record, (all) => all.some((r) => r.event === "crash"))
      const host = Context.get(context, StdioStatus.StdioStatus)
      yield* host.status.pipe(
        Effect.repeat({ until: (all) => all.length === 0, schedule: Schedule.spaced("20 millis") }),
        Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("the dead server stayed pooled") })
      )
      // The child it spawned at its start (still running after the crash) went with its group.
      yield* allGone(startedPids(record)).pipe(
        Effect.repeat({ until: (gone) => gone, schedule: Schedule.spaced("20 millis") }),
        Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("the server's child stayed") })
      )
      // The next query starts a fresh server, as before.
      yield* Effect.provide(query(workspace, "hover"), context)
    }))
})

const hostLayerWith = (config: StdioConfig.StdioConfig.Encoded, environment: Record<string, string | undefined>) =>
  LspStdio.layer(config, { environment }).pipe(
    Layer.provideMerge(LspService.layer),
    Layer.provide(NodeContext.layer)
  )
