import { assert, describe, it } from "@effect/vitest"
import { LspDeadline, LspService } from "@lsp-seam/lsp"
import { LspRpc } from "@lsp-seam/lsp-remote"
import { LspToolHandler } from "@lsp-seam/tool-lsp"
import { Effect, Fiber, Option, TestClock } from "effect"
import type * as Scope from "effect/Scope"
import * as Net from "node:net"
import * as NodePath from "node:path"
import * as CommandBudget from "../src/internal/query/commandBudget.js"
import * as QuickQuery from "../src/internal/query/quickQuery.js"
import { parse, withinCommandBudget } from "../src/internal/query/remoteQuery.js"
import { scopedTempDir } from "./support/cli.js"

// One budget per `query --remote` command: its edge and the full client after it share the tool's 60 s,
// counted from the command's start (they took 60 s each). The budget's arithmetic on the TestClock; the edge
// against a host on a real socket that greets and then never answers.

/** A host on a Unix socket speaking the wire's ndjson: it greets, and answers a query with `query` (or never). */
const host = (query: ((id: string) => unknown) | undefined): Effect.Effect<string, never, Scope.Scope> =>
  Effect.gen(function*() {
    const dir = yield* scopedTempDir("budget-host")
    const path = NodePath.join(dir, "host.sock")
    yield* Effect.acquireRelease(
      Effect.async<Net.Server>((resume) => {
        const server = Net.createServer((socket) => {
          let buffered = ""
          socket.setEncoding("utf8")
          socket.on("error", () => {})
          socket.on("data", (chunk: string) => {
            buffered += chunk
            let newline: number
            while ((newline = buffered.indexOf("\n")) >= 0) {
              const message = JSON.parse(buffered.slice(0, newline)) as { tag?: string; id?: string }
              buffered = buffered.slice(newline + 1)
              const id = String(message.id)
              const hello = {
                protocolRevision: LspRpc.protocolRevision,
                version: LspRpc.version,
                fingerprint: "",
                pid: process.pid,
                statusAvailable: false
              }
              const reply = message.tag === "Hello" ? { _tag: "Success", value: hello } : query?.(id)
              if (reply !== undefined) {
                socket.write(`${JSON.stringify({ _tag: "Exit", requestId: id, exit: reply })}\n`)
              }
            }
          })
        })
        server.listen(path, () => resume(Effect.succeed(server)))
      }),
      (server) => Effect.sync(() => server.close())
    )
    return path
  })

/** The edge in this process, for a command started `spentMs` ago: its exit code and what it wrote. */
const edge = (socket: string, spentMs: number) =>
  Effect.promise(async () => {
    let errors = ""
    const started = Date.now()
    const code = await QuickQuery.run(parse(["query", "hover", "a.ts:1:1", "--remote", socket])!, {
      startedAt: started - spentMs,
      output: async () => {},
      errorOutput: async (text) => {
        errors += text
      }
    })
    return { code, errors, ms: Date.now() - started }
  })

describe("one budget per query --remote command", () => {
  it.effect("the edge's timeout says what the tool's does", () =>
    Effect.gen(function*() {
      const never = LspService.LspService.of({ registerProvider: () => Effect.void, query: () => Effect.never })
      const fiber = yield* Effect.fork(Effect.flip(
        LspToolHandler.budgetedQuery(
          { operation: "hover", filePath: "a.ts", position: { line: 0, character: 0 }, workspaceRoot: "/w" },
          CommandBudget.timeoutMs
        ).pipe(Effect.provideService(LspService.LspService, never))
      ))
      yield* TestClock.adjust(CommandBudget.timeoutMs)
      assert.strictEqual((yield* Fiber.join(fiber)).message, CommandBudget.timeoutMessage())
    }))

  it.effect("the full client gets what the edge left: its deadline and its cut-off", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust("50 seconds")
      const fiber = yield* Effect.fork(Effect.flip(withinCommandBudget(
        Effect.zipRight(
          Effect.flatMap(LspDeadline.remaining, (left) =>
            Effect.sync(() => assert.deepStrictEqual(left, Option.some(10_000)))),
          Effect.never
        ),
        0
      )))
      yield* TestClock.adjust("9999 millis")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.code, "LSP_TIMEOUT")
      assert.strictEqual(error.message, CommandBudget.timeoutMessage())
      // Nothing left: it fails at once, without asking.
      assert.strictEqual((yield* Effect.flip(withinCommandBudget(Effect.never, 0))).code, "LSP_TIMEOUT")
    }))

  it.scopedLive(
    "the edge spends only what is left, then reports LSP_TIMEOUT itself (no second budget)",
    () =>
      Effect.gen(function*() {
        const socket = yield* host(undefined)
        const result = yield* edge(socket, CommandBudget.timeoutMs - 1_500)
        assert.strictEqual(result.code, 1)
        assert.strictEqual(result.errors, `error[LSP_TIMEOUT]: ${CommandBudget.timeoutMessage()}\n`)
        assert.isAtLeast(result.ms, 1_000)
        assert.isAtMost(result.ms, 5_000)
      }),
    20_000
  )

  it.scopedLive(
    "a host's LSP_REMOTE_UNAVAILABLE is reported by the edge, not asked again by the full client",
    () =>
      Effect.gen(function*() {
        const message =
          "The lsp-seam cluster cannot answer for the workspace \"/w\": no runner registered in sqlite:/c."
        const socket = yield* host(() => ({
          _tag: "Failure",
          cause: { _tag: "Fail", error: { _tag: "LspRemoteError", code: "LSP_REMOTE_UNAVAILABLE", message } }
        }))
        const result = yield* edge(socket, 0)
        assert.strictEqual(result.code, 1, result.errors)
        assert.strictEqual(result.errors, `error[LSP_REMOTE_UNAVAILABLE]: ${message}\n`)
      }),
    20_000
  )
})
