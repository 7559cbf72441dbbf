/**
 * The `Sharding` of a runner and of a client, built from @effect/cluster's socket runner over SQL storage with
 * lsp-seam's timings. The shard count and timings must agree across a cluster, so they are fixed here rather
 * than read from the environment (`ShardingConfig.layerFromEnv` would read `HOST`, `PORT` and friends).
 */
import type * as MessageStorage from "@effect/cluster/MessageStorage"
import type * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as RunnerHealth from "@effect/cluster/RunnerHealth"
import * as Runners from "@effect/cluster/Runners"
import type * as Sharding from "@effect/cluster/Sharding"
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as SocketRunner from "@effect/cluster/SocketRunner"
import * as SqlMessageStorage from "@effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "@effect/cluster/SqlRunnerStorage"
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import type * as SocketServer from "@effect/platform/SocketServer"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/**
 * The timings every runner and client of an lsp-seam cluster use. A runner that stops answering pings is
 * found within about `runnerHealthCheckInterval` plus the ping's retries (5 × 0.5 s), its shards are
 * reassigned at the next refresh, and on SQLite (no advisory locks) a new runner may take a shard once the
 * dead runner's lock has expired (`shardLockExpiration`); on PostgreSQL the lock goes with its connection.
 */
export const timings: Partial<ShardingConfig.ShardingConfig["Type"]> = {
  runnerHealthCheckInterval: "1 second",
  refreshAssignmentsInterval: "1 second",
  shardLockRefreshInterval: "2 seconds",
  shardLockExpiration: "6 seconds",
  entityTerminationTimeout: "10 seconds",
  sendRetryInterval: "100 millis",
  // Messages are volatile (a query is not worth replaying after a runner is lost): nothing to poll for.
  entityMessagePollInterval: "10 seconds"
}

const storageLayers = Layer.mergeAll(Layer.orDie(SqlMessageStorage.layer), Layer.orDie(SqlRunnerStorage.layer))

/** A runner: listens on `listen` (announced as `advertise`) and runs the entities registered on it. */
export const runner = (options: {
  readonly listen: RunnerAddress.RunnerAddress
  readonly advertise: RunnerAddress.RunnerAddress
}): Layer.Layer<
  Sharding.Sharding | Runners.Runners | MessageStorage.MessageStorage,
  SocketServer.SocketServerError,
  SqlClient.SqlClient
> =>
  SocketRunner.layer.pipe(
    Layer.provide([NodeClusterSocket.layerSocketServer, NodeClusterSocket.layerClientProtocol]),
    Layer.provide(RunnerHealth.layerPing.pipe(
      Layer.provide(Runners.layerRpc),
      Layer.provide(NodeClusterSocket.layerClientProtocol)
    )),
    Layer.provideMerge(storageLayers),
    Layer.provide(ShardingConfig.layer({
      ...timings,
      runnerAddress: Option.some(options.advertise),
      runnerListenAddress: Option.some(options.listen)
    })),
    Layer.provide(RpcSerialization.layerMsgPack)
  )

/** A client: sends to the runners the storage lists, runs no entity. */
export const client: Layer.Layer<
  Sharding.Sharding | Runners.Runners | MessageStorage.MessageStorage,
  never,
  SqlClient.SqlClient
> = SocketRunner.layerClientOnly.pipe(
  Layer.provide(NodeClusterSocket.layerClientProtocol),
  Layer.provideMerge(storageLayers),
  Layer.provide(ShardingConfig.layer({ ...timings, runnerAddress: Option.none() })),
  Layer.provide(RpcSerialization.layerMsgPack)
)
