/**
 * The library as an Effect team adopts it: the five library packages packed (`npm pack`), installed from their
 * tarballs into a fresh project beside `effect` and the `@effect/*` peers from the registry, pinned to the
 * versions this repository runs, then `test/fixtures/embed/main.ts` type-checked there and run. The command
 * line is not installed, and nothing pulls `@effect/cli` in. No skip: an unreachable registry fails the test.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { scopedTempDir } from "./support/cli.js"
import { install, installed, pack, pinnedPeers, root, run, tsc } from "./support/packed.js"

const libraries = ["lsp", "lsp-stdio", "lsp-remote", "tool-lsp", "setup"] as const
const fixture = NodePath.join(import.meta.dirname, "fixtures", "embed")
const fakeServer = NodePath.join(root, "packages", "lsp-stdio", "test", "fixtures", "fake-server.mjs")

const Seen = Schema.parseJson(Schema.Struct({
  ai: Schema.Struct({ isFailure: Schema.Boolean, encoded: Schema.Unknown }),
  mcp: Schema.Struct({
    answered: Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.String })),
    late: Schema.Struct({
      isError: Schema.Boolean,
      content: Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.String }))
    })
  }),
  timeout: Schema.String,
  family: Schema.String,
  auto: Schema.String
}))

describe("embedding the packed libraries in a fresh Effect 3 project", () => {
  it.scopedLive(
    "type-checks and runs: stdio host, @effect/ai toolkit, MCP, a timeout caught by tag; one effect",
    () =>
      Effect.gen(function*() {
        const dir = yield* scopedTempDir("embed")
        const app = NodePath.join(dir, "app")
        const workspace = NodePath.join(dir, "workspace")
        NodeFs.mkdirSync(app)
        NodeFs.mkdirSync(workspace)
        NodeFs.writeFileSync(NodePath.join(workspace, "main.fake"), "first\nsecond line\n")

        const packed = yield* pack(libraries, dir)
        assert.strictEqual(packed.length, libraries.length)

        NodeFs.writeFileSync(
          NodePath.join(app, "package.json"),
          JSON.stringify({ name: "embed-app", private: true, type: "module" })
        )
        const peers = pinnedPeers(libraries)
        assert.include(peers, `effect@${installed("effect").version}`)
        assert.match(installed("effect").version, /^3\./)
        yield* install(app, [...packed, ...peers, `@types/node@${installed("@types/node").version}`])

        const copies = (yield* run("npm", ["ls", "effect", "--all", "--parseable"], app)).split("\n").filter((l) =>
          l.length > 0
        )
        assert.deepStrictEqual(copies, [NodePath.join(app, "node_modules", "effect")], "one copy of effect")
        const cli = (yield* run("npm", ["ls", "--all", "--parseable"], app)).split("\n").filter((line) =>
          line.includes(`${NodePath.sep}@lsp-seam${NodePath.sep}cli`) ||
          line.includes(`${NodePath.sep}@effect${NodePath.sep}cli`)
        )
        assert.deepStrictEqual(cli, [], "neither @lsp-seam/cli nor @effect/cli is installed")
        assert.isTrue(NodeFs.existsSync(NodePath.join(app, "node_modules", "@lsp-seam", "setup")))

        for (const file of ["main.ts", "tsconfig.json"]) {
          NodeFs.copyFileSync(NodePath.join(fixture, file), NodePath.join(app, file))
        }
        yield* run(process.execPath, [tsc, "-p", NodePath.join(app, "tsconfig.json")], app)

        const seen = Schema.decodeUnknownSync(Seen)(
          yield* run(process.execPath, [NodePath.join(app, "dist", "main.js"), fakeServer, workspace], app)
        )
        assert.deepStrictEqual(seen.ai, { isFailure: false, encoded: "hover from the fake server" })
        assert.deepStrictEqual(seen.mcp.answered, [{ type: "text", text: "hover from the fake server" }])
        assert.isTrue(seen.mcp.late.isError)
        assert.match(seen.mcp.late.content[0]?.text ?? "", /^error\[LSP_TIMEOUT\]: /)
        assert.strictEqual(seen.timeout, "caught LspTimeoutError LSP_TIMEOUT")
        assert.strictEqual(seen.family, "LspTimeoutError")
        assert.match(seen.auto, /^LSP_INVALID_CONFIG .*npm install @lsp-seam\/cli/)
      }),
    { timeout: 600_000 }
  )
})
