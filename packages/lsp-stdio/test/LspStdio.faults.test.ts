import { NodeContext } from "@effect/platform-node"
import { afterAll, assert, describe, it } from "@effect/vitest"
import type { LspError } from "@lsp-seam/lsp"
import { Effect, Fiber, Schedule } from "effect"
import * as NodeChild from "node:child_process"
import * as NodeFs from "node:fs"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as LspStdio from "../src/LspStdio.js"
import {
  allGone,
  assertNothingSurvives,
  codeOf,
  dig,
  events,
  fakeConfig,
  makeRecordFile,
  makeWorkspace,
  messages,
  query,
  readRecord,
  startedPids,
  waitForRecord,
  withHost
} from "./support/fakeHost.js"

const errorOf = <A, R>(effect: Effect.Effect<A, LspError.LspError, R>) => Effect.flip(effect)

// No test may leave a language server (or anything it started) behind.
afterAll(assertNothingSurvives)

describe("LspStdio host: capabilities and handshake checks", () => {
  const unsupported: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ["the operation is not advertised", { textDocumentSync: 1, definitionProvider: false }],
    ["textDocumentSync is absent", { definitionProvider: true }],
    ["textDocumentSync is None (0)", { textDocumentSync: 0, definitionProvider: true }],
    ["textDocumentSync options without openClose", { textDocumentSync: { change: 1 }, definitionProvider: true }]
  ]
  for (const [name, capabilities] of unsupported) {
    it.scopedLive(`LSP_UNSUPPORTED_OPERATION when ${name}, without opening anything`, () =>
      Effect.gen(function*() {
        const record = yield* makeRecordFile
        const workspace = yield* makeWorkspace()
        const config = fakeConfig({ recordFile: record, fake: { capabilities } })
        assert.strictEqual(yield* withHost(config, codeOf(query(workspace))), "LSP_UNSUPPORTED_OPERATION")
        assert.strictEqual(messages(record, "textDocument/didOpen").length, 0)
      }))
  }

  it.scopedLive("an options object counts as support, and so does openClose: true", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const config = fakeConfig({
        recordFile: record,
        fake: {
          capabilities: { textDocumentSync: { openClose: true }, definitionProvider: { workDoneProgress: true } },
          answers: { "textDocument/definition": null }
        }
      })
      assert.strictEqual(yield* withHost(config, codeOf(query(workspace))), "success")
    }))

  it.scopedLive("a server choosing another position encoding is a protocol error and is torn down", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const config = fakeConfig({ recordFile: record, fake: { positionEncoding: "utf-8" } })
      const codes = yield* withHost(config, Effect.all([codeOf(query(workspace)), codeOf(query(workspace))]))
      assert.deepStrictEqual(codes, ["LSP_PROTOCOL_ERROR", "LSP_PROTOCOL_ERROR"])
      // Not pooled: each query started (and ended) its own server; none was retried.
      assert.strictEqual(events(record, "start").length, 2)
      assert.isTrue(yield* allGone(startedPids(record)))
    }))
})

describe("LspStdio host: sources are checked before any server starts", () => {
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ["a ../ escape", "../outside.fake", "LSP_SOURCE_OUTSIDE_WORKSPACE"],
    ["an absolute path outside", "<outside>", "LSP_SOURCE_OUTSIDE_WORKSPACE"],
    ["a symlink escaping the workspace", "escape.fake", "LSP_SOURCE_OUTSIDE_WORKSPACE"],
    ["a missing file", "missing.fake", "LSP_SOURCE_NOT_FOUND"],
    ["a directory", "dir.fake", "LSP_SOURCE_NOT_A_FILE"],
    ["a binary file", "binary.fake", "LSP_SOURCE_BINARY"],
    ["invalid UTF-8", "latin1.fake", "LSP_SOURCE_INVALID_UTF8"],
    ["a file over maxDocumentBytes", "big.fake", "LSP_SOURCE_TOO_LARGE"]
  ]
  for (const [name, file, code] of cases) {
    it.scopedLive(`${name} → ${code}`, () =>
      Effect.gen(function*() {
        const record = yield* makeRecordFile
        const workspace = yield* makeWorkspace({
          "inner/binary.fake": "abc\u0000def",
          "inner/big.fake": "x".repeat(2_000),
          "inner/dir.fake/inner.txt": "x",
          "inner/missing-not.txt": "x"
        })
        NodeFs.writeFileSync(`${workspace}/inner/latin1.fake`, Buffer.from([0x63, 0x61, 0x66, 0xe9]))
        // A real file outside the workspace, reachable by ../, by absolute path and by a symlink.
        NodeFs.writeFileSync(`${workspace}/outside.fake`, "outside\n")
        NodeFs.symlinkSync(`${workspace}/outside.fake`, `${workspace}/inner/escape.fake`)
        const config = fakeConfig({ recordFile: record, server: { maxDocumentBytes: 1_000 } })
        const path = file === "<outside>" ? `${workspace}/outside.fake` : file
        const inner = `${workspace}/inner`
        assert.strictEqual(yield* withHost(config, codeOf(query(inner, "hover", path))), code)
        assert.strictEqual(events(record, "start").length, 0, "no server was started")
      }))
  }

  const hostile: ReadonlyArray<readonly [string, (workspace: string) => string, string]> = [
    ["a symlink loop", (w) => {
      NodeFs.symlinkSync(`${w}/loop-b.fake`, `${w}/loop-a.fake`)
      NodeFs.symlinkSync(`${w}/loop-a.fake`, `${w}/loop-b.fake`)
      return "loop-a.fake"
    }, "LSP_SOURCE_NOT_FOUND"],
    ["a FIFO with no writer (must not block)", (w) => {
      NodeChild.execFileSync("mkfifo", [`${w}/pipe.fake`])
      return "pipe.fake"
    }, "LSP_SOURCE_NOT_A_FILE"],
    ["/dev/zero through a symlink inside the workspace", (w) => {
      NodeFs.symlinkSync("/dev/zero", `${w}/zero.fake`)
      return "zero.fake"
    }, "LSP_SOURCE_OUTSIDE_WORKSPACE"],
    ["an empty path", () => "", "LSP_UNAVAILABLE"],
    ["a path with NUL", () => "a\u0000b.fake", "LSP_INVALID_ARGUMENTS"]
  ]
  for (const [name, make, code] of hostile) {
    it.scopedLive(`${name} → ${code}, with no server started`, () =>
      Effect.gen(function*() {
        const record = yield* makeRecordFile
        const workspace = yield* makeWorkspace()
        const file = make(workspace)
        const config = fakeConfig({ recordFile: record })
        assert.strictEqual(yield* withHost(config, codeOf(query(workspace, "hover", file))), code)
        assert.strictEqual(events(record, "start").length, 0)
      }))
  }

  it.scopedLive("paths with spaces, #, %, ? and non-ASCII characters work and give correct file: URIs", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const name = "dir with space #1 %41?/Ünïcödé 🦀.fake"
      // The query asks at 2:1, on the second line's identifier.
      const workspace = yield* makeWorkspace({ [name]: "x\nx\n" })
      const config = fakeConfig({ recordFile: record, fake: { answers: { "textDocument/hover": null } } })
      assert.deepStrictEqual(yield* withHost(config, query(workspace, "hover", name)), { kind: "hover", hover: null })
      const uri = String(dig(messages(record, "textDocument/didOpen")[0], "params", "textDocument", "uri"))
      assert.strictEqual(uri, pathToFileURL(`${workspace}/${name}`).href)
      assert.strictEqual(fileURLToPath(uri), `${workspace}/${name}`)
      assert.include(uri, "%23")
      assert.include(uri, "%3F")
      assert.include(uri, "%2541")
    }))

  it.scopedLive("an invalid workspace root is LSP_INVALID_WORKSPACE", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const config = fakeConfig({ recordFile: record })
      assert.strictEqual(yield* withHost(config, codeOf(query("/no/such/dir"))), "LSP_INVALID_WORKSPACE")
    }))
})

describe("LspStdio host: crashes, retries and server errors", () => {
  it.scopedLive("a crash during the request is retried once on a fresh server", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const config = fakeConfig({
        recordFile: record,
        fake: { crash: "request", crashMarker: `${record}.crashed`, answers: { "textDocument/definition": [] } }
      })
      assert.strictEqual(yield* withHost(config, codeOf(query(workspace))), "success")
      assert.strictEqual(events(record, "start").length, 2)
      assert.isTrue(yield* allGone(startedPids(record)))
    }))

  it.scopedLive("a server that always crashes fails with LSP_SERVER_EXITED and its stderr tail, after one retry", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const config = fakeConfig({ recordFile: record, fake: { crash: "didOpen", exitCode: 3 } })
      const error = yield* withHost(config, errorOf(query(workspace)))
      assert.strictEqual(error.code, "LSP_SERVER_EXITED")
      assert.include(error.message, "fake-server: crashing at didOpen")
      assert.include(error.message, "exited with code 3")
      assert.strictEqual(events(record, "start").length, 2)
      // The error quotes the status of the server that failed: the retry's, after one restart.
      assert.match(
        error.message,
        /Server status: pid \d+, up \d+\.\d s, 1 query served, 1 restart for this workspace\.$/
      )
      assert.strictEqual(dig(error.detail, "server", "starts"), 2)
      assert.strictEqual(dig(error.detail, "server", "queriesServed"), 1)
      assert.strictEqual(dig(error.detail, "providerId"), "fake")
      // The next query starts afresh rather than reusing a dead server.
      const again = yield* withHost(config, errorOf(query(workspace)))
      assert.strictEqual(again.code, "LSP_SERVER_EXITED")
    }))

  it.scopedLive("a server that exits at once is reported as exited (with its code), not as a failed write", () =>
    Effect.gen(function*() {
      const workspace = yield* makeWorkspace()
      const config = {
        servers: { quitter: { command: "/bin/false", extensionToLanguage: { fake: "fake" }, killGraceMs: 2_000 } }
      }
      const error = yield* withHost(config, errorOf(query(workspace)))
      assert.strictEqual(error.code, "LSP_SERVER_EXITED")
      assert.include(error.message, "exited with code 1")
      // Without the retry of a query (doctor's start), the write failure races the exit: it must lose.
      const reports = yield* Effect.forEach(
        Array.from({ length: 8 }, () => config),
        (c) => LspStdio.diagnose(c, workspace).pipe(Effect.provide(NodeContext.layer)),
        { concurrency: 4 }
      )
      assert.deepStrictEqual([...new Set(reports.map(([r]) => r?.error?.code))], ["LSP_SERVER_EXITED"])
    }))

  it.scopedLive("a crash before the initialize reply is a coded error, and nothing is left running", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const config = fakeConfig({ recordFile: record, fake: { crash: "beforeInitialize" } })
      const error = yield* withHost(config, errorOf(query(workspace)))
      assert.strictEqual(error.code, "LSP_SERVER_EXITED")
      // It never started: the error says which start this was.
      assert.include(
        error.message,
        `Server status: start 2 of the "fake" server for this workspace (1 restart before it).`
      )
      assert.deepStrictEqual(dig(error.detail, "server"), { starts: 2, restarts: 1 })
      assert.isTrue(yield* allGone(startedPids(record)))
    }))

  it.scopedLive("an error response is LSP_SERVER_ERROR with the JSON-RPC code, and is not retried", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const config = fakeConfig({
        recordFile: record,
        fake: { answers: { "textDocument/hover": { $error: { code: -32603, message: "internal trouble" } } } }
      })
      const error = yield* withHost(config, errorOf(query(workspace, "hover")))
      assert.strictEqual(error.code, "LSP_SERVER_ERROR")
      assert.strictEqual(dig(error.detail, "code"), -32603)
      assert.include(error.message, "internal trouble")
      assert.strictEqual(messages(record, "textDocument/hover").length, 1)
      // The document was still closed, on the same live server.
      assert.strictEqual(messages(record, "textDocument/didClose").length, 1)
    }))

  it.scopedLive("a response without result is LSP_MALFORMED_RESPONSE, not retried", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const config = fakeConfig({
        recordFile: record,
        fake: { answers: { "textDocument/definition": { $noResult: true } } }
      })
      assert.strictEqual(yield* withHost(config, codeOf(query(workspace))), "LSP_MALFORMED_RESPONSE")
      assert.strictEqual(events(record, "start").length, 1)
    }))

  it.scopedLive("garbage on the wire is a protocol error; the query is retried once, then fails", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const config = fakeConfig({ recordFile: record, fake: { garbage: "request" } })
      assert.strictEqual(yield* withHost(config, codeOf(query(workspace))), "LSP_PROTOCOL_ERROR")
      assert.strictEqual(events(record, "start").length, 2)
      assert.isTrue(yield* allGone(startedPids(record)))
    }))

  it.scopedLive("an answer over maxMessageBytes fails its query alone, and the same server answers the next", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const location = {
        uri: "file:///x.fake",
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }
      }
      const config = fakeConfig({
        recordFile: record,
        // ~7 KB of references against a 2,000-byte limit.
        fake: { answers: { "textDocument/references": Array.from({ length: 100 }, () => location) } },
        server: { maxMessageBytes: 2_000 }
      })
      const [tooLarge, next] = yield* withHost(
        config,
        Effect.all([Effect.flip(query(workspace, "findReferences")), codeOf(query(workspace, "goToDefinition"))])
      )
      assert.strictEqual(tooLarge.code, "LSP_RESPONSE_TOO_LARGE")
      assert.include(tooLarge.message, "over the limit of 2000 bytes (maxMessageBytes)")
      assert.strictEqual(tooLarge.detail?.method, "textDocument/references")
      assert.strictEqual(next, "success")
      // Neither retried nor restarted: one server answered both.
      assert.strictEqual(events(record, "start").length, 1)
    }))

  it.scopedLive("an oversize frame is refused before its body is buffered", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const config = fakeConfig({
        recordFile: record,
        fake: { oversize: "request" },
        server: { maxMessageBytes: 1_000 }
      })
      assert.strictEqual(yield* withHost(config, codeOf(query(workspace))), "LSP_PROTOCOL_ERROR")
    }))
})

describe("LspStdio host: server-to-client requests", () => {
  it.scopedLive("configuration is answered per item; applyEdit and unknown methods are refused", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const config = fakeConfig({
        recordFile: record,
        fake: {
          serverRequestsAt: "request",
          serverRequests: [
            { method: "workspace/configuration", params: { items: [{ section: "a" }, { section: "b" }] } },
            { method: "workspace/applyEdit", params: { edit: { changes: {} } } },
            { method: "client/registerCapability", params: { registrations: [] } },
            { method: "x/unknown" }
          ],
          answers: { "textDocument/hover": null }
        },
        server: { configuration: { tabSize: 2 } }
      })
      yield* withHost(config, query(workspace, "hover"))
      const answers = readRecord(record).filter((r) => r.type === "answer")
      const byMethod = Object.fromEntries(answers.map((a) => [a.method, a]))
      assert.deepStrictEqual(byMethod["workspace/configuration"]?.result, [{ tabSize: 2 }, { tabSize: 2 }])
      assert.strictEqual(byMethod["workspace/applyEdit"]?.error?.code, -32601)
      assert.strictEqual(byMethod["client/registerCapability"]?.result, null)
      assert.strictEqual(byMethod["x/unknown"]?.error?.code, -32601)
      assert.include(byMethod["x/unknown"]?.error?.message ?? "", "x/unknown")
    }))
})

describe("LspStdio host: no shell, ever", () => {
  it.scopedLive("arguments and environment values reach the server verbatim and are never interpreted", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const marker = `${record}.pwned`
      const config = fakeConfig({
        recordFile: record,
        fake: { echoEnv: ["INJECT"], answers: { "textDocument/hover": null } }
      })
      const hostile = {
        servers: {
          fake: {
            ...config.servers.fake!,
            args: [
              ...config.servers.fake!.args ?? [],
              `$(touch ${marker})`,
              `; touch ${marker}`,
              `\`touch ${marker}\``
            ],
            env: { ...config.servers.fake!.env, INJECT: `$(touch ${marker})` }
          }
        }
      }
      assert.strictEqual(yield* withHost(hostile, codeOf(query(workspace, "hover"))), "success")
      assert.isFalse(NodeFs.existsSync(marker), "nothing was run by a shell")
      assert.deepStrictEqual(dig(events(record, "start")[0], "env"), { INJECT: `$(touch ${marker})` })
    }))
})

describe("LspStdio host: cancellation and ordering", () => {
  it.scopedLive("interrupting a query in flight sends $/cancelRequest; a server that honours it stays", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const config = fakeConfig({
        recordFile: record,
        fake: { answerDelayMs: { "textDocument/hover": 60_000 }, answers: { "textDocument/hover": null } }
      })
      yield* withHost(
        config,
        Effect.gen(function*() {
          const fiber = yield* Effect.fork(query(workspace, "hover"))
          yield* waitForRecord(record, (all) => all.some((r) => r.method === "textDocument/hover"))
          yield* Fiber.interrupt(fiber)
          yield* waitForRecord(record, (all) => all.some((r) => r.method === "textDocument/didClose"))
          // The next query waits its turn and runs on the same server.
          assert.strictEqual(yield* codeOf(query(workspace, "goToDefinition")), "success")
        })
      )
      const [hover] = messages(record, "textDocument/hover")
      assert.deepStrictEqual(dig(messages(record, "$/cancelRequest")[0], "params"), { id: hover?.id })
      assert.strictEqual(events(record, "start").length, 1)
    }))

  it.scopedLive("a server that ignores $/cancelRequest is torn down after killGraceMs", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const config = fakeConfig({
        recordFile: record,
        fake: {
          ignoreCancel: true,
          answerDelayMs: { "textDocument/hover": 60_000 },
          answers: { "textDocument/hover": null, "textDocument/definition": [] }
        },
        server: { killGraceMs: 200 }
      })
      yield* withHost(
        config,
        Effect.gen(function*() {
          const fiber = yield* Effect.fork(query(workspace, "hover"))
          yield* waitForRecord(record, (all) => all.some((r) => r.method === "textDocument/hover"))
          yield* Fiber.interrupt(fiber)
          // Queued behind the cleanup: runs on a fresh server, never beside the stale request.
          assert.strictEqual(yield* codeOf(query(workspace, "goToDefinition")), "success")
          // The stale server is gone now, not only when the host closes.
          const [stale] = startedPids(record)
          yield* allGone([stale!]).pipe(
            Effect.repeat({ until: (gone) => gone, schedule: Schedule.spaced("20 millis") }),
            Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("the stale server survived") })
          )
        })
      )
      assert.strictEqual(events(record, "start").length, 2)
      assert.strictEqual(messages(record, "textDocument/didClose").length, 1)
    }))

  it.scopedLive("queries on one workspace run one at a time, in arrival order, each reading the file at its turn", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const config = fakeConfig({
        recordFile: record,
        fake: { answerDelayMs: { "textDocument/hover": 30 }, answers: { "textDocument/hover": null } }
      })
      yield* withHost(
        config,
        Effect.gen(function*() {
          const fibers: Array<Fiber.RuntimeFiber<unknown, LspError.LspError>> = []
          for (let i = 0; i < 5; i++) {
            NodeFs.writeFileSync(`${workspace}/main.fake`, `version ${i}\n`)
            fibers.push(yield* Effect.fork(query(workspace, "hover")))
            yield* waitForRecord(record, () => true)
          }
          yield* Fiber.joinAll(fibers)
        })
      )
      const lifecycle = readRecord(record)
        .filter((r) => r.type === "message" && String(r.method).startsWith("textDocument/"))
        .map((r) => r.method)
      assert.deepStrictEqual(
        lifecycle,
        Array.from({ length: 5 }, () => ["textDocument/didOpen", "textDocument/hover", "textDocument/didClose"]).flat()
      )
    }))
})
