/**
 * The library as an Effect team adopts it: the five library packages packed (`npm pack`), installed from their
 * tarballs into a fresh project beside `effect` and the `@effect/*` peers from the registry, pinned to the
 * versions this repository runs, then `test/fixtures/embed/main.ts` type-checked there and run. The command
 * line is not installed, and nothing pulls `@effect/cli` in. No skip: an unreachable registry fails the test.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { scopedTempDir } from "./support/cli.js"

const root = NodePath.resolve(import.meta.dirname, "..", "..", "..")
const libraries = ["lsp", "lsp-stdio", "lsp-remote", "tool-lsp", "setup"] as const
const fixture = NodePath.join(import.meta.dirname, "fixtures", "embed")
const fakeServer = NodePath.join(root, "packages", "lsp-stdio", "test", "fixtures", "fake-server.mjs")

// npm run as a user would, not as the workspace's npm: no npm_* settings inherited from a parent `npm test`.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith("npm_")))

/** Runs a command to its end; fails with its output when it exits non-zero. */
const run = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  Effect.async<string, Error>((resume) => {
    const child = ChildProcess.execFile(
      command,
      args,
      { cwd, env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resume(
          error === null
            ? Effect.succeed(stdout)
            : Effect.fail(new Error(`${command} ${args.join(" ")} failed: ${error.message}\n${stdout}\n${stderr}`))
        )
      }
    )
    return Effect.sync(() => child.kill())
  })

const Manifest = Schema.Struct({
  version: Schema.String,
  peerDependencies: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
})

const manifest = (path: string) =>
  Schema.decodeUnknownSync(Schema.parseJson(Manifest))(NodeFs.readFileSync(NodePath.join(path, "package.json"), "utf8"))

const installed = (name: string) => manifest(NodePath.join(root, "node_modules", name))

const isEffect = (name: string) => name === "effect" || name.startsWith("@effect/")

/**
 * `effect` and every `@effect/*` peer of the libraries, with the peers those peers ask for in turn (npm would
 * add them), each pinned to the version installed here.
 */
const pinnedPeers = (): ReadonlyArray<string> => {
  const seen = new Set<string>()
  const visit = (peers: Readonly<Record<string, string>> | undefined) => {
    for (const name of Object.keys(peers ?? {}).filter(isEffect)) {
      if (seen.has(name)) continue
      seen.add(name)
      visit(installed(name).peerDependencies)
    }
  }
  for (const library of libraries) visit(manifest(NodePath.join(root, "packages", library)).peerDependencies)
  return [...seen].sort().map((name) => `${name}@${installed(name).version}`)
}

const Packed = Schema.parseJson(Schema.Array(Schema.Struct({ filename: Schema.String })))

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

        const packed = Schema.decodeUnknownSync(Packed)(
          yield* run("npm", [
            "pack",
            "--json",
            "--pack-destination",
            dir,
            ...libraries.flatMap((name) => ["--workspace", `packages/${name}`])
          ], root)
        )
        assert.strictEqual(packed.length, libraries.length)

        NodeFs.writeFileSync(
          NodePath.join(app, "package.json"),
          JSON.stringify({ name: "embed-app", private: true, type: "module" })
        )
        const peers = pinnedPeers()
        assert.include(peers, `effect@${installed("effect").version}`)
        assert.match(installed("effect").version, /^3\./)
        yield* run("npm", [
          "install",
          "--no-audit",
          "--no-fund",
          ...packed.map(({ filename }) => NodePath.join(dir, filename)),
          ...peers,
          `@types/node@${installed("@types/node").version}`
        ], app)

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
        const tsc = NodePath.join(root, "node_modules", "typescript", "bin", "tsc")
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
