import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { execFileSync } from "node:child_process"
import { closeSync, constants, existsSync, openSync, statSync } from "node:fs"
import { locateSourceWith, readLocatedWith, readSource } from "../src/internal/documents/source.js"
import * as FileAccess from "../src/internal/files/fileAccess.js"
import { fileUri, uriToPath } from "../src/internal/files/fileUri.js"
import { isInside, resolveWorkspace } from "../src/internal/files/workspace.js"

const encoder = new TextEncoder()

/** A temp dir holding a workspace `ws`, a sibling `ws2` and an `outside` dir, all canonical. */
const setup = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const root = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "lsp-seam-ws-" }))
  const ws = path.join(root, "ws")
  for (const dir of ["ws/src", "ws2", "outside"]) {
    yield* fs.makeDirectory(path.join(root, dir), { recursive: true })
  }
  const write = (relative: string, content: string | Uint8Array) =>
    Effect.gen(function*() {
      const full = path.join(root, relative)
      yield* fs.makeDirectory(path.dirname(full), { recursive: true })
      yield* fs.writeFile(full, typeof content === "string" ? encoder.encode(content) : content)
      return full
    })
  const workspace = yield* resolveWorkspace(ws)
  return { fs, path, root, ws, workspace, write }
})

const openFds = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  return (yield* fs.readDirectory("/proc/self/fd")).length
})

// Both ways of reading files, the platform FileSystem's and the synchronous one of the local world, must
// behave the same on everything below.
const flavours = [
  ["platform FileSystem", FileAccess.layerPlatform.pipe(Layer.provideMerge(NodeContext.layer))],
  ["local synchronous calls", FileAccess.layerLocal.pipe(Layer.provideMerge(NodeContext.layer))]
] as const

for (const [flavour, files] of flavours) {
  // Live services: the FIFO, device and interruption tests bound their waits with real time.
  layer(files, { excludeTestServices: true })(`workspace and sources (${flavour})`, (it) => {
    describe("resolveWorkspace", () => {
      it.scoped("gives the canonical directory and its file URI", () =>
        Effect.gen(function*() {
          const { workspace, ws } = yield* setup
          assert.strictEqual(workspace.path, ws)
          assert.strictEqual(workspace.uri, `file://${ws}`)
        }))

      it.scoped("resolves a symlinked alias (and a trailing slash, and dot segments) to the canonical path", () =>
        Effect.gen(function*() {
          const { fs, path, root, ws } = yield* setup
          const alias = path.join(root, "alias")
          yield* fs.symlink(ws, alias)
          assert.strictEqual((yield* resolveWorkspace(alias)).path, ws)
          assert.strictEqual((yield* resolveWorkspace(`${alias}/`)).path, ws)
          assert.strictEqual((yield* resolveWorkspace(`${ws}/src/..`)).path, ws)
        }))

      it.scoped("rejects a missing path, a file, an empty root, a NUL and a symlink loop", () =>
        Effect.gen(function*() {
          const { fs, path, root, write } = yield* setup
          const file = yield* write("ws/file.ts", "x")
          const loop = path.join(root, "loop")
          yield* fs.symlink(loop, loop)
          for (const bad of [path.join(root, "missing"), file, "", `${root}\0x`, loop]) {
            const error = yield* Effect.flip(resolveWorkspace(bad))
            assert.strictEqual(error.code, "LSP_INVALID_WORKSPACE", JSON.stringify(bad))
          }
          const missing = yield* Effect.flip(resolveWorkspace(path.join(root, "missing")))
          assert.include(missing.message, "does not exist")
          const notDir = yield* Effect.flip(resolveWorkspace(file))
          assert.include(notDir.message, "not a directory")
        }))
    })

    describe("the open is checked on its descriptor", () => {
      it.scoped("a directory swapped for a link out of the workspace after the check is refused, nothing read", () =>
        Effect.gen(function*() {
          const { fs, path, root, workspace, write } = yield* setup
          yield* write("ws/dir/a.ts", "inside\n")
          yield* write("outside/dir/a.ts", "SECRET outside the workspace\n")
          const services = yield* FileAccess.fileServices
          const location = yield* locateSourceWith(services, workspace, "dir/a.ts", 1_000)
          // Between the check (realpath, stat) and the open: dir becomes a link to a directory outside.
          yield* fs.rename(path.join(root, "ws/dir"), path.join(root, "ws/dir-was"))
          yield* fs.symlink(path.join(root, "outside/dir"), path.join(root, "ws/dir"))
          const error = yield* Effect.flip(readLocatedWith(services, location, 1_000))
          assert.strictEqual(error.code, "LSP_SOURCE_OUTSIDE_WORKSPACE")
          assert.include(error.message, "changed while it was being opened")
          assert.notInclude(error.message, "SECRET")
          assert.strictEqual(error.detail?.openedPath, path.join(root, "outside/dir/a.ts"))
        }))
    })

    describe("readSource accepts", () => {
      it.scoped("a relative path: canonical path, file URI, text and byte count", () =>
        Effect.gen(function*() {
          const { workspace, write } = yield* setup
          const file = yield* write("ws/src/a.ts", "export const a = 1\n")
          const { ctimeMs, ino, mtimeMs, readAt, ...source } = yield* readSource(workspace, "src/a.ts", 1_000)
          assert.deepStrictEqual(source, {
            path: file,
            uri: `file://${file}`,
            text: "export const a = 1\n",
            bytes: 19
          })
          // The open file's times (the platform flavour keeps whole milliseconds only, and has no ctime).
          const stats = statSync(file)
          assert.approximately(mtimeMs, stats.mtimeMs, 1)
          assert.isTrue(ctimeMs === 0 || Math.abs(ctimeMs - stats.ctimeMs) < 1)
          assert.strictEqual(ino, stats.ino)
          // The Effect Clock's time when the file was opened: after it was written, before now.
          assert.isTrue(readAt >= Math.floor(stats.mtimeMs) && readAt <= Date.now(), `readAt ${readAt}`)
        }))

      it.scoped("an absolute path inside, dot segments that stay inside, and a path through the alias", () =>
        Effect.gen(function*() {
          const { fs, path, root, workspace, ws, write } = yield* setup
          const file = yield* write("ws/src/a.ts", "a")
          assert.strictEqual((yield* readSource(workspace, file, 10)).path, file)
          assert.strictEqual((yield* readSource(workspace, "src/../src/./a.ts", 10)).path, file)
          const alias = path.join(root, "alias")
          yield* fs.symlink(ws, alias)
          const viaAlias = yield* readSource(workspace, path.join(alias, "src/a.ts"), 10)
          assert.strictEqual(viaAlias.path, file)
          assert.strictEqual(viaAlias.uri, `file://${file}`)
        }))

      it.scoped("a symlink that stays inside the workspace, reported at its target", () =>
        Effect.gen(function*() {
          const { fs, path, workspace, write } = yield* setup
          const target = yield* write("ws/src/real.ts", "real")
          yield* fs.symlink(target, path.join(workspace.path, "link.ts"))
          const source = yield* readSource(workspace, "link.ts", 10)
          assert.strictEqual(source.path, target)
          assert.strictEqual(source.text, "real")
        }))

      it.scoped("exactly maxDocumentBytes, an empty file, a literal U+FFFD, NUL after the first 8 KiB", () =>
        Effect.gen(function*() {
          const { workspace, write } = yield* setup
          yield* write("ws/ten.txt", "0123456789")
          assert.strictEqual((yield* readSource(workspace, "ten.txt", 10)).bytes, 10)
          yield* write("ws/empty.ts", "")
          assert.deepStrictEqual((yield* readSource(workspace, "empty.ts", 1)).text, "")
          yield* write("ws/fffd.ts", "const s = \"\uFFFD\"\n")
          assert.include((yield* readSource(workspace, "fffd.ts", 100)).text, "\uFFFD")
          const late = new Uint8Array(9_000).fill(0x61)
          late[8_192] = 0
          yield* write("ws/late-nul.txt", late)
          const source = yield* readSource(workspace, "late-nul.txt", 10_000)
          assert.strictEqual(source.text.length, 9_000)
          assert.strictEqual(source.text.charCodeAt(8_192), 0)
        }))

      it.scoped("a UTF-8 byte order mark is removed from the text but counted in bytes", () =>
        Effect.gen(function*() {
          const { workspace, write } = yield* setup
          yield* write("ws/bom.ts", new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0x62, 0x63]))
          const source = yield* readSource(workspace, "bom.ts", 100)
          assert.strictEqual(source.text, "abc")
          assert.strictEqual(source.bytes, 6)
        }))

      it.scoped("multi-byte text decoded exactly", () =>
        Effect.gen(function*() {
          const { workspace, write } = yield* setup
          const text = "é 日本 😀 \r\n tab\t end"
          yield* write("ws/utf8.ts", text)
          const source = yield* readSource(workspace, "utf8.ts", 100)
          assert.strictEqual(source.text, text)
          assert.strictEqual(source.bytes, encoder.encode(text).length)
        }))
    })

    describe("readSource rejects", () => {
      it.scoped("an empty path and a NUL as invalid arguments", () =>
        Effect.gen(function*() {
          const { workspace } = yield* setup
          assert.strictEqual((yield* Effect.flip(readSource(workspace, "", 10))).code, "LSP_INVALID_ARGUMENTS")
          assert.strictEqual((yield* Effect.flip(readSource(workspace, "a\0.ts", 10))).code, "LSP_INVALID_ARGUMENTS")
        }))

      it.scoped("missing files, missing parents, files used as directories and dangling symlinks", () =>
        Effect.gen(function*() {
          const { fs, path, workspace, write } = yield* setup
          yield* write("ws/file.ts", "x")
          yield* fs.symlink(path.join(workspace.path, "gone.ts"), path.join(workspace.path, "dangling.ts"))
          for (const missing of ["nope.ts", "no/such/dir.ts", "file.ts/child.ts", "dangling.ts"]) {
            const error = yield* Effect.flip(readSource(workspace, missing, 10))
            assert.strictEqual(error.code, "LSP_SOURCE_NOT_FOUND", missing)
            assert.include(error.message, JSON.stringify(missing))
          }
        }))

      it.scoped("a symlink loop, as not found, saying it is a loop", () =>
        Effect.gen(function*() {
          const { fs, path, workspace } = yield* setup
          const a = path.join(workspace.path, "a.ts")
          const b = path.join(workspace.path, "b.ts")
          yield* fs.symlink(b, a)
          yield* fs.symlink(a, b)
          const error = yield* Effect.flip(readSource(workspace, "a.ts", 10))
          assert.strictEqual(error.code, "LSP_SOURCE_NOT_FOUND")
          assert.include(error.message, "loop of symbolic links")
        }))

      it.scoped("../ escapes, absolute paths outside, the sibling /ws2, and symlinks out of the workspace", () =>
        Effect.gen(function*() {
          const { fs, path, root, workspace, write } = yield* setup
          const secret = yield* write("outside/secret.ts", "secret")
          const sibling = yield* write("ws2/a.ts", "sibling")
          yield* fs.symlink(secret, path.join(workspace.path, "escape.ts"))
          yield* fs.symlink(path.join(root, "outside"), path.join(workspace.path, "outdir"))
          for (
            const escape of [
              "../outside/secret.ts",
              "src/../../outside/secret.ts",
              secret,
              sibling,
              "../ws2/a.ts",
              "escape.ts",
              "outdir/secret.ts",
              "/etc/hostname"
            ]
          ) {
            const error = yield* Effect.flip(readSource(workspace, escape, 100))
            if (escape === "/etc/hostname" && error.code === "LSP_SOURCE_NOT_FOUND") continue
            assert.strictEqual(error.code, "LSP_SOURCE_OUTSIDE_WORKSPACE", escape)
            assert.include(error.message, workspace.path)
          }
        }))

      it.scoped("directories, including the workspace itself", () =>
        Effect.gen(function*() {
          const { workspace } = yield* setup
          for (const dir of ["src", ".", workspace.path]) {
            const error = yield* Effect.flip(readSource(workspace, dir, 100))
            assert.strictEqual(error.code, "LSP_SOURCE_NOT_A_FILE", dir)
            assert.include(error.message, "a directory")
          }
        }))

      it.scoped("a FIFO with no writer, without blocking", () =>
        Effect.gen(function*() {
          const { path, workspace } = yield* setup
          const pipe = path.join(workspace.path, "pipe.ts")
          execFileSync("mkfifo", [pipe])
          // Should a regression open the FIFO, a writer appearing unblocks it so the test fails instead of hanging.
          yield* Effect.addFinalizer(() =>
            Effect.sync(() => {
              try {
                closeSync(openSync(pipe, constants.O_WRONLY | constants.O_NONBLOCK))
              } catch {
                // No reader is blocked on the FIFO: the expected case.
              }
            })
          )
          // disconnect: a blocked open cannot be interrupted, and the timeout must not wait for it.
          const error = yield* Effect.flip(readSource(workspace, "pipe.ts", 100)).pipe(
            Effect.disconnect,
            Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("readSource blocked on a FIFO") })
          )
          assert.strictEqual(error.code, "LSP_SOURCE_NOT_A_FILE")
          assert.include(error.message, "FIFO")
        }))

      it.scoped("/dev/zero (a character device), without reading it", () =>
        Effect.gen(function*() {
          const dev = yield* resolveWorkspace("/dev")
          const error = yield* Effect.flip(readSource(dev, "zero", 100)).pipe(
            Effect.disconnect,
            Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("readSource read /dev/zero") })
          )
          assert.strictEqual(error.code, "LSP_SOURCE_NOT_A_FILE")
          assert.include(error.message, "character device")
        }))

      it.scoped("a file one byte over the limit", () =>
        Effect.gen(function*() {
          const { workspace, write } = yield* setup
          yield* write("ws/eleven.txt", "01234567890")
          const error = yield* Effect.flip(readSource(workspace, "eleven.txt", 10))
          assert.strictEqual(error.code, "LSP_SOURCE_TOO_LARGE")
          assert.include(error.message, "10 bytes")
        }))

      it.scoped("a huge sparse file, quickly", () =>
        Effect.gen(function*() {
          const { fs, write, workspace } = yield* setup
          const huge = yield* write("ws/huge.ts", "")
          yield* fs.truncate(huge, 64 * 1024 * 1024 * 1024)
          const error = yield* Effect.flip(readSource(workspace, "huge.ts", 4_000_000)).pipe(
            Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => new Error("readSource read the huge file") })
          )
          assert.strictEqual(error.code, "LSP_SOURCE_TOO_LARGE")
        }))

      it.scoped("binary files (a NUL in the first 8 KiB)", () =>
        Effect.gen(function*() {
          const { workspace, write } = yield* setup
          yield* write("ws/start.bin", new Uint8Array([0, 0x61]))
          const edge = new Uint8Array(8_192).fill(0x61)
          edge[8_191] = 0
          yield* write("ws/edge.txt", edge)
          for (const file of ["start.bin", "edge.txt"]) {
            const error = yield* Effect.flip(readSource(workspace, file, 100_000))
            assert.strictEqual(error.code, "LSP_SOURCE_BINARY", file)
          }
        }))

      it.scoped("invalid UTF-8: a stray byte, an overlong form, an encoded surrogate, a truncated sequence", () =>
        Effect.gen(function*() {
          const { workspace, write } = yield* setup
          const cases = [[0x61, 0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x61, 0xe6, 0x97]]
          for (const [i, bytes] of cases.entries()) {
            yield* write(`ws/bad${i}.ts`, new Uint8Array(bytes))
            const error = yield* Effect.flip(readSource(workspace, `bad${i}.ts`, 100))
            assert.strictEqual(error.code, "LSP_SOURCE_INVALID_UTF8", String(bytes))
          }
        }))
    })

    describe("bounded reading", () => {
      it.scoped("reads exactly limit + 1 bytes before giving up", () =>
        Effect.gen(function*() {
          const { fs, write } = yield* setup
          const file = yield* write("ws/thousand.txt", new Uint8Array(1_000).fill(0x61))
          const handle = yield* fs.open(file)
          assert.isTrue(Option.isNone(yield* FileAccess.readBounded(handle, 10)))
          const rest = yield* handle.readAlloc(2_000)
          assert.strictEqual(Option.getOrThrow(rest).length, 1_000 - 11)
        }))

      it.scoped("an expected size that is wrong (the file grew or shrank since fstat) still reads what is there", () =>
        Effect.gen(function*() {
          const { fs, write } = yield* setup
          const file = yield* write("ws/grown.txt", new Uint8Array(200_000).fill(0x62))
          const grown = yield* FileAccess.readBounded(yield* fs.open(file), 1_000_000, 3)
          assert.strictEqual(Option.getOrThrow(grown).length, 200_000)
          const shrunk = yield* FileAccess.readBounded(yield* fs.open(file), 1_000_000, 300_000)
          assert.strictEqual(Option.getOrThrow(shrunk).length, 200_000)
          const exact = yield* FileAccess.readBounded(yield* fs.open(file), 1_000_000, 200_000)
          assert.strictEqual(Option.getOrThrow(exact).length, 200_000)
          assert.isTrue(Option.isNone(yield* FileAccess.readBounded(yield* fs.open(file), 199_999, 3)))
        }))

      it.scoped("stops on an endless device", () =>
        Effect.gen(function*() {
          const fs = yield* FileSystem.FileSystem
          const zero = yield* fs.open("/dev/zero")
          const result = yield* FileAccess.readBounded(zero, 1_000_000).pipe(Effect.timeout("5 seconds"))
          assert.isTrue(Option.isNone(result))
        }))

      it.scoped("a file whose size stat does not report (/proc) is still capped while reading", () =>
        Effect.gen(function*() {
          if (!existsSync("/proc/self/status")) return
          const proc = yield* resolveWorkspace("/proc/self")
          const error = yield* Effect.flip(readSource(proc, "status", 64))
          assert.strictEqual(error.code, "LSP_SOURCE_TOO_LARGE")
          const source = yield* readSource(proc, "status", 1_000_000)
          assert.include(source.text, "Name:")
        }))

      it.scoped("never leaks a file handle, on failure or interruption", () =>
        Effect.gen(function*() {
          if (!existsSync("/proc/self/fd")) return
          const { workspace, write } = yield* setup
          yield* write("ws/ok.ts", "ok")
          yield* write("ws/bin.ts", new Uint8Array([0]))
          yield* write("ws/bad.ts", new Uint8Array([0xff]))
          yield* write("ws/big.ts", new Uint8Array(3_000_000).fill(0x61))
          const before = yield* openFds
          for (let i = 0; i < 20; i++) {
            for (const file of ["ok.ts", "bin.ts", "bad.ts", "big.ts"]) {
              yield* Effect.either(readSource(workspace, file, 100))
            }
            const fiber = yield* Effect.fork(readSource(workspace, "big.ts", 4_000_000))
            yield* Effect.sleep(i % 4)
            yield* Fiber.interrupt(fiber)
          }
          assert.strictEqual(yield* openFds, before)
        }))
    })

    describe("file URIs", () => {
      it.scoped("percent-encode spaces, #, %, ? and non-ASCII, and round-trip", () =>
        Effect.gen(function*() {
          const { path, workspace, write } = yield* setup
          const name = "a b#c%d?e é 日本.ts"
          const file = yield* write(`ws/dir with space#1/${name}`, "x")
          const source = yield* readSource(workspace, `dir with space#1/${name}`, 10)
          assert.strictEqual(source.path, file)
          assert.strictEqual(
            source.uri,
            `file://${workspace.path}/dir%20with%20space%231/a%20b%23c%25d%3Fe%20%C3%A9%20%E6%97%A5%E6%9C%AC.ts`
          )
          assert.strictEqual(yield* uriToPath(source.uri), file)
          assert.strictEqual(new URL(source.uri).pathname.endsWith("%E6%97%A5%E6%9C%AC.ts"), true)
          assert.isFalse(path.isAbsolute(source.uri))
        }))

      it.scoped("workspaces with special characters round-trip too", () =>
        Effect.gen(function*() {
          const { fs, path, root } = yield* setup
          const dir = path.join(root, "wörk space?#%")
          yield* fs.makeDirectory(dir)
          const workspace = yield* resolveWorkspace(dir)
          assert.strictEqual(workspace.uri, `file://${root}/w%C3%B6rk%20space%3F%23%25`)
          assert.strictEqual(yield* uriToPath(workspace.uri), dir)
        }))

      it.scoped("fileUri refuses relative paths; uriToPath refuses other schemes and garbage", () =>
        Effect.gen(function*() {
          assert.strictEqual((yield* Effect.flip(fileUri("relative/a.ts"))).code, "LSP_INVALID_ARGUMENTS")
          for (
            const uri of ["https://example.com/a.ts", "untitled:Untitled-1", "not a uri", "file://remote-host/a.ts"]
          ) {
            assert.strictEqual((yield* Effect.flip(uriToPath(uri))).code, "LSP_INVALID_ARGUMENTS", uri)
          }
          assert.strictEqual(yield* uriToPath("file:///tmp/a%20b.ts"), "/tmp/a b.ts")
        }))
    })

    it.effect("isInside compares whole path segments", () =>
      Effect.gen(function*() {
        const path = yield* Path.Path
        assert.isTrue(isInside(path, "/ws", "/ws"))
        assert.isTrue(isInside(path, "/ws", "/ws/a.ts"))
        assert.isTrue(isInside(path, "/ws", "/ws/..foo/a.ts"))
        assert.isTrue(isInside(path, "/", "/etc/passwd"))
        assert.isFalse(isInside(path, "/ws", "/ws2/a.ts"))
        assert.isFalse(isInside(path, "/ws", "/w"))
        assert.isFalse(isInside(path, "/ws", "/"))
        assert.isFalse(isInside(path, "/ws/a", "/ws/b/c"))
      }))
  })
}
