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

// Live (not zombie) members of the process group led by `pgid` (servers lead their own group), from /proc.
const groupAlive = (pgid: number): boolean =>
  NodeFs.readdirSync("/proc").filter((name) => /^\d+$/.test(name)).some((pid) => {
    try {
      const stat = NodeFs.readFileSync(`/proc/${pid}/stat`, "latin1")
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      return Number(pgrp) === pgid && state !== "Z"
    } catch {
      return false
    }
  })

/** A workspace holding `files`, with a lsp-seam.json running the fake server for `.fake` files. */
const fakeWorkspace = (files: Record<string, string>, fake: Record<string, unknown> = {}) =>
  Effect.map(scopedTempDir("doctor-fake"), (dir) => {
    for (const [name, text] of Object.entries(files)) NodeFs.writeFileSync(NodePath.join(dir, name), text)
    NodeFs.writeFileSync(
      NodePath.join(dir, "lsp-seam.json"),
      JSON.stringify({
        servers: {
          fake: {
            command: process.execPath,
            args: [fakeServer],
            extensionToLanguage: { ".fake": "plaintext" },
            env: { FAKE_LSP: JSON.stringify(fake) }
          }
        }
      })
    )
    return dir
  })

describe.concurrent("lsp-seam doctor", () => {
  it.scopedLive(
    "with only the bundled TypeScript preset: usable, all nine operations, inactive presets listed",
    () =>
      Effect.gen(function*() {
        // A copy outside this repository, whose node_modules/.bin would provide the other presets.
        const dir = yield* scopedTempDir("doctor-ts")
        NodeFs.cpSync(workspace, dir, { recursive: true })
        const run = yield* runCli(["doctor", "--cwd", dir], { env: { PATH: yield* pathWith() } })
        assert.strictEqual(run.code, 0, run.stderr)
        assert.strictEqual(run.stderr, "")
        assert.include(run.stdout, `workspace:     ${dir}`)
        assert.include(run.stdout, "configuration: presets")
        assert.include(run.stdout, "typescript: usable")
        assert.include(
          run.stdout,
          "operations:  goToDefinition yes, findReferences yes, goToImplementation yes, hover yes, " +
            "goToTypeDefinition yes, incomingCalls yes, outgoingCalls yes, documentSymbol yes, workspaceSymbol yes"
        )
        assert.include(run.stdout, "encoding:    utf-16")
        assert.match(run.stdout, /started in: +\d+ ms/)
        assert.include(
          run.stdout,
          "inactive presets (command not found in the workspace's node_modules/.bin or on PATH):"
        )
        assert.include(run.stdout, "python (Python): pyright-langserver")
        // The status section measures the probed server's tree and the host against the default budget.
        assert.match(
          run.stdout,
          /\n {2}memory: servers [0-9.]+ MiB of a budget of maxMemory "25%" = [0-9.]+ MiB; host process [0-9.]+ MiB\n/
        )
        assert.isTrue(run.stdout.endsWith("1 server configured: 1 usable.\n"), run.stdout)
      }),
    timeout
  )

  it.scopedLive(
    "a preset in the workspace's node_modules/.bin, not on PATH, is found, used and reported with its path",
    () =>
      Effect.gen(function*() {
        const dir = yield* scopedTempDir("doctor-local-bin")
        NodeFs.mkdirSync(NodePath.join(dir, "node_modules", ".bin"), { recursive: true })
        const local = NodePath.join(dir, "node_modules", ".bin", "pyright-langserver")
        NodeFs.symlinkSync(NodePath.join(nodeModulesBin, "pyright-langserver"), local)
        NodeFs.writeFileSync(NodePath.join(dir, "main.py"), "def greet(name):\n    return name\n\ngreet('x')\n")
        const run = yield* runCli(["doctor", "--cwd", dir], { env: { PATH: yield* pathWith() } })
        assert.strictEqual(run.code, 0, run.stdout + run.stderr)
        assert.include(run.stdout, "\npython: usable\n")
        assert.include(run.stdout, `  executable:  ${local}\n`)
        assert.include(run.stdout, "probe:       hover on main.py:1:1 answered")
        assert.notInclude(run.stdout, "python (Python): pyright-langserver")
        assert.include(run.stdout, "2 servers configured: 2 usable.")
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

  it.scopedLive(
    "the TypeScript preset on a one-file workspace: the probe answers, the status shows the idle server, then it is gone",
    () =>
      Effect.gen(function*() {
        const dir = yield* scopedTempDir("doctor-ts")
        NodeFs.writeFileSync(NodePath.join(dir, "only.ts"), "export const answer: number = 42\n")
        const run = yield* runCli(["doctor", "--cwd", dir], { env: { PATH: yield* pathWith() } })
        assert.strictEqual(run.code, 0, run.stdout + run.stderr)
        assert.include(run.stdout, "typescript: usable")
        assert.match(run.stdout, /\n {2}probe: {7}hover on only\.ts:1:1 answered in \d+ ms/)
        assert.include(run.stdout, "status (the host that serves queries, after one probe query per usable server):")
        const line =
          /\n {2}typescript: pid (\d+), idle, up [\d.]+ m?s, queries served (\d+), restarts 0, RSS ([\d.]+ MB|unknown), workspace (.+), last error: none\n/
            .exec(run.stdout)
        assert.isNotNull(line, run.stdout)
        assert.isAtLeast(Number(line![2]), 1)
        assert.strictEqual(line![4], NodeFs.realpathSync(dir))
        assert.isFalse(groupAlive(Number(line![1])), "the TypeScript server outlived the doctor")
        assert.isTrue(run.stdout.endsWith("1 server configured: 1 usable.\n"), run.stdout)
      }),
    timeout
  )

  it.scopedLive(
    "no file the server handles: the probe says so, and the server is still usable",
    () =>
      Effect.gen(function*() {
        const dir = yield* fakeWorkspace({ "notes.txt": "nothing for the fake server\n" })
        const run = yield* runCli(["doctor", "--cwd", dir])
        assert.strictEqual(run.code, 0, run.stdout + run.stderr)
        assert.include(run.stdout, "fake: usable")
        assert.include(run.stdout, "probe:       not run: no .fake file in the workspace (looked at 2 entries;")
        assert.include(run.stdout, "  fake: no server running (nothing to probe, so never started)")
        assert.include(run.stdout, "1 server configured: 1 usable.")
        assert.strictEqual(run.stderr, "")
      }),
    timeout
  )

  it.scopedLive(
    "a server that crashes on its probe: the error code is shown, it is unusable, exit 1",
    () =>
      Effect.gen(function*() {
        const dir = yield* fakeWorkspace({ "main.fake": "x\n" }, { crash: "request" })
        const run = yield* runCli(["doctor", "--cwd", dir])
        assert.strictEqual(run.code, 1, run.stdout + run.stderr)
        assert.include(run.stdout, "fake: UNUSABLE")
        assert.include(run.stdout, "probe:       hover on main.fake:1:1 failed: LSP_SERVER_EXITED: ")
        assert.include(run.stdout, "1 server configured: 0 usable, 1 unusable.")
        assert.strictEqual(run.stderr, "lsp-seam doctor: unusable: fake\n")
      }),
    timeout
  )
})
