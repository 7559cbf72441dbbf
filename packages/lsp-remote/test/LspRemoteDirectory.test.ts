import { assert, describe, it } from "@effect/vitest"
import { LspRemoteAddress, LspRemoteDirectory } from "@lsp-seam/lsp-remote"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { tempDir } from "./support.js"

const isRoot = process.getuid?.() === 0

/** The refusal's message, or "accepted". */
const verdict = (directory: string, env: NodeJS.ProcessEnv) =>
  LspRemoteDirectory.ensure(directory, env).pipe(
    Effect.as("accepted"),
    Effect.catchAll((error) => {
      assert.strictEqual(error.code, "LSP_INVALID_CONFIG")
      assert.include(error.message, `"${directory}"`)
      assert.include(error.message, "nothing was created or written in it")
      return Effect.succeed(error.message)
    })
  )

/** A directory at `path` with `mode`, made afresh. */
const directoryWith = (path: string, mode: number) => {
  Fs.rmSync(path, { recursive: true, force: true })
  Fs.mkdirSync(path)
  Fs.chmodSync(path, mode)
}

describe("LspRemoteDirectory.ensure", () => {
  it.scopedLive("the default directory: made 0700 when missing; only a private one of the user's is accepted", () =>
    Effect.gen(function*() {
      const runtime = yield* tempDir
      const env = { XDG_RUNTIME_DIR: runtime }
      const directory = LspRemoteAddress.defaultSocketDirectory(env)
      assert.strictEqual(yield* verdict(directory, env), "accepted")
      assert.strictEqual(Fs.lstatSync(directory).mode & 0o7777, 0o700)
      directoryWith(directory, 0o755)
      assert.strictEqual(yield* verdict(directory, env), "accepted")
      for (const mode of [0o770, 0o707, 0o1777]) {
        directoryWith(directory, mode)
        const message = yield* verdict(directory, env)
        assert.include(message, `is writable by other users (mode ${mode.toString(8)})`)
        assert.include(message, `chmod 700 "${directory}"`)
        assert.deepStrictEqual(Fs.readdirSync(directory), [])
      }
      Fs.rmSync(directory, { recursive: true })
      const elsewhere = Path.join(runtime, "elsewhere")
      Fs.mkdirSync(elsewhere, { mode: 0o700 })
      Fs.symlinkSync(elsewhere, directory)
      assert.include(yield* verdict(directory, env), "is not a directory (or is a symbolic link)")
      Fs.unlinkSync(directory)
      Fs.writeFileSync(directory, "")
      assert.include(yield* verdict(directory, env), "is not a directory (or is a symbolic link)")
      assert.strictEqual(Fs.readFileSync(directory, "utf8"), "")
    }))

  it.scopedLive.runIf(isRoot)(
    "the default directory of another user, even root's for another user, is refused",
    () =>
      Effect.gen(function*() {
        const runtime = yield* tempDir
        const env = { XDG_RUNTIME_DIR: runtime }
        const directory = LspRemoteAddress.defaultSocketDirectory(env)
        // As if another user made it between the client's look and its mkdir: mkdir finds it, lstat judges it.
        Fs.mkdirSync(directory, { mode: 0o700 })
        Fs.chownSync(directory, 4242, 4242)
        const message = yield* verdict(directory, env)
        assert.include(message, "belongs to another user (uid 4242)")
        assert.include(message, "XDG_RUNTIME_DIR")
        // A directory given by the user is judged by the looser rule of a named socket directory, still not theirs.
        const named = Path.join(runtime, "named")
        Fs.mkdirSync(named, { mode: 0o700 })
        Fs.chownSync(named, 4242, 4242)
        assert.include(yield* verdict(named, env), "belongs to another user (uid 4242)")
      })
  )

  it.scopedLive("the way to the default directory: others' writes without the sticky bit refuse it, /tmp's do not", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const shared = Path.join(dir, "shared")
      const env = { XDG_RUNTIME_DIR: shared }
      const directory = LspRemoteAddress.defaultSocketDirectory(env)
      directoryWith(shared, 0o1777)
      assert.strictEqual(yield* verdict(directory, env), "accepted")
      Fs.rmdirSync(directory)
      Fs.chmodSync(shared, 0o777)
      const message = yield* verdict(directory, env)
      assert.include(message, `"${shared}", on its way, is writable by other users without the sticky bit (mode 777)`)
      assert.isFalse(Fs.existsSync(directory))
      // Through a link: the real directory is judged too.
      const linked = Path.join(dir, "linked")
      Fs.symlinkSync(shared, linked)
      const throughLink = { XDG_RUNTIME_DIR: linked }
      assert.include(
        yield* verdict(LspRemoteAddress.defaultSocketDirectory(throughLink), throughLink),
        "on its way, is writable by other users without the sticky bit"
      )
      Fs.chmodSync(shared, 0o700)
      assert.strictEqual(
        yield* verdict(LspRemoteAddress.defaultSocketDirectory(throughLink), throughLink),
        "accepted"
      )
      if (isRoot) {
        // A link on the way that another user owns could be pointed elsewhere.
        Fs.lchownSync(linked, 4242, 4242)
        assert.include(
          yield* verdict(LspRemoteAddress.defaultSocketDirectory(throughLink), throughLink),
          `the symbolic link "${linked}" on its way belongs to another user (uid 4242)`
        )
      }
    }))

  it.scopedLive("a directory the user names (serve --socket): 0755 and a sticky 1777 accepted, 0777 refused", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const env = { XDG_RUNTIME_DIR: Path.join(dir, "runtime") }
      const named = Path.join(dir, "named")
      for (const [mode, expected] of [[0o755, "accepted"], [0o1777, "accepted"]] as const) {
        directoryWith(named, mode)
        assert.strictEqual(yield* verdict(named, env), expected)
      }
      directoryWith(named, 0o777)
      assert.include(yield* verdict(named, env), "writable by other users without the sticky bit (mode 777)")
      Fs.rmdirSync(named)
      assert.strictEqual(yield* verdict(Path.join(named, "deeper"), env), "accepted")
      assert.strictEqual(Fs.lstatSync(Path.join(named, "deeper")).mode & 0o777, 0o700)
    }))
})
