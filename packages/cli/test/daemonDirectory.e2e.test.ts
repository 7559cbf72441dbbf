import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { runCli } from "./support/cli.js"
import { fakeWorkspace, processesWith } from "./support/remote.js"

// The directory of `--remote auto`'s daemon where XDG_RUNTIME_DIR is unset: `<tmpdir>/lsp-seam-<uid>`, a
// name other local users can predict and make first. Each test has its own tmpdir, shared like /tmp (1777).
const timeout = 90_000

const hoverFake = { answers: { "textDocument/hover": { contents: "fake hover" } } }

const isRoot = process.getuid?.() === 0

/** Runs `script` (`sh -c`, with `args` as $1…) as `nobody`: the other local user. */
const asNobody = (script: string, ...args: ReadonlyArray<string>) => {
  const result = ChildProcess.spawnSync(
    "setpriv",
    ["--reuid=65534", "--regid=65534", "--clear-groups", "--", "sh", "-c", script, "sh", ...args],
    { encoding: "utf8" }
  )
  assert.strictEqual(result.status, 0, `${result.error ?? ""}${result.stderr}`)
}

const query = ["query", "hover", "fake.fake:1:1", "--remote", "auto"]

/** A workspace whose commands use `<its tmp>/lsp-seam-<uid>` (no XDG_RUNTIME_DIR), and that directory's files. */
const sharedTmp = Effect.gen(function*() {
  const fake = yield* fakeWorkspace({ fake: { extension: ".fake", fake: hoverFake } })
  // Others may reach the shared tmp (as they reach /tmp), not write in the workspace.
  NodeFs.chmodSync(fake.dir, 0o711)
  const tmp = NodePath.join(fake.dir, "tmp")
  NodeFs.mkdirSync(tmp)
  NodeFs.chmodSync(tmp, 0o1777)
  const env = { XDG_RUNTIME_DIR: "", TMPDIR: tmp, LSP_SEAM_IDLE_EXIT: "1m" }
  const probe = yield* runCli(["doctor", "--remote", "auto"], { cwd: fake.dir, env })
  const socket = /nothing answers at (\S+)\)/.exec(probe.stderr)?.[1]
  assert.isDefined(socket, probe.stderr)
  const directory = NodePath.dirname(socket!)
  assert.strictEqual(directory, NodePath.join(tmp, `lsp-seam-${process.getuid?.()}`))
  assert.isFalse(NodeFs.existsSync(directory), "doctor makes nothing")
  const victim = NodePath.join(fake.dir, "victim.txt")
  NodeFs.writeFileSync(victim, "the victim's own text\n", { mode: 0o600 })
  return {
    fake,
    env,
    directory,
    victim,
    socket: socket!,
    log: socket!.replace(/\.sock$/, ".log"),
    daemons: () => processesWith(`${directory}/daemon-`)
  }
})

/** The client's refusal, as `query --remote auto` prints it: the directory named, with what to do. */
const assertRefused = (result: { code: number; stderr: string }, directory: string, why: RegExp) => {
  assert.strictEqual(result.code, 1, result.stderr)
  assert.match(result.stderr, /^error\[LSP_INVALID_CONFIG\]: The lsp-seam socket directory /)
  assert.include(result.stderr, `"${directory}"`)
  assert.match(result.stderr, why)
  assert.include(result.stderr, "nothing was created or written in it")
}

describe("the daemon's directory (--remote auto) is verified before anything is written in it", () => {
  it.scopedLive.runIf(isRoot)(
    "a directory planted by another user (0777) with a symlink named like the log: the victim file is unchanged",
    () =>
      Effect.gen(function*() {
        const shared = yield* sharedTmp
        asNobody("mkdir -m 0777 \"$1\" && ln -s \"$2\" \"$3\"", shared.directory, shared.victim, shared.log)
        assert.strictEqual(NodeFs.lstatSync(shared.directory).uid, 65534)
        const result = yield* runCli(query, { cwd: shared.fake.dir, env: shared.env })
        assert.strictEqual(NodeFs.readFileSync(shared.victim, "utf8"), "the victim's own text\n")
        assertRefused(result, shared.directory, /belongs to another user \(uid 65534\)/)
        // Nothing was made there: no lock, no configuration, no daemon.
        assert.deepStrictEqual(NodeFs.readdirSync(shared.directory), [NodePath.basename(shared.log)])
        assert.deepStrictEqual(shared.daemons(), [])
        // serve refuses it in the same words (the same check).
        const served = yield* runCli(["serve", "--socket", shared.socket], { cwd: shared.fake.dir, env: shared.env })
        assert.strictEqual(served.code, 1, served.stderr)
        assert.strictEqual(served.stderr.split("\n")[0], result.stderr.split("\n")[0])
        // Once it is gone, the client makes its own (0700, in the sticky tmp) and is answered.
        NodeFs.rmSync(shared.directory, { recursive: true })
        const answer = yield* runCli(query, { cwd: shared.fake.dir, env: shared.env })
        assert.deepStrictEqual(answer, { code: 0, stdout: "fake hover\n", stderr: "" })
        const made = NodeFs.lstatSync(shared.directory)
        assert.strictEqual(made.mode & 0o7777, 0o700)
        assert.strictEqual(made.uid, process.getuid?.())
        assert.strictEqual(shared.daemons().length, 1)
      }),
    timeout
  )

  it.scopedLive(
    "the user's own directory writable by group or others is refused, with the fix",
    () =>
      Effect.gen(function*() {
        const shared = yield* sharedTmp
        for (const mode of [0o770, 0o777, 0o1777]) {
          NodeFs.mkdirSync(shared.directory)
          NodeFs.chmodSync(shared.directory, mode)
          const result = yield* runCli(query, { cwd: shared.fake.dir, env: shared.env })
          assertRefused(
            result,
            shared.directory,
            new RegExp(`is writable by other users \\(mode ${mode.toString(8)}\\)`)
          )
          assert.include(result.stderr, `chmod 700 "${shared.directory}"`)
          assert.deepStrictEqual(NodeFs.readdirSync(shared.directory), [])
          const served = yield* runCli(["serve"], { cwd: shared.fake.dir, env: shared.env })
          assert.strictEqual(served.stderr.split("\n")[0], result.stderr.split("\n")[0])
          NodeFs.rmdirSync(shared.directory)
        }
        assert.deepStrictEqual(shared.daemons(), [])
      }),
    timeout
  )

  it.scopedLive(
    "the directory's path a symbolic link (to a private directory) is refused; nothing is made there",
    () =>
      Effect.gen(function*() {
        const shared = yield* sharedTmp
        const target = NodePath.join(shared.fake.dir, "elsewhere")
        NodeFs.mkdirSync(target, { mode: 0o700 })
        NodeFs.symlinkSync(target, shared.directory)
        const result = yield* runCli(query, { cwd: shared.fake.dir, env: shared.env })
        assertRefused(result, shared.directory, /is not a directory \(or is a symbolic link\)/)
        assert.deepStrictEqual(NodeFs.readdirSync(target), [])
        assert.deepStrictEqual(shared.daemons(), [])
      }),
    timeout
  )

  it.scopedLive(
    "a directory whose parent others may write to without the sticky bit is refused",
    () =>
      Effect.gen(function*() {
        const shared = yield* sharedTmp
        NodeFs.chmodSync(shared.env.TMPDIR, 0o777)
        const result = yield* runCli(query, { cwd: shared.fake.dir, env: shared.env })
        assertRefused(result, shared.directory, /on its way, is writable by other users without the sticky bit/)
        assert.include(result.stderr, "XDG_RUNTIME_DIR")
        assert.isFalse(NodeFs.existsSync(shared.directory))
      }),
    timeout
  )

  it.scopedLive(
    "in the user's own private directory, a symlink at the log or the lock is replaced, never followed",
    () =>
      Effect.gen(function*() {
        const shared = yield* sharedTmp
        NodeFs.mkdirSync(shared.directory, { mode: 0o700 })
        NodeFs.symlinkSync(shared.victim, shared.log)
        NodeFs.symlinkSync(shared.victim, `${shared.socket}.lock`)
        const answer = yield* runCli(query, { cwd: shared.fake.dir, env: shared.env })
        assert.deepStrictEqual(answer, { code: 0, stdout: "fake hover\n", stderr: "" })
        assert.strictEqual(NodeFs.readFileSync(shared.victim, "utf8"), "the victim's own text\n")
        const log = NodeFs.lstatSync(shared.log)
        assert.isTrue(log.isFile())
        assert.strictEqual(log.mode & 0o777, 0o600)
        assert.isFalse(NodeFs.existsSync(`${shared.socket}.lock`))
      }),
    timeout
  )
})
