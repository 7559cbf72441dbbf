/**
 * A server installed in the project's node_modules/.bin is found whether or not that folder is on PATH, wins over
 * one on PATH, and is never looked for above the top of the project.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as LspConfigFile from "../src/LspConfigFile.js"
import * as LspPresets from "../src/LspPresets.js"
import { tempDir } from "./support.js"

const withDir = <A, E, R>(f: (dir: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => tempDir("project-bin")),
    f,
    (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
  )

/** An executable script `name` in `<dir>/node_modules/.bin`; its path. */
const installIn = (dir: string, name: string): string => {
  const bin = NodePath.join(dir, "node_modules", ".bin")
  NodeFs.mkdirSync(bin, { recursive: true })
  const file = NodePath.join(bin, name)
  NodeFs.writeFileSync(file, "#!/bin/sh\n", { mode: 0o755 })
  return file
}

const mkdir = (...parts: Array<string>): string => {
  const dir = NodePath.join(...parts)
  NodeFs.mkdirSync(dir, { recursive: true })
  return dir
}

const found = (detections: ReadonlyArray<LspPresets.Detection>, id: string) =>
  detections.find((detection) => detection.preset.id === id)

describe("servers in the project's node_modules/.bin", () => {
  it.effect("are found from any package of a repository, before PATH, and run by their path", () =>
    withDir((dir) =>
      Effect.gen(function*() {
        const top = mkdir(dir, "repo")
        mkdir(top, ".git")
        const workspace = mkdir(top, "packages", "a")
        const hoisted = installIn(top, "pyright-langserver")
        const own = installIn(workspace, "gopls")
        const onPath = mkdir(dir, "path")
        NodeFs.writeFileSync(NodePath.join(onPath, "pyright-langserver"), "#!/bin/sh\n", { mode: 0o755 })
        const detections = yield* LspPresets.detect({ PATH: onPath }, workspace)
        assert.deepStrictEqual(found(detections, "python")?.executable, Option.some(hoisted))
        assert.deepStrictEqual(found(detections, "go")?.executable, Option.some(own))
        const servers = LspPresets.toConfig(detections).servers
        assert.strictEqual(servers.python?.command, hoisted)
        assert.strictEqual(servers.go?.command, own)
        // Found on PATH only, a preset keeps its bare name (the host looks it up the same way).
        const pathOnly = yield* LspPresets.detect({ PATH: onPath }, dir)
        assert.deepStrictEqual(
          found(pathOnly, "python")?.executable,
          Option.some(NodePath.join(onPath, "pyright-langserver"))
        )
        assert.strictEqual(LspPresets.toConfig(pathOnly).servers.python?.command, "pyright-langserver")
      })
    ).pipe(Effect.provide(NodeContext.layer)))

  it.effect("are never looked for above the top of the project, nor above a workspace with no top", () =>
    withDir((dir) =>
      Effect.gen(function*() {
        // A shared parent's node_modules (a planted /tmp/node_modules, a home directory's) is not the project's.
        installIn(dir, "pyright-langserver")
        const repo = mkdir(dir, "repo")
        mkdir(repo, ".git")
        const inRepo = yield* LspPresets.detect({ PATH: "" }, mkdir(repo, "src"))
        assert.isTrue(Option.isNone(found(inRepo, "python")!.executable))
        const loose = yield* LspPresets.detect({ PATH: "" }, mkdir(dir, "loose", "sub"))
        assert.isTrue(Option.isNone(found(loose, "python")!.executable))
        // An npm workspaces root is a top too.
        const mono = mkdir(dir, "mono")
        NodeFs.writeFileSync(NodePath.join(mono, "package.json"), JSON.stringify({ workspaces: ["packages/*"] }))
        const monoBin = installIn(mono, "clangd")
        const inMono = yield* LspPresets.detect({ PATH: "" }, mkdir(mono, "packages", "b"))
        assert.deepStrictEqual(found(inMono, "c-cpp")?.executable, Option.some(monoBin))
      })
    ).pipe(Effect.provide(NodeContext.layer)))

  it.effect("a configuration file's bare command runs the project's server; the daemon's load does not look", () =>
    withDir((dir) =>
      Effect.gen(function*() {
        const executable = installIn(dir, "pyright-langserver")
        NodeFs.writeFileSync(
          NodePath.join(dir, LspConfigFile.fileName),
          JSON.stringify({
            servers: {
              py: { command: "pyright-langserver", args: ["--stdio"], extensionToLanguage: { ".py": "python" } },
              sh: { command: "bash-language-server", args: ["start"], extensionToLanguage: { ".sh": "shellscript" } }
            }
          })
        )
        const loaded = yield* LspConfigFile.load({ workingDirectory: dir, environment: { PATH: "" } })
        assert.strictEqual(loaded.config.servers.py?.command, executable)
        assert.strictEqual(loaded.input.servers.py?.command, executable)
        // Not installed there: left for the host to look up on PATH (and to report if it is not there either).
        assert.strictEqual(loaded.config.servers.sh?.command, "bash-language-server")
        const daemon = yield* LspConfigFile.load({ workingDirectory: dir, projectExecutables: false })
        assert.strictEqual(daemon.config.servers.py?.command, "pyright-langserver")
      })
    ).pipe(Effect.provide(NodeContext.layer)))
})
