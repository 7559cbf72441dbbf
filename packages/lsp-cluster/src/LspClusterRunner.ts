/**
 * A runner of an lsp-seam cluster: joins the cluster recorded in the storage, listens for the other runners
 * and the clients on `host:port`, and hosts the workspace entities the cluster assigns to it, each answered
 * by a stdio host of its own (`LspClusterEntity`). When the runner stops, its entities (and their language
 * servers) stop and its shards move to the other runners; when it is killed, the stdio host's watchdog ends
 * its servers and the others take its shards once they have seen it gone.
 *
 * @since 0.1.0
 */
import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import { LspError } from "@lsp-seam/lsp"
import { LspRemoteAddress, LspRemoteServer } from "@lsp-seam/lsp-remote"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ClusterSharding from "./internal/sharding.js"
import * as LspClusterEntity from "./LspClusterEntity.js"
import * as LspClusterStorage from "./LspClusterStorage.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options extends LspClusterEntity.Options {
  /** The cluster's storage (see `LspClusterStorage.decode`). */
  readonly storage: LspClusterStorage.Storage
  /** The interface to listen on (default `127.0.0.1`). */
  readonly host?: string | undefined
  /** The TCP port to listen on; every runner of a machine needs its own. */
  readonly port: number
  /** The address other runners and clients reach this one at (default `host`). */
  readonly advertiseHost?: string | undefined
  /**
   * Listen on an address other machines can reach. The runners' protocol carries neither a token nor TLS
   * (see docs/scale-out.md), so without this such an address is refused with `LSP_INVALID_CONFIG`.
   */
  readonly allowPlaintext?: boolean | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface LspClusterRunnerShape {
  /** The address the runner announced to the cluster. */
  readonly address: RunnerAddress.RunnerAddress
  /** The served roots, canonical; undefined when every workspace is served. */
  readonly roots: ReadonlyArray<string> | undefined
}

/**
 * A running runner, available while its Layer is.
 *
 * @since 0.1.0
 * @category tags
 */
export class LspClusterRunner
  extends Context.Tag("@lsp-seam/lsp-cluster/LspClusterRunner")<LspClusterRunner, LspClusterRunnerShape>()
{}

const checkPort = (port: number) =>
  Number.isSafeInteger(port) && port >= 1 && port <= 65535
    ? Effect.succeed(port)
    : LspError.invalidConfig(`A runner needs a TCP port from 1 to 65535 (got ${port}).`, { port })

/**
 * The runner as a Layer: validates its options (port, listen address, roots), opens the storage, joins the
 * cluster and registers the workspace entity. Fails with `LSP_INVALID_CONFIG` on bad options,
 * `LSP_CONFLICT` when the port is taken, `LSP_REMOTE_UNAVAILABLE` when the storage cannot be opened.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LspClusterRunner, LspError.LspError> =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const port = yield* checkPort(options.port)
    const host = options.host ?? "127.0.0.1"
    if (options.allowPlaintext !== true && !LspRemoteAddress.isLoopback(host)) {
      return yield* LspError.invalidConfig(
        `Refusing to listen on ${host}:${port}: other machines can reach it, and the runners' protocol has ` +
          "neither a token nor TLS. Listen on a loopback or private address, or pass allowPlaintext " +
          "(--allow-plaintext) on a network you trust.",
        { address: `${host}:${port}` }
      )
    }
    const roots = options.roots === undefined ? undefined : yield* LspRemoteServer.resolveRoots(options.roots)
    const listen = RunnerAddress.make(host, port)
    const advertise = RunnerAddress.make(options.advertiseHost ?? host, port)
    const entity = LspClusterEntity.layer({ ...options, roots })
    const shape: LspClusterRunnerShape = { address: advertise, roots }
    return Layer.succeed(LspClusterRunner, shape).pipe(
      Layer.provide(entity),
      Layer.provide(
        Layer.catchAll(
          ClusterSharding.runner({ listen, advertise }),
          (error) => {
            const cause = error.cause
            const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : ""
            return Layer.fail(
              code === "EADDRINUSE"
                ? LspError.conflict(`Cannot listen on ${host}:${port}: the address is in use.`, {
                  address: `${host}:${port}`
                })
                : LspError.invalidConfig(`Cannot listen on ${host}:${port}: ${String(cause)}.`, {
                  address: `${host}:${port}`
                })
            )
          }
        )
      ),
      Layer.provide(LspClusterStorage.layer(options.storage))
    )
  }))
