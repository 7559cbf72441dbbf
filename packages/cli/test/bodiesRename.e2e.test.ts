import { assert, describe, it } from "@effect/vitest"
import { LspResult } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { runCli, workspace } from "./support/cli.js"
import { fakeWorkspace, serve } from "./support/remote.js"

// `--body` and `renamePreview` through the compiled command against the real typescript-language-server on
// the fixture workspace (shape.ts: an interface Shape and a class Circle; main.ts uses them).
const timeout = 60_000

const query = (...args: Array<string>) => runCli(["query", ...args])

const decodeResult = Schema.decodeUnknownSync(LspResult.LspQueryResult)

const fixtureLines = (file: string) => NodeFs.readFileSync(NodePath.join(workspace, file), "utf8").split("\n")

/** A hash of every file of the fixture workspace. */
const hashes = () =>
  Object.fromEntries(
    NodeFs.readdirSync(workspace).map((name) => [
      name,
      NodeCrypto.createHash("sha256").update(NodeFs.readFileSync(NodePath.join(workspace, name))).digest("hex")
    ])
  )

describe.concurrent("lsp-seam query --body and renamePreview against typescript-language-server", () => {
  it.live(
    "goToDefinition --body prints the class's code below it, once, with line numbers",
    () =>
      Effect.gen(function*() {
        const run = yield* query("goToDefinition", "main.ts:3:36", "--body")
        const shape = fixtureLines("shape.ts")
        const code = shape.slice(6, 13).map((line, i) => `    ${String(i + 7).padStart(2)}  ${line}`)
        assert.deepStrictEqual(run, {
          code: 0,
          stdout: ["shape.ts:7:14", ...code, "shape.ts:8:3", ""].join("\n"),
          stderr: ""
        })
      }),
    timeout
  )

  it.live("goToDefinition --body --json carries each body, the file's own text", () =>
    Effect.gen(function*() {
      const run = yield* query("goToDefinition", "main.ts:3:36", "--body", "--json")
      assert.strictEqual(run.code, 0)
      const result = decodeResult(JSON.parse(run.stdout))
      assert.strictEqual(result.kind, "locations")
      if (result.kind !== "locations") return
      const shape = fixtureLines("shape.ts")
      assert.deepStrictEqual(result.locations.map((l) => l.body?.text), [
        shape.slice(6, 13).join("\n"),
        shape.slice(7, 8).join("\n")
      ])
    }), timeout)

  it.live("renamePreview --new-name lists the edits and writes nothing", () =>
    Effect.gen(function*() {
      const before = hashes()
      const run = yield* query("renamePreview", "shape.ts:7:14", "--new-name", "Round")
      assert.deepStrictEqual(hashes(), before)
      assert.deepStrictEqual(run, {
        code: 0,
        stdout: [
          "Rename preview: 4 edits in 2 files. Nothing was written: apply these edits with your own edit tool.",
          "main.ts:1:10  Circle → Round",
          "main.ts:3:35  Circle → Round",
          "main.ts:3:50  Circle → Round",
          "shape.ts:7:14  Circle → Round",
          ""
        ].join("\n"),
        stderr: ""
      })
    }), timeout)

  it.live(
    "a keyword cannot be renamed: error[LSP_CANNOT_RENAME], exit 1, nothing written",
    () =>
      Effect.gen(function*() {
        const before = hashes()
        const run = yield* query("renamePreview", "main.ts:5:1", "--new-name", "x")
        assert.deepStrictEqual(hashes(), before)
        assert.strictEqual(run.code, 1)
        assert.match(run.stderr, /^error\[LSP_CANNOT_RENAME\]: /)
        assert.strictEqual(run.stdout, "")
      }),
    timeout
  )

  it.live(
    "--body and --new-name belong to their operations; renamePreview needs --new-name: usage errors",
    () =>
      Effect.gen(function*() {
        for (
          const args of [
            ["findReferences", "main.ts:3:36", "--body"],
            ["renamePreview", "shape.ts:7:14"],
            ["hover", "main.ts:3:36", "--new-name", "x"]
          ]
        ) {
          const run = yield* query(...args)
          assert.strictEqual(run.code, 2, args.join(" "))
          assert.strictEqual(run.stdout, "")
        }
      }),
    timeout
  )
})

describe("lsp-seam query --body and renamePreview through a running host (--remote)", () => {
  it.scopedLive("answer exactly as the local command does", () =>
    Effect.gen(function*() {
      const fake = yield* fakeWorkspace({})
      const served = yield* serve(["--socket", NodePath.join(fake.runtimeDir, "host.sock")], { cwd: workspace })
      const socket = served.address.replace(/^unix:/, "")
      for (
        const args of [
          ["goToDefinition", "main.ts:3:36", "--body"],
          ["renamePreview", "shape.ts:7:14", "--new-name", "Round"],
          ["renamePreview", "shape.ts:7:14", "--new-name", "Round", "--json"]
        ]
      ) {
        const before = hashes()
        const remote = yield* query(...args, "--remote", socket)
        const local = yield* query(...args)
        assert.strictEqual(local.code, 0, local.stderr)
        assert.deepStrictEqual(remote, local, args.join(" "))
        assert.deepStrictEqual(hashes(), before)
      }
    }), 120_000)
})
