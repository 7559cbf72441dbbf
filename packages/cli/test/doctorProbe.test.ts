import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { LspService } from "@lsp-seam/lsp"
import { LspStdio } from "@lsp-seam/lsp-stdio"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as DoctorProbe from "../src/internal/doctor/doctorProbe.js"
import { fakeServer, scopedTempDir } from "./support/cli.js"

/** A temporary tree: keys are relative paths; a value is a file's text, `null` an empty directory. */
const tree = (files: Record<string, string | null>) =>
  Effect.map(scopedTempDir("doctor-tree"), (root) => {
    for (const [name, text] of Object.entries(files)) {
      const full = NodePath.join(root, name)
      if (text === null) {
        NodeFs.mkdirSync(full, { recursive: true })
      } else {
        NodeFs.mkdirSync(NodePath.dirname(full), { recursive: true })
        NodeFs.writeFileSync(full, text)
      }
    }
    return root
  })

const target = (providerId: string, extensions: ReadonlyArray<string>, maxBytes = 1_000_000) => ({
  providerId,
  extensions,
  maxBytes
})

const find = (root: string, targets: ReadonlyArray<DoctorProbe.Target>, maxEntries?: number) =>
  DoctorProbe.findFiles(root, targets, maxEntries).pipe(Effect.provide(NodeContext.layer))

// Live (not zombie) members of the process group led by `pgid`, from /proc.
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

describe("findFiles", () => {
  it.scoped("takes the first file in sorted order, shallower directories first", () =>
    Effect.gen(function*() {
      const root = yield* tree({
        "b.ts": "",
        "a.ts": "",
        "A.ts": "",
        "src/0.ts": "",
        "src/x.py": "",
        "aa/deep/z.py": ""
      })
      const search = yield* find(root, [target("ts", [".ts"]), target("py", [".py", ".pyi"])])
      assert.strictEqual(search.found.get("ts"), "A.ts")
      // Breadth first: src/x.py (depth 1) before aa/deep/z.py (depth 2), although "aa" sorts before "src".
      assert.strictEqual(search.found.get("py"), NodePath.join("src", "x.py"))
      assert.isFalse(search.truncated)
    }))

  it.scoped("skips dot-directories, node_modules, files too large and other extensions; dotfiles have none", () =>
    Effect.gen(function*() {
      const root = yield* tree({
        ".git/a.ts": "",
        ".hidden/b.ts": "",
        "node_modules/pkg/c.ts": "",
        ".ts": "",
        "big.ts": "x".repeat(100),
        "d.tsx": "",
        "lib/e.TS": ""
      })
      const search = yield* find(root, [target("ts", [".ts"], 10)])
      assert.strictEqual(search.found.get("ts"), NodePath.join("lib", "e.TS"))
    }))

  it.scoped("passes over a file the host could not open (binary, not UTF-8) for the next text file", () =>
    Effect.gen(function*() {
      const root = yield* tree({ "a.ts": "\u0000\u0001binary", "b.ts": "export const b = 1\n" })
      NodeFs.writeFileSync(NodePath.join(root, "a.py"), Buffer.from([0x63, 0xff, 0xfe, 0x0a]))
      NodeFs.writeFileSync(NodePath.join(root, "b.py"), "b = 1\n")
      const search = yield* find(root, [target("ts", [".ts"]), target("py", [".py"])])
      assert.strictEqual(search.found.get("ts"), "b.ts")
      assert.strictEqual(search.found.get("py"), "b.py")
    }))

  it.scoped("nothing to find: the whole tree is walked and reported as not truncated", () =>
    Effect.gen(function*() {
      const root = yield* tree({ "a.txt": "", "docs/b.md": "", "empty": null })
      const search = yield* find(root, [target("ts", [".ts"])])
      assert.strictEqual(search.found.size, 0)
      assert.strictEqual(search.visited, 4)
      assert.isFalse(search.truncated)
    }))

  it.scoped("stops after the entry cap, counting every entry it looked at", () =>
    Effect.gen(function*() {
      const root = yield* tree({ "a.txt": "", "b.txt": "", "c.txt": "", "d.ts": "" })
      const capped = yield* find(root, [target("ts", [".ts"])], 3)
      assert.strictEqual(capped.found.size, 0)
      assert.strictEqual(capped.visited, 3)
      assert.isTrue(capped.truncated)
      const enough = yield* find(root, [target("ts", [".ts"])], 4)
      assert.strictEqual(enough.found.get("ts"), "d.ts")
      assert.isFalse(enough.truncated)
    }))

  it.scoped("follows links only within the workspace, and enters a directory once however it is reached", () =>
    Effect.gen(function*() {
      const root = yield* tree({ "a/b/c/x.txt": "", "z/deep.ts": "" })
      const outside = yield* tree({ "elsewhere.ts": "", "dir/in.ts": "" })
      // A loop back to the root, a directory and a file outside, all sorted before "z".
      NodeFs.symlinkSync(root, NodePath.join(root, "a", "loop"))
      NodeFs.symlinkSync(NodePath.join(outside, "dir"), NodePath.join(root, "out-dir"))
      NodeFs.symlinkSync(NodePath.join(outside, "elsewhere.ts"), NodePath.join(root, "out.ts"))
      // A link to a file inside counts, under the name it was found by.
      NodeFs.symlinkSync(NodePath.join(root, "z", "deep.ts"), NodePath.join(root, "z", "alias.ts"))
      const search = yield* find(root, [target("ts", [".ts"])])
      assert.strictEqual(search.found.get("ts"), NodePath.join("z", "alias.ts"))
      // root: a, out-dir, out.ts, z; a: b, loop; z: alias.ts (the loop is not entered: it is the root again).
      assert.strictEqual(search.visited, 7)
      const none = yield* find(root, [target("py", [".py"])])
      // Everything once: 4 + 2 + 2 (z) + 1 (b) + 1 (c): the loop and the outside directory are not entered.
      assert.strictEqual(none.visited, 10)
      assert.isFalse(none.truncated)
    }))

  it.scoped("a name that starts with two dots is inside; a link into a skipped directory is skipped", () =>
    Effect.gen(function*() {
      const root = yield* tree({ "..main.ts": "", ".git/hook.py": "", "src/x.py": "" })
      NodeFs.symlinkSync(NodePath.join(root, ".git"), NodePath.join(root, "gitlink"))
      const search = yield* find(root, [target("ts", [".ts"]), target("py", [".py"])])
      assert.strictEqual(search.found.get("ts"), "..main.ts")
      assert.strictEqual(search.found.get("py"), NodePath.join("src", "x.py"))
    }))

  it.scoped("stops as soon as every target has a file", () =>
    Effect.gen(function*() {
      const root = yield* tree({ "a.ts": "", "b.txt": "", "sub/c.txt": "" })
      const search = yield* find(root, [target("ts", [".ts"])])
      assert.strictEqual(search.visited, 1)
    }))
})

const fakeHost = (fake: Record<string, unknown>) =>
  LspStdio.layer({
    servers: {
      fake: {
        command: process.execPath,
        args: [fakeServer],
        extensionToLanguage: { fake: "fake" },
        env: { FAKE_LSP: JSON.stringify(fake) },
        shutdownTimeoutMs: 1_000,
        killGraceMs: 300
      }
    }
  }).pipe(Layer.provideMerge(LspService.layer))

const inspectFake = (root: string, fake: Record<string, unknown>, timeout: Duration.DurationInput) =>
  DoctorProbe.inspect(root, [target("fake", [".fake"])], fakeHost(fake), { timeout }).pipe(
    Effect.provide(NodeContext.layer)
  )

describe("inspect", () => {
  it.scopedLive(
    "probes with one hover, reads the status while the server runs, then stops it",
    () =>
      Effect.gen(function*() {
        const root = yield* tree({ "main.fake": "x\n" })
        const inspection = yield* inspectFake(root, { answers: { "textDocument/hover": null } }, "10 seconds")
        assert.strictEqual(inspection._tag, "Ran")
        if (inspection._tag !== "Ran") return
        const probe = inspection.probes.get("fake")
        assert.strictEqual(probe?._tag, "Answered")
        if (probe?._tag === "Answered") assert.isTrue(probe.empty)
        assert.strictEqual(inspection.status.length, 1)
        const [status] = inspection.status
        assert.strictEqual(status?.state, "idle")
        assert.strictEqual(status?.queriesServed, 1)
        assert.isNumber(status?.pid)
        assert.isFalse(groupAlive(status!.pid!), "the server outlived inspect")
      }),
    20_000
  )

  it.scopedLive(
    "a server that does not answer in time: LSP_TIMEOUT naming the server and the file",
    () =>
      Effect.gen(function*() {
        const root = yield* tree({ "main.fake": "x\n" })
        const inspection = yield* inspectFake(root, { hang: ["request"] }, "300 millis")
        assert.strictEqual(inspection._tag, "Ran")
        if (inspection._tag !== "Ran") return
        const probe = inspection.probes.get("fake")
        assert.strictEqual(probe?._tag, "Failed")
        if (probe?._tag !== "Failed") return
        assert.strictEqual(probe.error.code, "LSP_TIMEOUT")
        assert.include(probe.error.message, "fake did not answer a hover on main.fake within 300ms")
        for (const status of inspection.status) {
          if (status.pid !== null) assert.isFalse(groupAlive(status.pid), "the server outlived inspect")
        }
      }),
    20_000
  )

  it.scopedLive("a host that cannot be built is reported, not raised", () =>
    Effect.gen(function*() {
      const root = yield* tree({})
      const broken = LspStdio.layer({
        servers: { gone: { command: "/nonexistent/server", extensionToLanguage: { gone: "gone" } } }
      }).pipe(Layer.provideMerge(LspService.layer))
      const inspection = yield* DoctorProbe.inspect(root, [target("gone", [".gone"])], broken).pipe(
        Effect.provide(NodeContext.layer)
      )
      assert.strictEqual(inspection._tag, "HostFailed")
      if (inspection._tag === "HostFailed") assert.strictEqual(inspection.error.code, "LSP_EXECUTABLE_NOT_FOUND")
    }))
})
