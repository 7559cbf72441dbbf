import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { resolveExecutable } from "../src/internal/process/executable.js"

const setup = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const root = yield* fs.makeTempDirectoryScoped({ prefix: "lsp-seam-exe-" })
  const file = (relative: string, mode: number) =>
    Effect.gen(function*() {
      const full = path.join(root, relative)
      yield* fs.makeDirectory(path.dirname(full), { recursive: true })
      yield* fs.writeFileString(full, "#!/bin/sh\nexit 0\n")
      yield* fs.chmod(full, mode)
      return full
    })
  return { fs, path, root, file }
})

layer(NodeContext.layer)("resolveExecutable", (it) => {
  describe("absolute commands", () => {
    it.scoped("an executable regular file is returned as written", () =>
      Effect.gen(function*() {
        const { file } = yield* setup
        const exe = yield* file("bin/server", 0o755)
        assert.strictEqual(yield* resolveExecutable("ts", exe, undefined), exe)
        const userOnly = yield* file("bin/user-only", 0o700)
        assert.strictEqual(yield* resolveExecutable("ts", userOnly, undefined), userOnly)
      }))

    it.scoped("a symlink to an executable is followed but not canonicalised", () =>
      Effect.gen(function*() {
        const { file, fs, path, root } = yield* setup
        const exe = yield* file("real/server", 0o755)
        const link = path.join(root, "link")
        yield* fs.symlink(exe, link)
        assert.strictEqual(yield* resolveExecutable("ts", link, undefined), link)
      }))

    it.scoped("missing, a directory, a non-executable file, a dangling symlink", () =>
      Effect.gen(function*() {
        const { file, fs, path, root } = yield* setup
        const missing = yield* Effect.flip(resolveExecutable("ts", path.join(root, "nope"), "/usr/bin"))
        assert.strictEqual(missing.code, "LSP_EXECUTABLE_NOT_FOUND")
        assert.include(missing.message, "Server \"ts\"")
        assert.include(missing.message, path.join(root, "nope"))
        assert.include(missing.message, "does not exist")

        const directory = yield* Effect.flip(resolveExecutable("py", root, undefined))
        assert.strictEqual(directory.code, "LSP_EXECUTABLE_NOT_FOUND")
        assert.include(directory.message, "not a regular file")

        const plain = yield* file("plain", 0o644)
        const notExecutable = yield* Effect.flip(resolveExecutable("py", plain, undefined))
        assert.strictEqual(notExecutable.code, "LSP_EXECUTABLE_NOT_FOUND")
        assert.include(notExecutable.message, "not executable")

        const dangling = path.join(root, "dangling")
        yield* fs.symlink(path.join(root, "gone"), dangling)
        const danglingError = yield* Effect.flip(resolveExecutable("py", dangling, undefined))
        assert.strictEqual(danglingError.code, "LSP_EXECUTABLE_NOT_FOUND")
      }))
  })

  describe("bare names", () => {
    it.scoped("are searched on PATH in order; the first regular executable file wins", () =>
      Effect.gen(function*() {
        const { file, fs, path, root } = yield* setup
        yield* file("a/tool", 0o644) // not executable: skipped
        yield* fs.makeDirectory(path.join(root, "b/tool"), { recursive: true }) // a directory: skipped
        const winner = yield* file("c/tool", 0o755)
        yield* file("d/tool", 0o755) // later: loses
        const pathValue = ["a", "missing", "b", "c", "d"].map((dir) => path.join(root, dir)).join(":")
        assert.strictEqual(yield* resolveExecutable("ts", "tool", pathValue), winner)
      }))

    it.scoped("not on PATH names the server, the command and every directory searched", () =>
      Effect.gen(function*() {
        const { file, path, root } = yield* setup
        yield* file("a/tool", 0o644)
        const dirs = [path.join(root, "a"), path.join(root, "b")]
        const error = yield* Effect.flip(resolveExecutable("my-server", "tool", dirs.join(":")))
        assert.strictEqual(error.code, "LSP_EXECUTABLE_NOT_FOUND")
        assert.include(error.message, "\"my-server\"")
        assert.include(error.message, "\"tool\"")
        assert.include(error.message, dirs.join(":"))
        assert.include(error.message, "not executable")
        assert.deepStrictEqual(error.detail?.searched, dirs)
      }))

    it.scoped("skip empty and relative PATH entries; no PATH searches nothing", () =>
      Effect.gen(function*() {
        const { root } = yield* setup
        const error = yield* Effect.flip(resolveExecutable("ts", "sh", `:.:relative/bin::${root}`))
        assert.deepStrictEqual(error.detail?.searched, [root])
        const none = yield* Effect.flip(resolveExecutable("ts", "sh", undefined))
        assert.strictEqual(none.code, "LSP_EXECUTABLE_NOT_FOUND")
        assert.include(none.message, "nothing was searched")
        assert.deepStrictEqual(none.detail?.searched, [])
      }))

    it.scoped("a real system executable resolves through a real PATH", () =>
      Effect.gen(function*() {
        const resolved = yield* resolveExecutable("sh", "sh", "/nonexistent:/usr/bin:/bin")
        assert.match(resolved, /^\/(usr\/)?bin\/sh$/)
      }))
  })

  it.scoped("relative paths with a separator and blank commands are invalid config", () =>
    Effect.gen(function*() {
      for (const command of ["./server", "bin/server", "../server", "bin\\server", ".\\server"]) {
        const error = yield* Effect.flip(resolveExecutable("ts", command, "/usr/bin:/bin"))
        assert.strictEqual(error.code, "LSP_INVALID_CONFIG", command)
        assert.include(error.message, "relative path")
      }
      for (const command of ["", "  ", "a\0b"]) {
        const error = yield* Effect.flip(resolveExecutable("ts", command, "/usr/bin:/bin"))
        assert.strictEqual(error.code, "LSP_INVALID_CONFIG", JSON.stringify(command))
      }
    }))
})
