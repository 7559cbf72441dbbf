/**
 * The system under test, the whole stack an agent uses: `LspToolHandler.run` (argument validation, the
 * session's workspace, the time budget, rendering) → `LspService` (routing) → the stdio host (workspace
 * and source checks, the FIFO permit, the pool, transient open) → the server. One host per instance, on the
 * local Node platform, with the default tool configuration.
 */
import { NodeContext } from "@effect/platform-node"
import { LspProvider, LspResult, LspService } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as LspStdio from "../../packages/lsp-stdio/src/LspStdio.js"
import * as StdioStatus from "../../packages/lsp-stdio/src/StdioStatus.js"
import * as LspSession from "../../packages/tool-lsp/src/LspSession.js"
import * as LspToolConfig from "../../packages/tool-lsp/src/LspToolConfig.js"
import * as LspToolHandler from "../../packages/tool-lsp/src/LspToolHandler.js"
import type { Query, ServerSpec } from "./rawClient.js"
import { hostConfig } from "./servers.js"
import { median } from "./stats.js"

export interface OursHost {
  /** Runs `count` queries on `workspace` one after another, cycling through `queries`; ms per query. */
  readonly timed: (
    workspace: string,
    queries: ReadonlyArray<Query>,
    count: number,
    offset?: number
  ) => Promise<Array<number>>
  /** Like `timed`, but through `LspService.query` directly: the host without the tool in front of it. */
  readonly timedSeam: (
    workspace: string,
    queries: ReadonlyArray<Query>,
    count: number,
    offset?: number
  ) => Promise<Array<number>>
  /** Like `timed`, on several workspaces at once (one sequential stream each); total wall time in ms. */
  readonly parallel: (
    workspaces: ReadonlyArray<string>,
    queries: ReadonlyArray<Query>,
    count: number
  ) => Promise<number>
  /** The seam's answer to one query (for checking that ours and the reference get the same answers). */
  readonly answer: (workspace: string, query: Query) => Promise<LspResult.LspQueryResult>
  /** One `lsp` tool call with the tool's `timeoutMs` set to `timeoutMs`: its answer, or the code it failed with. */
  readonly within: (
    workspace: string,
    query: Query,
    timeoutMs: number
  ) => Promise<LspResult.LspQueryResult | { readonly code: string }>
  /** Pids of the servers the host runs now. */
  readonly pids: () => Promise<Array<number>>
  /** Closes the host: every server is shut down and its process tree is gone when this resolves. */
  readonly dispose: () => Promise<void>
}

/** The tool's arguments for a query: one-based positions, the path relative to the session's directory. */
const toolArguments = (query: Query) => ({
  operation: query.operation,
  file_path: query.file,
  line: query.position.line + 1,
  character: query.position.character + 1
})

const stream = (workspace: string, queries: ReadonlyArray<Query>, count: number, offset: number) =>
  Effect.gen(function*() {
    const session = LspSession.make(workspace)
    const samples: Array<number> = []
    for (let i = 0; i < count; i++) {
      const query = queries[(offset + i) % queries.length]!
      const start = performance.now()
      yield* LspToolHandler.run(toolArguments(query)).pipe(Effect.provideService(LspSession.LspSession, session))
      samples.push(performance.now() - start)
    }
    return samples
  })

const seamStream = (workspace: string, queries: ReadonlyArray<Query>, count: number, offset: number) =>
  Effect.gen(function*() {
    const samples: Array<number> = []
    for (let i = 0; i < count; i++) {
      const query = queries[(offset + i) % queries.length]!
      const start = performance.now()
      yield* LspService.query({
        operation: query.operation,
        filePath: query.file,
        position: query.position,
        workspaceRoot: workspace
      })
      samples.push(performance.now() - start)
    }
    return samples
  })

/**
 * Builds the host (validating the config, resolving the executable); servers start on their first query.
 * `options` are further fields of the server's configuration, e.g. `{ documentSync: "retained" }`.
 */
export const startOurs = async (
  spec: ServerSpec,
  options: Readonly<Record<string, unknown>> = {}
): Promise<OursHost> => {
  const runtime = ManagedRuntime.make(
    LspStdio.layer(hostConfig(spec, options)).pipe(
      Layer.provideMerge(LspService.layer),
      Layer.provide(NodeContext.layer)
    )
  )
  await runtime.runtime()
  return {
    timed: (workspace, queries, count, offset = 0) => runtime.runPromise(stream(workspace, queries, count, offset)),
    answer: (workspace, query) =>
      runtime.runPromise(
        Effect.map(
          LspToolHandler.run(toolArguments(query)).pipe(
            Effect.provideService(LspSession.LspSession, LspSession.make(workspace))
          ),
          (output) => output.result
        )
      ),
    within: (workspace, query, timeoutMs) =>
      runtime.runPromise(
        Effect.flatMap(LspToolConfig.make({ timeoutMs }), (config) =>
          LspToolHandler.run(toolArguments(query), config).pipe(
            Effect.provideService(LspSession.LspSession, LspSession.make(workspace)),
            Effect.map((output): LspResult.LspQueryResult | { readonly code: string } =>
              output.result
            ),
            Effect.catchAll((error) => Effect.succeed({ code: error.code }))
          ))
      ),
    timedSeam: (workspace, queries, count, offset = 0) =>
      runtime.runPromise(seamStream(workspace, queries, count, offset)),
    parallel: (workspaces, queries, count) =>
      runtime.runPromise(Effect.gen(function*() {
        const start = performance.now()
        yield* Effect.forEach(workspaces, (workspace) => stream(workspace, queries, count, 0), {
          concurrency: "unbounded",
          discard: true
        })
        return performance.now() - start
      })),
    pids: () =>
      runtime.runPromise(
        Effect.map(
          Effect.flatMap(StdioStatus.StdioStatus, (host) => host.status),
          (servers) => servers.flatMap((server) => server.pid === null ? [] : [server.pid])
        )
      ),
    dispose: () => runtime.dispose()
  }
}

/** Medians, in ms per call, of the layers above the host, each over a provider that answers at once. */
export interface AboveHost {
  /** `LspService.query`: routing and the check of the provider's answer. */
  readonly seam: number
  /** `LspToolHandler.budgetedQuery`: the seam plus the deadline and the time budget (the query on one child fiber, a fiber sleeping on the Clock interrupts it). */
  readonly budgeted: number
  /** `LspToolHandler.run`: the whole tool call (validation, span, budget, rendering). */
  readonly tool: number
}

/**
 * Times the layers above the host, with no host and no server: an in-memory provider returns one location
 * at once. What these cost is paid by every query whatever serves it.
 */
export const measureAboveHost = async (options: { readonly warmup: number; readonly count: number }) => {
  const workspace = "/nonexistent-workspace"
  const result = LspResult.locations([{
    uri: `file://${workspace}/main.fake`,
    range: { start: { line: 1, character: 0 }, end: { line: 1, character: 1 } }
  }], `file://${workspace}`)
  const provider = LspProvider.make({
    id: "instant",
    extensionToLanguage: { fake: "fake" },
    query: () => Effect.succeed(result)
  })
  const runtime = ManagedRuntime.make(LspService.layerProvider(provider).pipe(Layer.provideMerge(LspService.layer)))
  const request = {
    operation: "goToDefinition",
    filePath: "main.fake",
    position: { line: 1, character: 0 },
    workspaceRoot: workspace
  } as const
  const session = LspSession.make(workspace)
  const calls = {
    seam: LspService.query(request),
    budgeted: LspToolHandler.budgetedQuery(request, 60_000),
    tool: LspToolHandler.run({ operation: "goToDefinition", file_path: "main.fake", line: 2, character: 1 }).pipe(
      Effect.provideService(LspSession.LspSession, session)
    )
  }
  const timedCalls = (call: Effect.Effect<unknown, unknown, LspService.LspService>, count: number) =>
    runtime.runPromise(Effect.gen(function*() {
      const samples: Array<number> = []
      for (let i = 0; i < count; i++) {
        const start = performance.now()
        yield* call
        samples.push(performance.now() - start)
      }
      return samples
    }))
  try {
    const samples = { seam: [] as Array<number>, budgeted: [] as Array<number>, tool: [] as Array<number> }
    for (const name of ["seam", "budgeted", "tool"] as const) await timedCalls(calls[name], options.warmup)
    for (let round = 0; round < 5; round++) {
      for (const name of ["seam", "budgeted", "tool"] as const) {
        samples[name].push(...await timedCalls(calls[name], options.count))
      }
    }
    return { seam: median(samples.seam), budgeted: median(samples.budgeted), tool: median(samples.tool) }
  } finally {
    await runtime.dispose()
  }
}
