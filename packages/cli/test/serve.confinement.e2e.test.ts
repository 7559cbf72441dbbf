import { assert, describe, it } from "@effect/vitest"
import { LspError } from "@lsp-seam/lsp"
import { LspSeam } from "@lsp-seam/setup"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { fakeServer, runCli, scopedTempDir } from "./support/cli.js"
import { descendantsOf, fakeWorkspace, readRecord, serve, startedPids, waitFor } from "./support/remote.js"

// Nothing outside the served roots reaches a client, even while the files of a root change under the host:
// real `lsp-seam serve --listen` processes, a real fake language server that answers a hover with the text it
// was sent, and a child process that flips links between a file inside the root and one outside.
const timeout = 120_000

const flipper = fileURLToPath(new URL("./fixtures/link-flipper.mjs", import.meta.url))

const urlOf = (address: string) => address.replace(/^ws:/, "http:").replace(/\/lsp-seam$/, "")

interface FlipSpec {
  readonly links: ReadonlyArray<{ readonly path: string; readonly inside: string; readonly outside: string }>
  readonly directories: ReadonlyArray<{ readonly path: string; readonly outside: string }>
}

/** The last line of the flipper. */
const FlipperReport = Schema.parseJson(Schema.Struct({ flips: Schema.Number }))

/**
 * The flipper (fixtures/link-flipper.mjs) running until the returned Effect is run: it then ends its stdin,
 * waits for it to restore every path, and yields how many times it flipped them all.
 */
const flipping = (spec: FlipSpec) =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        ChildProcess.spawn(process.execPath, [flipper, JSON.stringify(spec)], { stdio: ["pipe", "pipe", "pipe"] })
      ),
      (child) => Effect.sync(() => child.kill("SIGKILL"))
    )
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    const exited = () => child.exitCode !== null || child.signalCode !== null
    yield* waitFor("the flipper to flip", () => stdout.startsWith("flipping\n") || exited(), 10_000)
    if (exited()) return yield* Effect.die(new Error(`the flipper stopped: ${stderr}`))
    return Effect.gen(function*() {
      child.stdin!.end()
      yield* waitFor("the flipper to stop", exited, 10_000)
      assert.strictEqual(child.exitCode, 0, stderr)
      return Schema.decodeUnknownSync(FlipperReport)(stdout.trim().split("\n").at(-1)).flips
    })
  })

type Outcome =
  | { readonly file: string; readonly text: string }
  | { readonly file: string; readonly error: { readonly code: string; readonly message: string } }

const keyOf = (outcome: Outcome) =>
  "text" in outcome
    ? `${outcome.file}: answered`
    : `${outcome.file}: ${outcome.error.code}${
      /changed while it was being opened/.test(outcome.error.message) ? " (descriptor check)" : ""
    }`

describe("a symlink swapped between check and open", () => {
  it.scopedLive(
    "queries on links flipped in and out of the root answer about the inside file or refuse, never the outside",
    () =>
      Effect.gen(function*() {
        const fake = yield* fakeWorkspace({ fake: { extension: ".fake", fake: { echoText: true } } })
        const outside = yield* scopedTempDir("outside")
        const secret = "OUTSIDE-SECRET-7f3a"
        const write = (path: string, text: string) => {
          NodeFs.mkdirSync(NodePath.dirname(path), { recursive: true })
          NodeFs.writeFileSync(path, text)
        }
        // A file link (link.fake → inside.fake or → outside) and a directory of the root (sub/, for a moment a
        // link to a directory outside), each with a text of its own on both sides.
        write(NodePath.join(fake.dir, "inside.fake"), "inside, through the link\n")
        write(NodePath.join(outside, "secret.fake"), `${secret} behind the link\n`)
        write(NodePath.join(fake.dir, "sub", "file.fake"), "inside, in sub\n")
        write(NodePath.join(outside, "sub", "file.fake"), `${secret} in the swapped directory\n`)
        const link = NodePath.join(fake.dir, "link.fake")
        NodeFs.symlinkSync(NodePath.join(fake.dir, "inside.fake"), link)
        const insideTexts = new Set(["inside, through the link", "inside, in sub"])
        const tokenFile = NodePath.join(fake.runtimeDir, "token")
        const served = yield* serve(
          ["--listen", "127.0.0.1:0", "--token-file", tokenFile, "--root", fake.dir, "--no-prewarm"],
          { cwd: fake.dir }
        )
        const client = yield* Effect.acquireRelease(
          Effect.sync(() =>
            LspSeam.makeClient({ remote: urlOf(served.address), tokenFile, workingDirectory: fake.dir })
          ),
          (client) => Effect.promise(() => client.close())
        )
        const hover = (file: string): Effect.Effect<Outcome> =>
          Effect.promise(() =>
            client.query({ operation: "hover", file_path: file, line: 1, character: 1 }).then(
              (answer) => ({ file, text: answer.text.trim() }),
              (error: unknown) => LspError.isLspError(error) ? { file, error } : Promise.reject(error)
            )
          )
        // Both files answer from inside before the race.
        for (const file of ["link.fake", "sub/file.fake"]) {
          const before = yield* hover(file)
          assert.isTrue("text" in before && insideTexts.has(before.text), JSON.stringify(before))
        }
        const stop = yield* flipping({
          links: [{
            path: link,
            inside: NodePath.join(fake.dir, "inside.fake"),
            outside: NodePath.join(outside, "secret.fake")
          }],
          directories: [{ path: NodePath.join(fake.dir, "sub"), outside: NodePath.join(outside, "sub") }]
        })
        // Rounds of queries until the race has shown every side: each file answered from inside and refused,
        // and the descriptor check (sub/ swapped after the path was checked, before it was opened) refused one.
        const outcomes: Array<Outcome> = []
        const seen = (key: string) => outcomes.some((outcome) => keyOf(outcome) === key)
        const complete = () =>
          ["link.fake", "sub/file.fake"].every((file) =>
            seen(`${file}: answered`) && outcomes.some((o) => o.file === file && "error" in o)
          ) && seen("sub/file.fake: LSP_SOURCE_OUTSIDE_WORKSPACE (descriptor check)")
        while (outcomes.length < 4_000 && (outcomes.length === 0 || !complete())) {
          const round = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? "link.fake" : "sub/file.fake"))
          outcomes.push(...yield* Effect.forEach(round, hover, { concurrency: 4 }))
        }
        const flips = yield* stop
        const counts = new Map<string, number>()
        for (const outcome of outcomes) counts.set(keyOf(outcome), (counts.get(keyOf(outcome)) ?? 0) + 1)
        console.log(
          `${outcomes.length} queries during ${flips} flips: ${JSON.stringify(Object.fromEntries([...counts].sort()))}`
        )
        for (const outcome of outcomes) {
          if ("text" in outcome) {
            assert.isTrue(insideTexts.has(outcome.text), `${outcome.file} answered ${JSON.stringify(outcome.text)}`)
          } else {
            // Outside (refused by the served roots, or by the stdio host when the link flipped after their check),
            // missing (sub/ moved aside), or gone between the check and the open.
            assert.include(
              [
                "LSP_REMOTE_FORBIDDEN",
                "LSP_SOURCE_OUTSIDE_WORKSPACE",
                "LSP_SOURCE_NOT_FOUND",
                "LSP_SOURCE_NOT_A_FILE"
              ],
              outcome.error.code,
              `${outcome.file}: ${outcome.error.message}`
            )
            assert.notInclude(outcome.error.message, secret)
          }
        }
        // Nothing of the outside files reached the language server either (it records every message).
        const sent = readRecord(fake.record("fake")).filter((r) => r.type === "message")
        assert.isAbove(sent.filter((r) => r.method === "textDocument/didOpen").length, 0)
        assert.deepStrictEqual(sent.filter((r) => JSON.stringify(r).includes(secret)), [])
        assert.isTrue(complete(), "the race did not show every side within 4,000 queries")
        assert.isAbove(flips, 0)
      }),
    timeout
  )
})

/**
 * `strace` where the tests run (CI installs it, .ci/run): the file system calls of `serve` and of every
 * process it starts are written to `trace`. Spawned under strace rather than attached, which needs no ptrace
 * permission beyond a parent's; a refusal there fails the test (the trace then misses the controls below).
 */
/** The path a traced call names (its first string argument), unless it names a descriptor instead. */
const tracedPath = (line: string): ReadonlyArray<string> => {
  const path = /^[0-9]+ +[a-z0-9_]+\((?:AT_FDCWD, )?"([^"]+)"/.exec(line)?.[1]
  return path === undefined ? [] : [path]
}

/** `path` and each directory above it. */
const ancestors = (path: string): ReadonlyArray<string> =>
  path === NodePath.dirname(path) ? [path] : [path, ...ancestors(NodePath.dirname(path))]

const straced = (trace: string) => ["strace", "-f", "-qq", "-s", "4096", "-e", "trace=%file", "-o", trace]

describe("a refusal leaves no process and no file read outside", () => {
  it.scopedLive(
    "refused workspaces (outside, /, .., a link out) and files: no process started, nothing below them traced",
    () =>
      Effect.gen(function*() {
        const fake = yield* fakeWorkspace({ fake: { extension: ".fake", fake: { echoText: true } } })
        const outside = yield* scopedTempDir("outside")
        // What a host that looked would find: the query's file, and a configuration of its own.
        NodeFs.writeFileSync(NodePath.join(outside, "fake.fake"), "outside\n")
        NodeFs.writeFileSync(
          NodePath.join(outside, "lsp-seam.json"),
          NodeFs.readFileSync(NodePath.join(fake.dir, "lsp-seam.json"))
        )
        NodeFs.symlinkSync(outside, NodePath.join(fake.dir, "link-out"))
        const trace = NodePath.join(fake.runtimeDir, "serve.strace")
        const tokenFile = NodePath.join(fake.runtimeDir, "token")
        const served = yield* serve(
          ["--listen", "127.0.0.1:0", "--token-file", tokenFile, "--root", fake.dir, "--no-prewarm"],
          { cwd: fake.dir, wrap: straced(trace) }
        )
        const traced = () => NodeFs.readFileSync(trace, "utf8")
        // The host traced is the process that answers: strace runs it, and it has started nothing yet.
        const byServe = new RegExp(`^${served.pid} +`)
        assert.isTrue(traced().split("\n").some((line) => byServe.test(line) && line.includes(" execve(")))
        assert.deepStrictEqual(descendantsOf(served.pid), [])
        const query = (cwd: string, file: string) =>
          runCli(
            [
              "query",
              "hover",
              `${file}:1:1`,
              "--remote",
              urlOf(served.address),
              "--token-file",
              tokenFile,
              "--cwd",
              cwd
            ],
            { cwd: fake.dir }
          )
        const refusals: ReadonlyArray<readonly [string, string]> = [
          [outside, "fake.fake"],
          ["/", NodePath.join(outside, "fake.fake")],
          [NodePath.join(fake.dir, ".."), NodePath.join(NodePath.basename(outside), "fake.fake")],
          [NodePath.join(fake.dir, "link-out"), "fake.fake"],
          // A workspace inside, a file outside: existing or not, as written or through a link out of the root.
          [fake.dir, NodePath.join(outside, "fake.fake")],
          [fake.dir, NodePath.join(outside, "missing.fake")],
          [fake.dir, "link-out/fake.fake"]
        ]
        // Refusals of paths that exist nowhere mark the start and the end of the refusals in the trace (resolving
        // such a path is the host's first and only look at it).
        const marker = (end: string) => `/lsp-seam-marker-${end}-${process.pid}-${Date.now()}`
        const [start, end] = [marker("start"), marker("end")]
        assert.strictEqual((yield* query(start, "fake.fake")).code, 1)
        const fileRefusals = new Set<string>()
        for (const [cwd, file] of refusals) {
          const refused = yield* query(cwd, file)
          assert.strictEqual(refused.code, 1, `${cwd}: ${refused.stderr}`)
          assert.match(refused.stderr, /^error\[LSP_REMOTE_FORBIDDEN\]: /)
          assert.deepStrictEqual(descendantsOf(served.pid), [], `a process under serve after refusing ${cwd} ${file}`)
          if (cwd === fake.dir) fileRefusals.add(refused.stderr.replace(JSON.stringify(file), "<file>"))
        }
        // Whether the file outside exists, or where the link points, the refusal reads the same.
        assert.strictEqual(fileRefusals.size, 1, [...fileRefusals].join("\n"))
        assert.strictEqual((yield* query(end, "fake.fake")).code, 1)
        // Then a query inside, whose server starts under serve. Once the inside query's file and server are in
        // the trace, so is everything the host did before.
        const inside = yield* query(fake.dir, "fake.fake")
        assert.deepStrictEqual(inside, { code: 0, stdout: "hello world\nsecond line\n", stderr: "" })
        const [server] = startedPids(fake.record("fake"))
        assert.include(descendantsOf(served.pid), server)
        yield* waitFor(
          "the inside query in the trace",
          () => traced().includes(`"${NodePath.join(fake.dir, "fake.fake")}"`) && traced().includes(fakeServer),
          10_000
        )
        const lines = traced().split("\n")
        const refusalsStart = lines.findIndex((line) => line.includes(start))
        const refusalsEnd = lines.findIndex((line) => line.includes(end))
        assert.isAbove(refusalsStart, 0)
        assert.isAbove(refusalsEnd, refusalsStart)
        // While refusing, the host looked only at the components of the workspace paths it was given (and of
        // link-out's target): the realpath of each, nothing else anywhere.
        const components = [start, end, outside, ...refusals.map(([cwd]) => NodePath.resolve(cwd))].flatMap(ancestors)
        const looked = lines.slice(refusalsStart, refusalsEnd + 1).flatMap(tracedPath)
        assert.isAbove(looked.length, 0)
        assert.deepStrictEqual(
          looked.map((path) => NodePath.resolve(fake.dir, path)).filter((path) => !components.includes(path)),
          []
        )
        // Nothing below the refused workspaces was looked at: not the query's file, not a configuration, not a
        // path through the link, however written. (Resolving a workspace path reads its own components: `outside`
        // itself, as the target of link-out, may appear; nothing under it.)
        const fragments = [`${outside}/`, `${NodePath.basename(outside)}/`, "link-out/"]
        const below = lines.filter((line) => fragments.some((fragment) => line.includes(fragment)))
        assert.deepStrictEqual(below, [])
        // No program was started before the inside query (but serve itself); then its server was.
        const execs = (from: number, to: number) =>
          lines.slice(from, to).filter((line) => line.includes(" execve(") && !byServe.test(line))
        assert.deepStrictEqual(execs(0, refusalsEnd), [])
        assert.isTrue(execs(refusalsEnd, lines.length).some((line) => line.includes(fakeServer)))
      }),
    timeout
  )
})
