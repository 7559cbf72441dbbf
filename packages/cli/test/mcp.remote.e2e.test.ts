import { assert, describe, it } from "@effect/vitest"
import { selfSignedCertificate } from "@lsp-seam/lsp-remote/testing"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as NodePath from "node:path"
import * as Prewarm from "../src/internal/serve/prewarm.js"
import { bin } from "./support/cli.js"
import { alive, fakeWorkspace, processesWith, readRecord, serve, startedPids, waitFor } from "./support/remote.js"

// `lsp-seam mcp --remote …` and the MCP session's prewarm, through the official MCP SDK client.
const timeout = 60_000

const hoverFake = { answers: { "textDocument/hover": { contents: "fake hover" } } }

const ToolResult = Schema.Struct({
  content: Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) }))
})

const connect = (args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [bin, "mcp", ...args],
        cwd,
        env: { ...process.env, ...env } as Record<string, string>,
        stderr: "pipe"
      })
      const client = new Client({ name: "lsp-seam-test", version: "0.0.0" })
      await client.connect(transport)
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

const hover = (client: Client, file: string) =>
  Effect.promise(() =>
    client.callTool({ name: "lsp", arguments: { operation: "hover", file_path: file, line: 1, character: 1 } })
  ).pipe(
    Effect.map((result) => Schema.decodeUnknownSync(ToolResult)(result).content.map((part) => part.text).join(""))
  )

describe("lsp-seam mcp --remote and prewarm", () => {
  it.scopedLive("mcp --remote PATH answers tool calls through the host", () =>
    Effect.gen(function*() {
      const fake = yield* fakeWorkspace({ fake: { extension: ".fake", fake: hoverFake } })
      const served = yield* serve(["--socket", NodePath.join(fake.runtimeDir, "host.sock"), "--no-prewarm"], {
        cwd: fake.dir
      })
      const client = yield* connect(
        ["--cwd", fake.dir, "--remote", served.address.replace(/^unix:/, ""), "--no-prewarm"],
        fake.dir
      )
      assert.strictEqual(yield* hover(client, "fake.fake"), "fake hover")
      // The server is the host's: started by the host process, not by `lsp-seam mcp`.
      assert.strictEqual(startedPids(fake.record("fake")).length, 1)
    }), timeout)

  it.scopedLive("mcp --remote https://… --ca-file answers through a TLS host", () =>
    Effect.gen(function*() {
      const fake = yield* fakeWorkspace({ fake: { extension: ".fake", fake: hoverFake } })
      const { certFile: cert, keyFile: key } = selfSignedCertificate(fake.runtimeDir, "host")
      const tokenFile = NodePath.join(fake.runtimeDir, "token")
      const served = yield* serve(
        ["--listen", "127.0.0.1:0", "--token-file", tokenFile, "--tls-cert", cert, "--tls-key", key, "--no-prewarm"],
        { cwd: fake.dir }
      )
      const https = served.address.replace(/^wss:/, "https:").replace(/\/lsp-seam$/, "")
      const client = yield* connect(
        ["--cwd", fake.dir, "--remote", https, "--token-file", tokenFile, "--ca-file", cert, "--no-prewarm"],
        fake.dir
      )
      assert.strictEqual(yield* hover(client, "fake.fake"), "fake hover")
    }), timeout)

  it.scopedLive(
    "mcp prewarms the workspace's servers when the session starts (unless --no-prewarm)",
    () =>
      Effect.gen(function*() {
        const fake = yield* fakeWorkspace({
          slow: { extension: ".slow", fake: { answerDelayMs: { "textDocument/hover": 60_000 } } },
          quick: { extension: ".quick", fake: hoverFake }
        })
        const client = yield* connect(["--cwd", fake.dir], fake.dir)
        // No tool call yet: both servers are started by the prewarm.
        yield* waitFor(
          "both servers to be warmed",
          () =>
            ["slow", "quick"].every((id) => readRecord(fake.record(id)).some((r) => r.method === "textDocument/hover")),
          30_000
        )
        // The slow server's warm-up (its hover never answers) does not hold up a call to the other one.
        const started = Date.now()
        assert.strictEqual(yield* hover(client, "quick.quick"), "fake hover")
        assert.isBelow(Date.now() - started, 10_000)
        // A call to the slow server itself waits for its warm-up, which is not cancelled while the server loads,
        // but at most Prewarm.maxWarmUpMs: a hover that never answers is given up then, and the call answered.
        const definition = yield* Effect.promise(() =>
          client.callTool({
            name: "lsp",
            arguments: { operation: "goToDefinition", file_path: "slow.slow", line: 1, character: 1 }
          })
        )
        assert.strictEqual(Schema.decodeUnknownSync(ToolResult)(definition).content[0]?.text, "slow.slow:1:1")
        assert.isBelow(Date.now() - started, Prewarm.maxWarmUpMs + 10_000)

        const cold = yield* fakeWorkspace({ slow: { extension: ".slow" } })
        const plain = yield* connect(["--cwd", cold.dir, "--no-prewarm"], cold.dir)
        yield* Effect.sleep("1 second")
        assert.deepStrictEqual(startedPids(cold.record("slow")), [])
        assert.match(yield* hover(plain, "slow.slow"), /fake hover at 0:0/)
      }),
    2 * timeout
  )

  it.scopedLive(
    "mcp --remote auto: a daemon killed mid-session is started again by the next call, which is answered",
    () =>
      Effect.gen(function*() {
        const fake = yield* fakeWorkspace({ fake: { extension: ".fake", fake: hoverFake } })
        const daemons = () => processesWith(`${fake.dir}/run/lsp-seam/daemon-`)
        const client = yield* connect(["--cwd", fake.dir, "--remote", "auto", "--no-prewarm"], fake.dir, {
          ...fake.env,
          LSP_SEAM_IDLE_EXIT: "1m"
        })
        assert.strictEqual(yield* hover(client, "fake.fake"), "fake hover")
        const [first, ...others] = daemons()
        assert.isDefined(first)
        assert.deepStrictEqual(others, [])
        const [server] = startedPids(fake.record("fake"))
        process.kill(first!, "SIGKILL")
        yield* waitFor("the killed daemon to be gone", () => !alive(first!))
        // Its watchdog ends the language server it leaves behind.
        yield* waitFor("the killed daemon's language server to end", () => !alive(server!), 10_000)

        assert.strictEqual(yield* hover(client, "fake.fake"), "fake hover")
        const [second, ...more] = daemons()
        assert.isDefined(second)
        assert.notStrictEqual(second, first)
        assert.deepStrictEqual(more, [])
        assert.strictEqual(startedPids(fake.record("fake")).length, 2)
        // And the session goes on with it.
        assert.strictEqual(yield* hover(client, "fake.fake"), "fake hover")
        assert.deepStrictEqual(daemons(), [second])
      }),
    timeout
  )
})
