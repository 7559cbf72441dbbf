import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { assert, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as FileAccess from "../src/internal/files/fileAccess.js"
import { rootFor } from "../src/internal/files/projectRoot.js"
import { resolveWorkspace } from "../src/internal/files/workspace.js"

/** A repository with nested projects: files are created empty, directories as needed. */
const repository = (files: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const root = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "lsp-seam-roots-" }))
    for (const file of files) {
      const full = path.join(root, "repo", file)
      yield* fs.makeDirectory(path.dirname(full), { recursive: true })
      if (!file.endsWith("/")) yield* fs.writeFileString(full, "")
    }
    const workspace = yield* resolveWorkspace(path.join(root, "repo"))
    const services = yield* FileAccess.fileServices
    const rootOf = (file: string, markers: ReadonlyArray<string | ReadonlyArray<string>>) =>
      Effect.map(
        rootFor(services, workspace, file, markers),
        (found) => path.relative(workspace.path, found.path) || "."
      )
    return { root, workspace, rootOf, path, fs }
  })

layer(FileAccess.layerLocal.pipe(Layer.provideMerge(NodeContext.layer)))("rootFor", (it) => {
  it.scoped("the nearest directory holding a marker, up to the workspace and never above it", () =>
    Effect.gen(function*() {
      const { rootOf } = yield* repository([
        "pyproject.toml",
        "services/api/pyproject.toml",
        "services/api/src/app/main.py",
        "scripts/tool.py"
      ])
      const python = [["pyproject.toml", "pyrightconfig.json", "setup.py", "setup.cfg"]]
      assert.strictEqual(yield* rootOf("services/api/src/app/main.py", python), "services/api")
      assert.strictEqual(yield* rootOf("scripts/tool.py", python), ".")
      assert.strictEqual(yield* rootOf("pyproject.toml", python), ".")
    }))

  it.scoped("entries in order: a go.work anywhere above wins over the nearest go.mod", () =>
    Effect.gen(function*() {
      const { rootOf } = yield* repository([
        "go/go.work",
        "go/mod-a/go.mod",
        "go/mod-a/pkg/a.go",
        "other/go.mod",
        "other/b.go"
      ])
      assert.strictEqual(yield* rootOf("go/mod-a/pkg/a.go", ["go.work", "go.mod"]), "go")
      assert.strictEqual(yield* rootOf("other/b.go", ["go.work", "go.mod"]), "other")
      // Equal priority: the nearest of either.
      assert.strictEqual(yield* rootOf("go/mod-a/pkg/a.go", [["go.work", "go.mod"]]), "go/mod-a")
    }))

  it.scoped("the workspace when nothing marks a project, the markers are empty, or the file's directory is missing", () =>
    Effect.gen(function*() {
      const { rootOf } = yield* repository(["src/a.c", "build/"])
      assert.strictEqual(yield* rootOf("src/a.c", [["compile_commands.json", ".clangd"]]), ".")
      assert.strictEqual(yield* rootOf("src/a.c", []), ".")
      assert.strictEqual(yield* rootOf("nowhere/x.c", ["compile_commands.json"]), ".")
    }))

  it.scoped("a marker that is a directory counts (.clangd may be either)", () =>
    Effect.gen(function*() {
      const { rootOf } = yield* repository(["native/.clangd/config.yaml", "native/src/a.c"])
      assert.strictEqual(yield* rootOf("native/src/a.c", [["compile_commands.json", ".clangd"]]), "native")
    }))

  it.scoped("a marker outside the workspace, or reached through a link out of it, is not a root", () =>
    Effect.gen(function*() {
      const { fs, path, root, rootOf } = yield* repository(["src/main.py"])
      // Above the workspace: ignored.
      yield* fs.writeFileString(path.join(root, "pyproject.toml"), "")
      assert.strictEqual(yield* rootOf("src/main.py", ["pyproject.toml"]), ".")
      // A directory linked from outside: the file's real directory is outside, so the workspace serves it.
      yield* fs.makeDirectory(path.join(root, "elsewhere"))
      yield* fs.writeFileString(path.join(root, "elsewhere", "pyproject.toml"), "")
      yield* fs.writeFileString(path.join(root, "elsewhere", "x.py"), "")
      yield* fs.symlink(path.join(root, "elsewhere"), path.join(root, "repo", "linked"))
      assert.strictEqual(yield* rootOf("linked/x.py", ["pyproject.toml"]), ".")
    }))
})
