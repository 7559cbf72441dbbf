/**
 * Issue 41: diagnostics for the current disk text, through every path. With real pyright (push-only unless a
 * client accepts its dynamic pull registration) and real typescript-language-server (unversioned push), through a
 * long-lived host (`lsp-seam serve`, queried by `query --remote`: the server already holds the file) and through
 * one-shot local queries: an error written into a file is in the first answer after the write; after the revert
 * the first answer has none of it. A file's answer lists only diagnostics located in that file; the places a
 * diagnostic relates to stay under it, labelled `related:`.
 *
 * The workspaces are made so that the server has other work when the file changes: files that import the changed
 * one are open too (asked first), as in a session that has looked around before editing.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { bin, runCli, scopedTempDir } from "./support/cli.js"
import { serve } from "./support/remote.js"

const timeout = 180_000

/** A module that uses `answer` from `main` in many small functions: checking it takes the server a while. */
const pythonUser = (count: number) =>
  [
    "from main import answer",
    "",
    ...Array.from({ length: count }, (_, i) =>
      `def f${i}(x: int) -> int:\n    y = [answer + x + k for k in range(${i})]\n    return sum(y) + len(str(y))\n`)
  ].join("\n")

const tsUser = (count: number) =>
  [
    "import { answer } from \"./main\"",
    "",
    ...Array.from({ length: count }, (_, i) =>
      `export function f${i}(x: number): number {\n  const y = [answer, x, ${i}].map((k) => k * 2)\n  return y.reduce((a, b) => a + b, 0)\n}\n`)
  ].join("\n")

interface Case {
  readonly name: string
  readonly files: Record<string, string>
  readonly file: string
  readonly clean: string
  readonly broken: string
  /** What the first line of the broken file's answer must start with, and what it must hold. */
  readonly errorAt: string
  readonly errorText: string
  /** The other files, asked first so that the long-lived server holds them open. */
  readonly others: ReadonlyArray<string>
}

const cases: ReadonlyArray<Case> = [
  {
    name: "pyright",
    files: { "a_users.py": pythonUser(300), "b_users.py": pythonUser(300) },
    file: "main.py",
    clean: "answer: int = 42\n",
    broken: "answer: int = \"forty-two\"\n",
    errorAt: "main.py:1:15  error  ",
    errorText: "reportAssignmentType",
    others: ["a_users.py", "b_users.py"]
  },
  {
    name: "typescript",
    files: {
      "tsconfig.json": JSON.stringify({ compilerOptions: { strict: true, noEmit: true }, include: ["*.ts"] }),
      "a_users.ts": tsUser(200),
      "b_users.ts": tsUser(200)
    },
    file: "main.ts",
    clean: "export const answer: number = 42\n",
    // Wrong in main.ts, and it breaks both users (a string times two): their errors are not main.ts's.
    broken: "export const answer: string = 42\n",
    errorAt: "main.ts:1:14  error  ",
    errorText: "2322",
    others: ["a_users.ts", "b_users.ts"]
  }
]

/** Every line of a rendered answer is the asked file's, or a related place under one of its diagnostics. */
const assertOnlyOwn = (stdout: string, file: string, step: string) => {
  for (const line of stdout.trimEnd().split("\n")) {
    assert.isTrue(
      line.startsWith(`${file}:`) || line.startsWith("  related: "),
      `${step}: a line not of ${file}: ${line}`
    )
  }
}

const ToolResult = Schema.Struct({
  content: Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) }))
})

/** An MCP session with `lsp-seam mcp` in `dir`, closed with the scope; `ask` is the text of one diagnostics call. */
const mcpSession = (dir: string) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(async () => {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [bin, "mcp", "--cwd", dir, "--no-prewarm"],
          stderr: "pipe"
        })
        const client = new Client({ name: "lsp-seam-test", version: "0.0.0" })
        await client.connect(transport)
        return client
      }),
      (client) => Effect.promise(() => client.close())
    ),
    (client) => (file: string) =>
      Effect.map(
        Effect.promise(() =>
          client.callTool({ name: "lsp", arguments: { operation: "diagnostics", file_path: file } })
        ),
        (result) => Schema.decodeUnknownSync(ToolResult)(result).content.map((part) => part.text ?? "").join("")
      )
  )

describe("diagnostics of the current disk text (issue 41)", () => {
  for (const testCase of cases) {
    it.scopedLive(
      `${testCase.name}: the first answer after a write and after its revert, through MCP`,
      () =>
        Effect.gen(function*() {
          const dir = yield* scopedTempDir("diagnostics")
          for (const [name, text] of Object.entries(testCase.files)) {
            NodeFs.writeFileSync(NodePath.join(dir, name), text)
          }
          const write = (text: string) => NodeFs.writeFileSync(NodePath.join(dir, testCase.file), text)
          write(testCase.clean)
          const ask = yield* mcpSession(dir)
          for (const other of testCase.others) yield* ask(other)
          assert.strictEqual(yield* ask(testCase.file), "No diagnostics.", "clean")
          for (let round = 1; round <= 2; round++) {
            write(testCase.broken)
            const answer = yield* ask(testCase.file)
            assert.isTrue(answer.startsWith(testCase.errorAt), `round ${round}, broken: ${answer}`)
            assertOnlyOwn(answer, testCase.file, `round ${round}, broken`)
            write(testCase.clean)
            assert.strictEqual(yield* ask(testCase.file), "No diagnostics.", `round ${round}, reverted`)
          }
        }),
      timeout
    )
  }

  for (const testCase of cases) {
    it.scopedLive(
      `${testCase.name}: the first answer after a write and after its revert, served and local`,
      () =>
        Effect.gen(function*() {
          const dir = yield* scopedTempDir("diagnostics")
          for (const [name, text] of Object.entries(testCase.files)) {
            NodeFs.writeFileSync(NodePath.join(dir, name), text)
          }
          const write = (text: string) => NodeFs.writeFileSync(NodePath.join(dir, testCase.file), text)
          write(testCase.clean)
          const served = yield* serve(["--socket", NodePath.join(dir, "host.sock"), "--no-prewarm"], { cwd: dir })
          const socket = served.address.replace(/^unix:/, "")
          const ask = (file: string, remote: boolean) =>
            Effect.map(
              runCli(["query", "diagnostics", file, ...(remote ? ["--remote", socket] : [])], { cwd: dir }),
              (run) => {
                assert.strictEqual(run.code, 0, `${file}: ${run.stderr}`)
                return run.stdout
              }
            )
          // The long-lived host holds the other files and the asked one before the edit.
          for (const other of testCase.others) yield* ask(other, true)
          assert.strictEqual(yield* ask(testCase.file, true), "No diagnostics.\n", "served, clean")
          for (let round = 1; round <= 2; round++) {
            write(testCase.broken)
            for (const remote of [true, false]) {
              const step = `round ${round}, ${remote ? "served" : "local"}, broken`
              const answer = yield* ask(testCase.file, remote)
              assert.isTrue(answer.startsWith(testCase.errorAt), `${step}: ${answer}`)
              assert.include(answer, testCase.errorText, step)
              assertOnlyOwn(answer, testCase.file, step)
            }
            write(testCase.clean)
            for (const remote of [true, false]) {
              const step = `round ${round}, ${remote ? "served" : "local"}, reverted`
              assert.strictEqual(yield* ask(testCase.file, remote), "No diagnostics.\n", step)
            }
          }
        }),
      timeout
    )
  }

  it.scopedLive(
    "typescript: related information stays under its diagnostic, labelled, even in another file",
    () =>
      Effect.gen(function*() {
        const dir = yield* scopedTempDir("diagnostics")
        NodeFs.writeFileSync(
          NodePath.join(dir, "tsconfig.json"),
          JSON.stringify({ compilerOptions: { strict: true, noEmit: true }, include: ["*.ts"] })
        )
        NodeFs.writeFileSync(NodePath.join(dir, "box.ts"), "export interface Box {\n  size: number\n}\n")
        NodeFs.writeFileSync(
          NodePath.join(dir, "main.ts"),
          "import type { Box } from \"./box\"\n\nexport const box: Box = { size: \"large\" }\n"
        )
        const served = yield* serve(["--socket", NodePath.join(dir, "host.sock"), "--no-prewarm"], { cwd: dir })
        const socket = served.address.replace(/^unix:/, "")
        for (const remote of [true, false]) {
          const run = yield* runCli(
            ["query", "diagnostics", "main.ts", ...(remote ? ["--remote", socket] : [])],
            { cwd: dir }
          )
          assert.strictEqual(run.code, 0, run.stderr)
          const lines = run.stdout.trimEnd().split("\n")
          assert.match(lines[0]!, /^main\.ts:3:27 {2}error {2}Type 'string' is not assignable to type 'number'\./)
          // The declaration the expected type comes from, in box.ts: part of main.ts's diagnostic, not one of box.ts.
          assert.match(lines[1]!, /^ {2}related: box\.ts:2:3 {2}The expected type comes from property 'size'/)
          assert.strictEqual(lines.length, 2, run.stdout)
        }
      }),
    timeout
  )
})
