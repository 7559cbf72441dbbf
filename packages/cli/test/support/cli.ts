import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Command from "@effect/platform/Command"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

/** The compiled command, as `npx lsp-seam` runs it (built by the globalSetup). */
export const bin = fileURLToPath(new URL("../../dist/bin.js", import.meta.url))

/** The fixture workspace: a tiny TypeScript project (an interface, a class, their use). */
export const workspace = fileURLToPath(new URL("../fixtures/ts-workspace", import.meta.url))

export const workspaceUri = (dir: string = workspace): string => pathToFileURL(NodeFs.realpathSync(dir)).href

/** The stdio test server of @lsp-seam/lsp-stdio, driven by FAKE_LSP (see the header of that script). */
export const fakeServer = fileURLToPath(
  new URL("../../../lsp-stdio/test/fixtures/fake-server.mjs", import.meta.url)
)

export interface CliRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const text = (stream: Stream.Stream<Uint8Array, unknown>) =>
  stream.pipe(Stream.decodeText(), Stream.runFold("", (all, chunk) => all + chunk))

/** Runs `node dist/bin.js ...args` to its end and collects both streams and the exit code. */
export const runCli = (
  args: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string>; readonly cwd?: string } = {}
): Effect.Effect<CliRun> =>
  Effect.gen(function*() {
    const process_ = yield* Command.make(process.execPath, bin, ...args).pipe(
      Command.env(options.env ?? {}),
      Command.workingDirectory(options.cwd ?? workspace),
      Command.start
    )
    const [stdout, stderr, code] = yield* Effect.all(
      [text(process_.stdout), text(process_.stderr), process_.exitCode],
      { concurrency: "unbounded" }
    )
    return { code, stdout, stderr }
  }).pipe(Effect.scoped, Effect.provide(NodeContext.layer), Effect.orDie)

/** A fresh directory under the OS temp dir (no node_modules above it). */
export const tempDir = (prefix: string): string =>
  NodeFs.mkdtempSync(NodePath.join(NodeFs.realpathSync(NodeOs.tmpdir()), `lsp-seam-${prefix}-`))

/** `tempDir`, removed when the scope closes (also when the test fails or times out). */
export const scopedTempDir = (prefix: string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => tempDir(prefix)),
    (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
  )
