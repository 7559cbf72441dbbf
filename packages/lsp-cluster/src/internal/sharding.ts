/**
 * The `Sharding` of a runner and of a client, built from @effect/cluster's socket runner over SQL storage with
 * lsp-seam's timings. The shard count and timings must agree across a cluster, so they are fixed here rather
 * than read from the environment (`ShardingConfig.layerFromEnv` would read `HOST`, `PORT` and friends).
 */
import type * as MessageStorage from "@effect/cluster/MessageStorage"
import type * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as RunnerHealth from "@effect/cluster/RunnerHealth"
import * as Runners from "@effect/cluster/Runners"
import * as RunnerStorage from "@effect/cluster/RunnerStorage"
import type * as Sharding from "@effect/cluster/Sharding"
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as SocketRunner from "@effect/cluster/SocketRunner"
import * as SqlMessageStorage from "@effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "@effect/cluster/SqlRunnerStorage"
import type * as SocketServer from "@effect/platform/SocketServer"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import type * as SqlClient from "@effect/sql/SqlClient"
import { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Equal from "effect/Equal"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Transport from "./transport.js"

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

/**
 * Before a runner joins or a client starts: every runner the storage lists that can be reached must admit this
 * side's token and TLS setting. A runner with another token would be refused by the others (and refuse them)
 * once it had joined, yet be given shards; a client would wait on every query until it failed. So both are
 * turned away here: the cluster's token is that of its running runners.
 */
const checkPeers = (self: RunnerAddress.RunnerAddress | undefined, security: Transport.Security) =>
  Effect.gen(function*() {
    const storage = yield* RunnerStorage.RunnerStorage
    // A storage that cannot be read now is reported by the cluster itself once it starts.
    const listed = yield* Effect.orElseSucceed(storage.getRunners, () => [])
    const others = listed.map(([runner]) => runner.address).filter((address) =>
      self === undefined || !Equal.equals(address, self)
    )
    const verdicts = yield* Effect.forEach(
      others,
      (address) => Effect.map(Transport.probe(address, security), (verdict) => ({ address, verdict })),
      { concurrency: 8 }
    )
    const refused = verdicts.filter((v) => v.verdict === "refused").map((v) => `${v.address.host}:${v.address.port}`)
    if (refused.length > 0) {
      return yield* LspError.invalidConfig(
        `The cluster's runners at ${refused.join(", ")} refused this ${self === undefined ? "client" : "runner"}: ` +
          "they use another token or TLS setting. Give every runner and client the same token (runner " +
          "--token-file, serve --cluster-token-file), and TLS to all or none (runner --tls-cert/--tls-key/--ca-file, " +
          "serve --cluster-tls/--cluster-ca-file).",
        { refusedBy: refused }
      )
    }
  })

/**
 * Waits until the storage lists this runner: the cluster registers it in the background once built, and a
 * runner that said it had joined before then would turn away a client started at that word (its peer check
 * reads the storage). 30 s at most, then LSP_REMOTE_UNAVAILABLE.
 */
const awaitRegistration = (self: RunnerAddress.RunnerAddress) =>
  Effect.gen(function*() {
    const storage = yield* RunnerStorage.RunnerStorage
    yield* storage.getRunners.pipe(
      Effect.map((listed) => listed.some(([runner]) => Equal.equals(runner.address, self))),
      Effect.orElseSucceed(() => false),
      Effect.repeat({ until: (listed) => listed, schedule: Schedule.spaced("100 millis") }),
      Effect.timeoutFail({
        duration: "30 seconds",
        onTimeout: () =>
          LspError.remoteUnavailable(
            `The runner ${self.host}:${self.port} was not registered in the cluster's storage within 30 s.`,
            { address: `${self.host}:${self.port}` }
          )
      })
    )
  })

/**
 * A runner: listens on `listen` (announced as `advertise`) and runs the entities registered on it. With `tls`
 * it serves TLS and reaches the other runners over TLS (trusting `tls.ca`, else the system's certificates);
 * with `token` it admits only peers that present it, and presents it to them.
 */
export const runner = (options: {
  readonly listen: RunnerAddress.RunnerAddress
  readonly advertise: RunnerAddress.RunnerAddress
  readonly token: Redacted.Redacted<string> | undefined
  readonly tls: { readonly cert: string; readonly key: string; readonly ca: string | undefined } | undefined
}): Layer.Layer<
  Sharding.Sharding | Runners.Runners | MessageStorage.MessageStorage,
  SocketServer.SocketServerError | LspError.LspConfigurationError | LspError.LspRemoteError,
  SqlClient.SqlClient
> => {
  const clientProtocol = Transport.layerClientProtocol({
    token: options.token,
    tls: options.tls === undefined ? undefined : { ca: options.tls.ca }
  })
  return SocketRunner.layer.pipe(
    // Built first (the last provided): the check runs before this runner listens or registers.
    Layer.provide([
      Transport.layerServer({
        host: options.listen.host,
        port: options.listen.port,
        token: options.token,
        tls: options.tls
      }),
      clientProtocol
    ]),
    Layer.provide(RunnerHealth.layerPing.pipe(
      Layer.provide(Runners.layerRpc),
      Layer.provide(clientProtocol)
    )),
    Layer.provide(Layer.effectDiscard(checkPeers(options.advertise, {
      token: options.token,
      tls: options.tls === undefined ? undefined : { ca: options.tls.ca }
    }))),
    Layer.provideMerge(storageLayers),
    // Built last: the runner has joined only once others can see it.
    Layer.tap((context) => Effect.provide(awaitRegistration(options.advertise), context)),
    Layer.provide(ShardingConfig.layer({
      ...timings,
      runnerAddress: Option.some(options.advertise),
      runnerListenAddress: Option.some(options.listen)
    })),
    Layer.provide(RpcSerialization.layerMsgPack)
  )
}

/** A client: sends to the runners the storage lists (with `security`, as the runners expect), runs no entity. */
export const client = (security: Transport.Security): Layer.Layer<
  Sharding.Sharding | Runners.Runners | MessageStorage.MessageStorage | RunnerStorage.RunnerStorage,
  LspError.LspConfigurationError | LspError.LspRemoteError,
  SqlClient.SqlClient
> =>
  SocketRunner.layerClientOnly.pipe(
    Layer.provide(Transport.layerClientProtocol(security)),
    Layer.provide(Layer.effectDiscard(checkPeers(undefined, security))),
    Layer.provideMerge(storageLayers),
    Layer.provide(ShardingConfig.layer({ ...timings, runnerAddress: Option.none() })),
    Layer.provide(RpcSerialization.layerMsgPack)
  )
