/**
 * An `LspService` answered by a cluster: each query goes to the entity of its workspace
 * (`LspClusterEntity.entityId`), wherever the cluster has placed it, and comes back exactly as the runner's
 * stdio host answered it. The client runs no entity; it reads the runners and their shards from the same
 * storage the runners use.
 *
 * A runner lost while it holds a query: the cluster sends the query again once the workspace's shard has
 * moved and the new runner answers it (cold), or it stops the query, which fails with `LSP_REMOTE_UNAVAILABLE`
 * (`detail.retriable`); so does what the cluster cannot deliver (a full mailbox, storage down). The caller's
 * deadline (`LspDeadline`) travels with the query.
 *
 * @since 0.1.0
 */
import type { MailboxFull } from "@effect/cluster/ClusterError"
import type { AlreadyProcessingMessage, PersistenceError } from "@effect/cluster/ClusterError"
import type * as RunnerStorage from "@effect/cluster/RunnerStorage"
import type * as Sharding from "@effect/cluster/Sharding"
import type * as SqlClient from "@effect/sql/SqlClient"
import { LspDeadline, LspDecode, LspError, LspQuery, LspService } from "@lsp-seam/lsp"
import type { LspResult } from "@lsp-seam/lsp"
import { LspRpc } from "@lsp-seam/lsp-remote"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as ClusterHealth from "./internal/health.js"
import * as ClusterSharding from "./internal/sharding.js"
import type * as Transport from "./internal/transport.js"
import * as LspClusterEntity from "./LspClusterEntity.js"
import type * as LspClusterHealth from "./LspClusterHealth.js"
import * as LspClusterStorage from "./LspClusterStorage.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface LspClusterClientShape {
  /** One query, routed to its workspace's entity. */
  readonly query: (request: LspQuery.LspQueryRequest) => Effect.Effect<LspResult.LspQueryResult, LspError.LspError>
  /**
   * Greets a workspace's entity (activating it): `fingerprint` is the `host:port` of the runner it is placed
   * on and `pid` that runner's process.
   */
  readonly hello: (workspaceRoot: string) => Effect.Effect<LspRpc.HelloResponse, LspError.LspError>
  /** The status view of a workspace's stdio host, on its runner. */
  readonly status: (workspaceRoot: string) => Effect.Effect<ReadonlyArray<LspRpc.ServerStatus>, LspError.LspError>
  /** The client's last look at the cluster (taken every second): its runners, or why it cannot answer. */
  readonly health: Effect.Effect<LspClusterHealth.Health>
  /** Every look from now on, the current one first. */
  readonly healthChanges: Stream.Stream<LspClusterHealth.Health>
  /**
   * Where the workspaces live: the runners, their health and the workspaces each holds, read afresh from the
   * storage and the runners. Starts no workspace.
   */
  readonly placement: Effect.Effect<LspClusterHealth.Placement>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class LspClusterClient
  extends Context.Tag("@lsp-seam/lsp-cluster/LspClusterClient")<LspClusterClient, LspClusterClientShape>()
{}

const decodeRequest = LspDecode.decodeUnknownEither(LspQuery.LspQueryRequest)

/** What the cluster itself could not do, as the seam's retriable code. */
const undelivered =
  (entityId: string) => (error: MailboxFull | AlreadyProcessingMessage | PersistenceError): LspError.LspError =>
    LspError.remoteUnavailable(
      `The lsp-seam cluster could not deliver the query to the workspace ${JSON.stringify(entityId)} ` +
        `(${error._tag}): retry in a moment.`,
      { workspaceRoot: entityId, cluster: error._tag, retriable: true }
    )

/**
 * Maps every way a cluster call can end other than an answer, a coded `LspError` or the caller's own
 * interruption. The cluster interrupts a request whose runner was lost while it moved the workspace's shard
 * (the caller was not interrupted, or this handler would not run): that is `LSP_REMOTE_UNAVAILABLE`, worth
 * retrying at once. A defect is a protocol error, as for a remote host.
 */
const mapCluster = (entityId: string) =>
<A>(
  effect: Effect.Effect<A, LspError.LspError | MailboxFull | AlreadyProcessingMessage | PersistenceError>
): Effect.Effect<A, LspError.LspError> =>
  Effect.catchAllCause(effect, (cause) => {
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure)) {
      const error = failure.value
      return Effect.fail(
        error._tag === "MailboxFull" || error._tag === "AlreadyProcessingMessage" || error._tag === "PersistenceError"
          ? undelivered(entityId)(error)
          : error
      )
    }
    if (Cause.isInterruptedOnly(cause)) {
      return Effect.fail(LspError.remoteUnavailable(
        `The lsp-seam cluster stopped the query for the workspace ${JSON.stringify(entityId)} without an ` +
          "answer: the runner holding it was lost or is handing it over. Retry: another runner will answer.",
        { workspaceRoot: entityId, retriable: true }
      ))
    }
    return Effect.fail(LspError.protocolError(
      `The lsp-seam cluster failed to answer for the workspace ${JSON.stringify(entityId)}: ${Cause.pretty(cause)}`,
      { workspaceRoot: entityId }
    ))
  })

/**
 * How the client reaches the runners: the cluster's token (undefined for a tokenless, loopback-only cluster) and
 * TLS (the PEM certificates to trust, undefined for the system's; undefined `tls`: plain TCP).
 *
 * @since 0.1.0
 * @category models
 */
export interface Security extends Transport.Security {}

/**
 * Builds the client over the `Sharding` and `RunnerStorage` in context. `storage` names the storage in
 * messages; `security` is what the runners expect (their health is probed with it).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: {
  readonly storage: string
  readonly security: Security
  readonly unavailableAfter?: Duration.DurationInput | undefined
}): Effect.Effect<
  LspClusterClientShape,
  never,
  Sharding.Sharding | RunnerStorage.RunnerStorage | SqlClient.SqlClient | Scope.Scope
> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<RunnerStorage.RunnerStorage | SqlClient.SqlClient>()
    const health = yield* ClusterHealth.watch(options.storage, options.security)
    const after = Duration.decode(options.unavailableAfter ?? ClusterHealth.defaultUnavailableAfter)
    // The query goes on during an outage (the cluster may come back within the bound); it fails only once it
    // has spent `after` in one.
    const guarded = <A>(id: string, effect: Effect.Effect<A, LspError.LspError>) =>
      Effect.raceFirst(effect, ClusterHealth.failWhenUnavailable(health, after, id))
    const clientFor = yield* LspClusterEntity.Workspace.client
    const withBudget = Effect.map(LspDeadline.remaining, (remaining) =>
      Option.match(remaining, {
        onNone: () => ({}),
        onSome: (budgetMs) => ({ headers: { [LspRpc.budgetHeader]: String(Math.floor(budgetMs)) } })
      }))
    const query = (input: LspQuery.LspQueryRequest) =>
      Either.match(decodeRequest(input), {
        onLeft: (error) =>
          LspError.invalidArguments(`Invalid LSP query: ${ParseResult.TreeFormatter.formatErrorSync(error)}`),
        onRight: (request) => {
          const id = LspClusterEntity.entityId(request.workspaceRoot)
          return guarded(
            id,
            Effect.flatMap(
              withBudget,
              (options) => mapCluster(id)(clientFor(id).Query({ ...request, workspaceRoot: id }, options))
            )
          )
        }
      })
    const call = <A>(
      workspaceRoot: string,
      f: (id: string) => Effect.Effect<A, LspError.LspError | MailboxFull | AlreadyProcessingMessage | PersistenceError>
    ) => {
      const id = LspClusterEntity.entityId(workspaceRoot)
      return guarded(id, mapCluster(id)(f(id)))
    }
    return {
      query,
      hello: (workspaceRoot) => call(workspaceRoot, (id) => clientFor(id).Hello({ clientVersion: LspRpc.version })),
      status: (workspaceRoot) => call(workspaceRoot, (id) => clientFor(id).Status()),
      health: SubscriptionRef.get(health),
      healthChanges: health.changes,
      placement: Effect.provide(ClusterHealth.placement(options.storage, options.security), context)
    }
  })

/**
 * How long a query may wait, by default, while the cluster cannot answer: 10 seconds.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultUnavailableAfter: Duration.Duration = ClusterHealth.defaultUnavailableAfter

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The cluster's storage: the same as its runners'. */
  readonly storage: LspClusterStorage.Storage
  /** The runners' token (`LspClusterRunner.Options.token`), presented on every connection to a runner. */
  readonly token?: Redacted.Redacted<string> | undefined
  /**
   * Reach the runners over TLS (as their `tls` option serves), trusting `ca` (PEM; default the system's
   * certificates).
   */
  readonly tls?: { readonly ca?: string | undefined } | undefined
  /** Accept a SQLite store that other users may write (see `LspClusterStorage.layer`); warns. */
  readonly allowWritableStorage?: boolean | undefined
  /**
   * How long a query may wait while the cluster cannot answer (its storage unreachable, no runner registered
   * or answering) before it fails with `LSP_REMOTE_UNAVAILABLE` naming the cause (default 10 s).
   */
  readonly unavailableAfter?: Duration.DurationInput | undefined
}

/**
 * An `LspService` answered by the cluster, and the `LspClusterClient` behind it. `registerProvider` fails
 * with `LSP_INVALID_PROVIDER`: the runners own the providers. Fails with `LSP_INVALID_CONFIG` when the running
 * runners refuse this client's token or TLS setting, `LSP_REMOTE_UNAVAILABLE` when the storage cannot be opened.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<LspService.LspService | LspClusterClient, LspError.LspConfigurationError | LspError.LspRemoteError> => {
  const security: Transport.Security = {
    token: options.token,
    tls: options.tls === undefined ? undefined : { ca: options.tls.ca }
  }
  const storage = LspClusterStorage.describe(options.storage)
  return Layer.scopedContext(
    Effect.map(
      make({ storage, security, unavailableAfter: options.unavailableAfter }),
      (client) =>
        Context.make(LspClusterClient, client).pipe(
          Context.add(
            LspService.LspService,
            LspService.LspService.of({
              registerProvider: (provider) =>
                LspError.invalidProvider(
                  `Cannot register provider "${provider.id}": this LspService sends every query to the lsp-seam ` +
                    `cluster at ${storage}; register providers on its runners.`,
                  { providerId: provider.id }
                ),
              query: client.query
            })
          )
        )
    )
  ).pipe(
    Layer.provide(ClusterSharding.client(security)),
    Layer.provide(
      LspClusterStorage.layer(options.storage, { allowWritableByOthers: options.allowWritableStorage })
    )
  )
}
