// The compiled CLI for the cluster's end-to-end tests (the CLI's global setup builds it): `lsp-seam runner`s and
// `lsp-seam serve --cluster` in a workspace whose `.fake` files a fake server answers, and commands against them.
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { tempDirectory, waitFor } from "./support.js"

const bin = NodePath.join(import.meta.dirname, "../../cli/dist/bin.js")
const fakeServer = NodePath.join(import.meta.dirname, "../../lsp-stdio/test/fixtures/fake-server.mjs")

export interface Workspace {
  readonly dir: string
  readonly socket: string
  readonly env: NodeJS.ProcessEnv
}

/** A workspace answering hovers of `.fake` files with a fake server, and a private runtime directory. */
export const fakeWorkspace: Effect.Effect<Workspace, never, Scope.Scope> = Effect.gen(function*() {
  const dir = yield* tempDirectory("lsp-cluster-outage-")
  const runtime = NodePath.join(dir, "run")
  NodeFs.mkdirSync(runtime, { mode: 0o700 })
  NodeFs.writeFileSync(NodePath.join(dir, "a.fake"), "hello\n")
  NodeFs.writeFileSync(
    NodePath.join(dir, "lsp-seam.json"),
    JSON.stringify({
      servers: {
        fake: {
          command: process.execPath,
          args: [fakeServer],
          extensionToLanguage: { ".fake": "plaintext" },
          env: { FAKE_LSP: JSON.stringify({ answers: { "textDocument/hover": { contents: "fake hover" } } }) }
        }
      }
    })
  )
  return { dir, socket: NodePath.join(runtime, "front.sock"), env: { ...process.env, XDG_RUNTIME_DIR: runtime } }
})

export interface Started {
  readonly child: ChildProcess.ChildProcess
  readonly stderr: () => string
}

const exited = (child: ChildProcess.ChildProcess) =>
  Effect.async<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
  })

/** `lsp-seam <args>` in the workspace, once `ready` matches its stderr; SIGKILLed with the scope. */
export const start = (
  workspace: Workspace,
  args: ReadonlyArray<string>,
  ready: RegExp
): Effect.Effect<Started, never, Scope.Scope> =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        ChildProcess.spawn(process.execPath, [bin, ...args], {
          cwd: workspace.dir,
          env: workspace.env,
          stdio: ["ignore", "ignore", "pipe"]
        })
      ),
      (child) => Effect.zipRight(Effect.sync(() => child.kill("SIGKILL")), exited(child))
    )
    let stderr = ""
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    yield* waitFor(`lsp-seam ${args[0]} to start`, () => {
      if (child.exitCode !== null) throw new Error(`lsp-seam ${args.join(" ")} exited:\n${stderr}`)
      return ready.test(stderr)
    }, 60_000)
    return { child, stderr: () => stderr }
  })

export const runner = (workspace: Workspace, storage: string, port: number) =>
  start(
    workspace,
    ["runner", "--storage", storage, "--listen", `127.0.0.1:${port}`, "--root", workspace.dir],
    /joined the cluster/
  )

export const front = (workspace: Workspace, storage: string, extra: ReadonlyArray<string> = []) =>
  start(workspace, ["serve", "--socket", workspace.socket, "--cluster", storage, ...extra], /listening on/)

/** `lsp-seam <args>` in the workspace: its exit code, output and how long it took. */
export const command = (workspace: Workspace, args: ReadonlyArray<string>) =>
  Effect.async<{ readonly code: number | null; readonly stdout: string; readonly stderr: string; readonly ms: number }>(
    (resume) => {
      const started = Date.now()
      ChildProcess.execFile(
        process.execPath,
        [bin, ...args],
        { cwd: workspace.dir, env: workspace.env, timeout: 180_000 },
        (error, stdout, stderr) =>
          resume(Effect.succeed({
            code: error === null ? 0 : typeof error.code === "number" ? error.code : null,
            stdout,
            stderr,
            ms: Date.now() - started
          }))
      )
    }
  )

/** `lsp-seam query hover a.fake:1:1 --remote <front>` (in `cwd`, default the workspace). */
export const query = (workspace: Workspace, cwd: ReadonlyArray<string> = []) =>
  command(workspace, ["query", "hover", "a.fake:1:1", "--remote", workspace.socket, ...cwd])
