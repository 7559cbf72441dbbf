import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as QuickQuery from "../src/internal/query/quickQuery.js"
import { parse } from "../src/internal/query/remoteQuery.js"
import { runCli, scopedTempDir, workspace } from "./support/cli.js"
import { processesWith, serve, waitFor } from "./support/remote.js"

// The remote query's edge (internal/query/quickQuery.ts) against a real host on typescript-language-server: what it
// answers is what the full command answers locally, byte for byte, and what it leaves alone the full client
// answers (the compiled command, which offers every `query --remote` to the edge first).
// Each local run starts its own typescript-language-server: several seconds apiece on a loaded machine.
const timeout = 300_000

/** The edge in this process: its exit code and what it wrote (nothing when it declined). */
const edge = (args: ReadonlyArray<string>, environment?: NodeJS.ProcessEnv) =>
  Effect.promise(async () => {
    let written = ""
    let errors = ""
    const code = await QuickQuery.run(parse(args)!, {
      // As the command's environment in runCli: the test's, with these variables over it.
      environment: { ...process.env, ...environment },
      output: async (text) => {
        written += text
      },
      errorOutput: async (text) => {
        errors += text
      }
    })
    return errors === "" ? { code, written } : { code, written, errors }
  })

const navigation: ReadonlyArray<readonly [string, string]> = [
  ["goToDefinition", "main.ts:3:36"],
  ["findReferences", "shape.ts:7:14"],
  ["goToImplementation", "shape.ts:2:18"],
  ["goToTypeDefinition", "main.ts:5:58"],
  ["hover", "shape.ts:7:14"]
]

describe("the edge of query --remote", () => {
  it("is bundled without the Effect runtime, the Schemas or the RPC client", () => {
    // What went into dist/quickQuery.bundle.cjs (the global setup made it, as `npm run build` does).
    const manifest: unknown = JSON.parse(
      NodeFs.readFileSync(new URL("../dist/quickQuery.bundle.json", import.meta.url), "utf8")
    )
    const listed = typeof manifest === "object" && manifest !== null && "inputs" in manifest ? manifest.inputs : []
    assert.isTrue(Array.isArray(listed))
    const entries: ReadonlyArray<unknown> = Array.isArray(listed) ? listed : []
    const inputs = entries.flatMap((entry) => Array.isArray(entry) && typeof entry[0] === "string" ? [entry[0]] : [])
    assert.isTrue(inputs.some((file) => file.endsWith("internal/query/quickQuery.js")))
    assert.isTrue(inputs.some((file) => file.endsWith("tool-lsp/dist/internal/render.js")), "the tool's renderer")
    const forbidden = [
      /effect\/dist\/esm\/(Schema|ParseResult|Effect|Layer|Stream)\.js$/,
      /effect\/dist\/esm\/internal\/fiberRuntime\.js$/,
      /@effect\/(rpc|platform|platform-node|cli|ai)\//,
      /\/(LspResult|LspError|LspQuery|LspToolInput|LspRemoteClient)\.js$/
    ]
    for (const pattern of forbidden) {
      assert.deepStrictEqual(inputs.filter((file) => pattern.test(file)), [], `${pattern}`)
    }
  })

  it.scopedLive(
    "answers each navigation operation and hover, text and --json, exactly as the full command does locally",
    () =>
      Effect.gen(function*() {
        const runtime = yield* scopedTempDir("edge-socket")
        const served = yield* serve(["--socket", NodePath.join(runtime, "host.sock")], { cwd: workspace })
        const socket = served.address.replace(/^unix:/, "")
        for (const [operation, target] of navigation) {
          for (const json of [[], ["--json"]]) {
            const local = yield* runCli(["query", operation, target, ...json])
            assert.strictEqual(local.code, 0, local.stderr)
            assert.notStrictEqual(local.stdout, "No results.\n", `${operation} finds something`)
            const args = ["query", operation, target, ...json, "--remote", socket, "--cwd", workspace]
            assert.deepStrictEqual(yield* edge(args), { code: 0, written: local.stdout }, args.join(" "))
            // Through the compiled command, which offers it to the edge first.
            assert.deepStrictEqual(yield* runCli(args), local)
          }
        }
        // The host's coded errors: exit 1 and `error[CODE]: message` on stderr, as the full command says it locally.
        for (const args of [["query", "goToDefinition", "nope.ts:1:1"], ["query", "findReferences", "main.ts:99:1"]]) {
          const local = yield* runCli(args)
          assert.strictEqual(local.code, 1)
          assert.match(local.stderr, /^error\[LSP_[A-Z_]+\]: /)
          const remote = [...args, "--remote", socket, "--cwd", workspace]
          assert.deepStrictEqual(yield* edge(remote), { code: 1, written: local.stdout, errors: local.stderr })
          assert.deepStrictEqual(yield* runCli(remote), local)
        }
        // Declined: another kind of answer, an option it does not take, a position the tool refuses. The full
        // client answers each, as it does locally.
        for (
          const [args, compare] of [
            [["query", "documentSymbol", "shape.ts"], false],
            [["query", "goToDefinition", "main.ts:3", "--symbol", "Circle"], false],
            [["query", "goToDefinition", "main.ts:0:1"], true]
          ] as const
        ) {
          const remote = [...args, "--remote", socket, "--cwd", workspace]
          assert.deepStrictEqual(yield* edge(remote), { code: undefined, written: "" }, args.join(" "))
          const answered = yield* runCli(remote)
          // (other operations and --symbol through the full client are compared with local runs elsewhere: serve.e2e)
          if (compare) assert.deepStrictEqual(answered, yield* runCli(args), args.join(" "))
          else assert.strictEqual(answered.code, 0, answered.stderr)
        }
        // A socket nothing listens on: the full client's LSP_REMOTE_UNAVAILABLE.
        const none = ["query", "goToDefinition", "main.ts:3:36", "--remote", NodePath.join(runtime, "none.sock")]
        assert.deepStrictEqual(yield* edge(none), { code: undefined, written: "" })
        const unavailable = yield* runCli(none)
        assert.strictEqual(unavailable.code, 1)
        assert.match(unavailable.stderr, /^error\[LSP_REMOTE_UNAVAILABLE\]: /)
      }),
    timeout
  )

  it.scopedLive(
    "with --remote auto, finds the daemon the full client started and answers as it does",
    () =>
      Effect.gen(function*() {
        const runtime = yield* scopedTempDir("edge-auto")
        const env = { XDG_RUNTIME_DIR: runtime, LSP_SEAM_IDLE_EXIT: "30s" }
        yield* Effect.addFinalizer(() =>
          Effect.gen(function*() {
            for (const pid of processesWith(runtime)) process.kill(pid, "SIGTERM")
            yield* waitFor("the daemon to stop", () => processesWith(runtime).length === 0, 10_000)
          }).pipe(Effect.orDie)
        )
        const args = ["query", "goToDefinition", "main.ts:3:36", "--remote", "auto"]
        // No daemon yet: the edge never starts one, and leaves the query to the full client, which does.
        assert.deepStrictEqual(yield* edge([...args, "--cwd", workspace], env), { code: undefined, written: "" })
        const local = yield* runCli(args.slice(0, 3))
        const first = yield* runCli(args, { env })
        assert.deepStrictEqual(first, local)
        assert.lengthOf(NodeFs.readdirSync(NodePath.join(runtime, "lsp-seam")).filter((f) => f.endsWith(".sock")), 1)
        // Now the edge finds that daemon, greets it and answers.
        assert.deepStrictEqual(yield* edge([...args, "--cwd", workspace], env), { code: 0, written: local.stdout })
        const localJson = yield* runCli([...args.slice(0, 3), "--json"])
        assert.deepStrictEqual(yield* edge([...args, "--json", "--cwd", workspace], env), {
          code: 0,
          written: localJson.stdout
        })
        assert.deepStrictEqual(yield* runCli([...args, "--json"], { env }), localJson)
        // Another configuration (a --config the daemon was not started with) is another daemon: not this one.
        const config = NodePath.join(runtime, "other.json")
        NodeFs.writeFileSync(config, JSON.stringify({ servers: {} }))
        assert.deepStrictEqual(yield* edge([...args, "--cwd", workspace, "--config", config], env), {
          code: undefined,
          written: ""
        })
      }),
    timeout
  )
})
