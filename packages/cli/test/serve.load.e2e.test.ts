import { assert, describe, it } from "@effect/vitest"
import { LspRemoteClient } from "@lsp-seam/lsp-remote"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as ChildProcess from "node:child_process"
import * as NodePath from "node:path"
import { bin, runCli } from "./support/cli.js"
import { alive, fakeWorkspace, readRecord, serve, waitFor } from "./support/remote.js"

// Many clients on one `lsp-seam serve`, and one of them killed while its queries run and wait: the host must
// cancel what it asked for that client and forget what it queued, and serve the others on. Real processes
// throughout: the compiled daemon, an `lsp-seam mcp --remote` session, `lsp-seam query --remote` commands.
const timeout = 90_000

const socketOf = (address: string) => address.replace(/^unix:/, "")

/** An `lsp-seam mcp --remote` process spoken to in raw MCP lines, so the test holds its pid and its stdin. */
const mcpSession = (socket: string, cwd: string) =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        ChildProcess.spawn(process.execPath, [bin, "mcp", "--remote", socket, "--cwd", cwd], {
          cwd,
          stdio: ["pipe", "pipe", "ignore"]
        })
      ),
      (child) => Effect.sync(() => child.kill("SIGKILL"))
    )
    let out = ""
    child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")))
    const send = (message: object) => child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`)
    send({
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "load-test", version: "0" } }
    })
    yield* waitFor("the MCP session to initialize", () => out.includes("\"id\":0"), 30_000)
    send({ method: "notifications/initialized" })
    const call = (id: number, operation: string, character: number) =>
      send({
        id,
        method: "tools/call",
        params: {
          name: "lsp",
          arguments: { operation, file_path: "fake.fake", line: operation === "hover" ? 1 : 2, character }
        }
      })
    const killed = Effect.async<void>((resume) => {
      if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
      child.once("exit", () => resume(Effect.void))
    })
    return { child, call, kill: Effect.zipRight(Effect.sync(() => child.kill("SIGKILL")), killed) }
  })

describe("many clients on one host", () => {
  it.scopedLive(
    "a client killed mid-query under load: its running query is cancelled, its queued ones never reach the " +
      "server, the other clients get their answers and nothing stays queued",
    () =>
      Effect.gen(function*() {
        // Hovers take a minute at the server (or until cancelled): one holds the server while the rest queue.
        const fake = yield* fakeWorkspace({
          fake: { extension: ".fake", fake: { answerDelayMs: { "textDocument/hover": 60_000 } } }
        })
        const served = yield* serve(["--socket", NodePath.join(fake.runtimeDir, "host.sock"), "--no-prewarm"], {
          cwd: fake.dir
        })
        const socket = socketOf(served.address)
        const observer = yield* LspRemoteClient.make({ transport: LspRemoteClient.socket(socket) })
        const queued = (n: number) =>
          Effect.gen(function*() {
            const deadline = Date.now() + 30_000
            while ((yield* observer.status).find((server) => server.providerId === "fake")?.queued !== n) {
              if (Date.now() > deadline) return yield* Effect.die(new Error(`never ${n} queued`))
              yield* Effect.sleep("20 millis")
            }
          })
        const received = (method: string) =>
          readRecord(fake.record("fake")).filter((r) => r.type === "message" && r.method === method)
        const definitionsAt = () =>
          received("textDocument/definition").map((r) =>
            (r.params as { readonly position: { readonly character: number } }).position.character
          )
        const cli = (character: number) =>
          Effect.fork(runCli(["query", "goToDefinition", `fake.fake:2:${character + 1}`, "--remote", socket], {
            cwd: fake.dir
          }))

        const victim = yield* mcpSession(socket, fake.dir)
        victim.call(1, "hover", 1)
        yield* waitFor("the victim's hover to reach the server", () => received("textDocument/hover").length === 1)
        // Then, one at a time once the previous one is seen waiting: a command, two more of the victim's calls
        // (one-based columns 3 and 4 are zero-based 2 and 3), another command.
        const first = yield* cli(1)
        yield* queued(1)
        victim.call(2, "goToDefinition", 3)
        yield* queued(2)
        victim.call(3, "findReferences", 4)
        yield* queued(3)
        const last = yield* cli(4)
        yield* queued(4)
        assert.deepStrictEqual(definitionsAt(), [])

        yield* victim.kill
        // The running hover is cancelled at the server…
        yield* waitFor("$/cancelRequest for the hover", () => received("$/cancelRequest").length === 1, 15_000)
        const [hover] = received("textDocument/hover")
        assert.deepStrictEqual(
          received("$/cancelRequest").map((r) => (r.params as { readonly id: unknown }).id),
          [hover?.id]
        )
        // …and the commands, queued before and after the victim's calls, answer in their order.
        const answers = [yield* Fiber.join(first), yield* Fiber.join(last)]
        for (const answer of answers) assert.strictEqual(answer.code, 0, answer.stderr)
        assert.deepStrictEqual(answers.map((answer) => answer.stdout), ["fake.fake:2:2\n", "fake.fake:2:5\n"])
        // The victim's queued calls never reached the server, and nothing waits any more.
        assert.deepStrictEqual(definitionsAt(), [1, 4])
        assert.deepStrictEqual(received("textDocument/references"), [])
        yield* queued(0)
        const [server] = (yield* observer.status).filter((s) => s.providerId === "fake")
        assert.strictEqual(server?.state, "idle")
        assert.isTrue(alive(served.pid))
      }),
    timeout
  )
})
