import { assert, describe, it } from "@effect/vitest"
import { LspError } from "@lsp-seam/lsp"
import { LspSeam } from "@lsp-seam/setup"
import { LspDaemon } from "@lsp-seam/setup/remote"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fakeServer } from "./support/cli.js"
import { alive, fakeWorkspace, processesWith, serve, startedPids, waitFor } from "./support/remote.js"

// The library's `remote` option: the Promise client and `LspSeam.layer` against a compiled `lsp-seam serve`.
const timeout = 60_000

const hoverFake = { answers: { "textDocument/hover": { contents: "fake hover" } } }

describe("LspSeam remote", () => {
  it.scopedLive(
    "makeClient({ remote: PATH }) answers through the host; close() leaves the host running",
    () =>
      Effect.gen(function*() {
        const fake = yield* fakeWorkspace({ fake: { extension: ".fake", fake: hoverFake } })
        const served = yield* serve(["--socket", NodePath.join(fake.runtimeDir, "host.sock")], { cwd: fake.dir })
        const client = LspSeam.makeClient({
          remote: served.address.replace(/^unix:/, ""),
          workingDirectory: fake.dir
        })
        const answer = yield* Effect.promise(() =>
          client.query({ operation: "hover", file_path: "fake.fake", line: 1, character: 1 })
        )
        assert.strictEqual(answer.text, "fake hover")
        yield* Effect.promise(() => client.close())
        assert.isTrue(alive(served.pid))
      }),
    timeout
  )

  it.scopedLive(
    "makeClient({ remote: \"auto\", config }) starts the daemon of that configuration; links planted at its files are not followed",
    () =>
      Effect.gen(function*() {
        const fake = yield* fakeWorkspace({})
        const record = NodePath.join(fake.dir, "inline.record.jsonl")
        const previous = { runtime: process.env.XDG_RUNTIME_DIR, idle: process.env.LSP_SEAM_IDLE_EXIT }
        yield* Effect.acquireRelease(
          Effect.sync(() => {
            process.env.XDG_RUNTIME_DIR = fake.runtimeDir
            process.env.LSP_SEAM_IDLE_EXIT = "30s"
          }),
          () =>
            Effect.sync(() => {
              for (
                const [name, value] of [["XDG_RUNTIME_DIR", previous.runtime], ["LSP_SEAM_IDLE_EXIT", previous.idle]]
              ) {
                if (value === undefined) delete process.env[name!]
                else process.env[name!] = value
              }
            })
        )
        const config = {
          servers: {
            inline: {
              command: process.execPath,
              args: [fakeServer],
              extensionToLanguage: { ".fake": "plaintext" },
              env: { FAKE_LSP: JSON.stringify({ record, ...hoverFake }) }
            }
          }
        }
        NodeFs.writeFileSync(NodePath.join(fake.dir, "a.fake"), "hello\n")
        // Links at the names of the inline configuration (and the file it is written to first) and of the log.
        const identity = LspDaemon.identifySync({ _tag: "Inline", config })
        assert.isDefined(identity)
        const socket = NodePath.join(fake.runtimeDir, "lsp-seam", LspDaemon.socketName(identity!))
        NodeFs.mkdirSync(NodePath.dirname(socket), { mode: 0o700 })
        const victim = NodePath.join(fake.dir, "victim.txt")
        NodeFs.writeFileSync(victim, "the victim's own text\n")
        const configFile = socket.replace(/\.sock$/, ".json")
        for (const name of [configFile, `${configFile}.${process.pid}`, socket.replace(/\.sock$/, ".log")]) {
          NodeFs.symlinkSync(victim, name)
        }
        const client = LspSeam.makeClient({ remote: "auto", config, workingDirectory: fake.dir })
        const answer = yield* Effect.promise(() =>
          client.query({ operation: "hover", file_path: "a.fake", line: 1, character: 1 })
        )
        assert.strictEqual(answer.text, "fake hover")
        assert.strictEqual(NodeFs.readFileSync(victim, "utf8"), "the victim's own text\n")
        assert.isTrue(NodeFs.lstatSync(configFile).isFile())
        assert.deepStrictEqual(JSON.parse(NodeFs.readFileSync(configFile, "utf8")), config)
        yield* Effect.promise(() => client.close())
        const daemons = processesWith(`${fake.runtimeDir}/lsp-seam/daemon-`)
        assert.strictEqual(daemons.length, 1)
        assert.strictEqual(startedPids(record).length, 1)
        for (const pid of daemons) process.kill(pid, "SIGTERM")
        yield* waitFor("the daemon to stop", () => daemons.every((pid) => !alive(pid)))
        yield* waitFor("its server to stop", () => startedPids(record).every((pid) => !alive(pid)))
      }),
    timeout
  )

  it.effect("a remote that is not a path or an http/ws URL fails to build with LSP_INVALID_CONFIG", () =>
    Effect.gen(function*() {
      const error = yield* Layer.build(LspSeam.layer({ remote: "ftp://example.com:21" })).pipe(
        Effect.scoped,
        Effect.flip
      )
      assert.isTrue(LspError.isLspError(error))
      assert.strictEqual(error.code, "LSP_INVALID_CONFIG")
    }))
})
