/**
 * The workspace entity: one per workspace root, keyed by its path as the runners see it. Its protocol is the
 * remote host's (`LspRpc.LspRpcs`: `Hello`, `Query`, `Status`, `Memory`), so a query sent to it is answered,
 * or refused, exactly as a local query or a remote host's would be. Its behaviour is a stdio host built for
 * that one workspace inside the entity's scope: when the cluster passivates an idle entity, or moves it off a
 * runner, the scope closes and the host stops its language servers.
 *
 * @since 0.1.0
 */
import * as Entity from "@effect/cluster/Entity"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { LspError, LspService } from "@lsp-seam/lsp"
import { LspRemoteServer, LspRpc } from "@lsp-seam/lsp-remote"
import { LspStdio, StdioStatus } from "@lsp-seam/lsp-stdio"
import type { StdioConfig } from "@lsp-seam/lsp-stdio"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Path from "node:path"
import * as Placement from "./internal/placement.js"

/**
 * The entity type: a workspace served by lsp-seam, speaking the remote host's RPC group.
 *
 * @since 0.1.0
 * @category entities
 */
export const Workspace = Entity.fromRpcGroup("LspSeamWorkspace", LspRpc.LspRpcs)

/**
 * The entity id of a workspace root: the path made absolute and normalised lexically (`..`, `.`, repeated
 * and trailing separators), as a local query would read it from the working directory. Links are not
 * resolved here (the client may not see the runners' files): two spellings of one directory through a link
 * are two entities, which the runner serves alike.
 *
 * @since 0.1.0
 * @category utils
 */
export const entityId = (workspaceRoot: string): string => Path.resolve(workspaceRoot)

/**
 * How a runner serves its workspace entities.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The stdio host's configuration (what `lsp-seam serve` loads): every entity runs its own host of it. */
  readonly config: StdioConfig.StdioConfig.Encoded
  /**
   * The directories served at all (as `LspRemoteServer.ServeOptions.roots`): a workspace or file outside
   * them is refused with `LSP_REMOTE_FORBIDDEN` before a server starts. Without it, every workspace is served.
   */
  readonly roots?: ReadonlyArray<string> | undefined
  /**
   * How long an entity may go without a message before the cluster passivates it, stopping its servers
   * (default `defaultMaxIdleTime`, the stdio host's own idle default).
   */
  readonly maxIdleTime?: Duration.DurationInput | undefined
  /** The stdio host's options (process world, environment). */
  readonly stdio?: LspStdio.Options | undefined
}

/**
 * The default idle time before an entity is passivated: 10 minutes.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxIdleTime: Duration.DurationInput = "10 minutes"

/** Every call of an entity whose host could not be built fails with the reason. */
const failing = (error: LspError.LspError) =>
  Workspace.of({
    Hello: () => Effect.fail(error),
    Query: () => Effect.fail(error),
    Status: () => Effect.fail(error),
    Memory: () => Effect.fail(error),
    Placement: () => Effect.fail(error)
  })

const misrouted = (workspaceRoot: string, id: string) =>
  LspError.invalidArguments(
    `This lsp-seam cluster entity serves the workspace ${JSON.stringify(id)}, not ${
      JSON.stringify(workspaceRoot)
    }: send the query to the entity of its own workspace (LspClusterEntity.entityId).`,
    { workspaceRoot, entityId: id }
  )

/**
 * Registers the workspace entity with the `Sharding` of the runner in context. Each activation builds a
 * stdio host for its workspace in the entity's scope; `Hello` reports the runner (`fingerprint` is its
 * `host:port`, `pid` its process), which is how a caller sees where a workspace is placed.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options) =>
  Workspace.toLayer(
    Effect.gen(function*() {
      const address = yield* Entity.CurrentAddress
      const runner = yield* Entity.CurrentRunnerAddress
      const scope = yield* Effect.scope
      const id = address.entityId
      // Recorded for the placement view (`LspClusterClient.placement`) while the entity lives.
      yield* Placement.hold(`${runner.host}:${runner.port}`, id)
      const built = yield* Effect.either(Effect.gen(function*() {
        const host = yield* Layer.buildWithScope(
          LspStdio.layer(options.config, options.stdio).pipe(
            Layer.provideMerge(LspService.layer),
            Layer.provide(NodeContext.layer)
          ),
          scope
        )
        const view = Context.get(host, StdioStatus.StdioStatus)
        return yield* LspRemoteServer.makeHandlers({
          roots: options.roots,
          status: view.status,
          memory: view.memory,
          fingerprint: `${runner.host}:${runner.port}`
        }).pipe(Effect.provide(host))
      }))
      if (Either.isLeft(built)) return failing(built.left)
      const handlers = built.right
      // Every message reaches the entity through the cluster: the entity is the one client of its own host.
      return Workspace.of({
        Hello: () => handlers.Hello(),
        Query: (envelope) =>
          entityId(envelope.payload.workspaceRoot) === id
            ? handlers.Query(envelope.payload, { clientId: 0, headers: envelope.headers })
            : misrouted(envelope.payload.workspaceRoot, id),
        Status: () => handlers.Status(),
        Memory: () => handlers.Memory(),
        Placement: () => handlers.Placement()
      })
    }),
    {
      maxIdleTime: options.maxIdleTime ?? defaultMaxIdleTime,
      // Queries of one workspace queue in its host (one FIFO permit per server); Status and Hello must not
      // wait behind them.
      concurrency: "unbounded"
    }
  )
