/**
 * A host process for the orphan test: starts the stdio host with the configuration in argv[2] (JSON),
 * runs one query per workspace in argv[3] (JSON: [{ workspaceRoot, filePath }]), prints "ready" and the
 * server pids, then waits to be killed.
 */
import { NodeContext } from "@effect/platform-node"
import { LspService } from "@lsp-seam/lsp"
import { Effect, Layer, Schema } from "effect"
import * as LspStdio from "../../src/LspStdio.js"
import * as StdioConfig from "../../src/StdioConfig.js"
import * as StdioStatus from "../../src/StdioStatus.js"

// The parent test wrote it; its shape is still checked before the host sees it.
const config = Schema.decodeUnknownSync(Schema.encodedSchema(StdioConfig.StdioConfig))(
  JSON.parse(process.argv[2] ?? "{}")
)
const queries: ReadonlyArray<{ readonly workspaceRoot: string; readonly filePath: string }> = JSON.parse(
  process.argv[3] ?? "[]"
)

const program = Effect.gen(function*() {
  for (const q of queries) {
    yield* LspService.query({ operation: "hover", position: { line: 0, character: 0 }, ...q })
  }
  const host = yield* StdioStatus.StdioStatus
  const pids = (yield* host.status).map((s) => s.pid)
  process.stdout.write(`ready ${JSON.stringify(pids)}\n`)
  return yield* Effect.never
})

const layer = LspStdio.layer(config).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer))
Effect.runPromise(Effect.provide(program, layer)).catch((error) => {
  process.stderr.write(`orphan host failed: ${String(error)}\n`)
  process.exit(1)
})
