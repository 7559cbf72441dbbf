import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { fakeServer, runCli, scopedTempDir, workspace } from "./support/cli.js"

const timeout = 60_000

// PATH for the child: only the directories given, plus one holding a `node` link for `#!/usr/bin/env node` scripts.
const pathWith = (...dirs: Array<string>) =>
  Effect.map(scopedTempDir("path"), (bin) => {
    NodeFs.symlinkSync(process.execPath, NodePath.join(bin, "node"))
    return [...dirs, bin].join(NodePath.delimiter)
  })

const nodeModulesBin = fileURLToPath(new URL("../../../node_modules/.bin", import.meta.url))

describe.concurrent("lsp-seam doctor", () => {
  it.scopedLive(
    "with only the bundled TypeScript preset: usable, all four operations, inactive presets listed",
    () =>
      Effect.gen(function*() {
        const run = yield* runCli(["doctor"], { env: { PATH: yield* pathWith() } })
        assert.strictEqual(run.code, 0, run.stderr)
        assert.strictEqual(run.stderr, "")
        assert.include(run.stdout, `workspace:     ${workspace}`)
        assert.include(run.stdout, "configuration: presets")
        assert.include(run.stdout, "typescript: usable")
        assert.include(
          run.stdout,
          "operations:  goToDefinition yes, findReferences yes, goToImplementation yes, hover yes"
        )
        assert.include(run.stdout, "encoding:    utf-16")
        assert.match(run.stdout, /started in: +\d+ ms/)
        assert.include(run.stdout, "inactive presets (command not found on PATH):")
        assert.include(run.stdout, "python (Python): pyright-langserver")
        assert.isTrue(run.stdout.endsWith("1 server configured: 1 usable.\n"), run.stdout)
      }),
    timeout
  )

  it.scopedLive(
    "every preset installed from npm (node_modules/.bin) starts and is usable",
    () =>
      Effect.gen(function*() {
        const run = yield* runCli(["doctor"], { env: { PATH: yield* pathWith(nodeModulesBin) } })
        assert.strictEqual(run.code, 0, run.stdout + run.stderr)
        for (const id of ["typescript", "python", "bash", "json", "css", "html", "yaml"]) {
          assert.include(run.stdout, `\n${id}: usable\n`)
        }
        assert.include(run.stdout, "7 servers configured: 7 usable.")
      }),
    timeout
  )

  it.scopedLive("a configured server that cannot run makes it exit 1, and says why", () =>
    Effect.gen(function*() {
      const dir = yield* scopedTempDir("doctor")
      const config = NodePath.join(dir, "lsp-seam.json")
      NodeFs.writeFileSync(
        config,
        JSON.stringify({
          servers: {
            fake: { command: process.execPath, args: [fakeServer], extensionToLanguage: { ".fake": "plaintext" } },
            broken: { command: "/nonexistent/language-server", extensionToLanguage: { ".broken": "plaintext" } }
          }
        })
      )
      const run = yield* runCli(["doctor", "--config", config])
      assert.strictEqual(run.code, 1)
      assert.include(run.stdout, `configuration: ${config}`)
      assert.include(run.stdout, "fake: usable")
      assert.include(run.stdout, "server:      fake-server 0.0.0")
      assert.include(run.stdout, "broken: UNUSABLE")
      assert.include(run.stdout, "executable:  not found")
      assert.include(run.stdout, "error:       LSP_EXECUTABLE_NOT_FOUND: ")
      assert.include(run.stdout, "2 servers configured: 1 usable, 1 unusable.")
      assert.strictEqual(run.stderr, "lsp-seam doctor: unusable: broken\n")
    }), timeout)
})
