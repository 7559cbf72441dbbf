/**
 * A runner of an lsp-seam cluster: joins the cluster recorded in the storage, listens for the other runners
 * and the clients on `host:port` (admitting only those with the cluster's token; over TLS when given), and
 * hosts the workspace entities the cluster assigns to it, each answered by a stdio host of its own
 * (`LspClusterEntity`). When the runner stops, its entities (and their language
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
import type * as Redacted from "effect/Redacted"
import * as Tls from "node:tls"
import * as Placement from "./internal/placement.js"
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
   * The cluster's shared secret (`LspRemoteAuth`'s token rules): this runner admits only runners and clients
   * that present it, and presents it to the runners it reaches. Required to listen on an address other machines
   * can reach; without it (loopback only) any local process may talk to the runner.
   */
  readonly token?: Redacted.Redacted<string> | undefined
  /**
   * TLS between the runners: this runner serves `cert`/`key` (PEM) and reaches the others over TLS, trusting
   * `ca` (PEM; default the system's certificates). Every runner and client of a cluster uses TLS, or none does.
   */
  readonly tls?: {
    readonly cert: string
    readonly key: string
    readonly ca?: string | undefined
  } | undefined
  /**
   * Listen without TLS on an address other machines can reach (the token and the answers travel in clear).
   * Without this or `tls` such an address is refused with `LSP_INVALID_CONFIG`.
   */
  readonly allowPlaintext?: boolean | undefined
  /** Accept a SQLite store that other users may write (see `LspClusterStorage.layer`); warns. */
  readonly allowWritableStorage?: boolean | undefined
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

/** A certificate, key or CA Node cannot use fails here, named, rather than at the first connection. */
const checkTls = (tls: NonNullable<Options["tls"]>) =>
  Effect.try({
    try: () => {
      Tls.createSecureContext({ cert: tls.cert, key: tls.key })
      if (tls.ca !== undefined) Tls.createSecureContext({ ca: tls.ca })
    },
    catch: (cause) => LspError.invalidConfig(`The runner's TLS certificate, key or CA is unusable: ${String(cause)}.`)
  })

/**
 * The runner as a Layer: validates its options (port, listen address, token, TLS and the certificate's dates,
 * roots), opens the storage,
 * checks that the running runners admit its token and TLS setting, joins the cluster and registers the
 * workspace entity. Fails with `LSP_INVALID_CONFIG` on bad options or when running runners refuse it,
 * `LSP_CONFLICT` when the port is taken, `LSP_REMOTE_UNAVAILABLE` when the storage cannot be opened.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<LspClusterRunner, LspError.LspConfigurationError | LspError.LspRemoteError> =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const port = yield* checkPort(options.port)
    const host = options.host ?? "127.0.0.1"
    const reachable = !LspRemoteAddress.isLoopback(host)
    if (reachable && options.token === undefined) {
      return yield* LspError.invalidConfig(
        `Refusing to listen on ${host}:${port} without a token: other machines can reach it. Give every runner ` +
          "and client of the cluster the same token (--token-file FILE).",
        { address: `${host}:${port}` }
      )
    }
    if (reachable && options.tls === undefined && options.allowPlaintext !== true) {
      return yield* LspError.invalidConfig(
        `Refusing to listen on ${host}:${port} without TLS: other machines can reach it. Serve it with TLS ` +
          "(--tls-cert FILE --tls-key FILE), or pass --allow-plaintext to send the token and every answer " +
          "unencrypted.",
        { address: `${host}:${port}` }
      )
    }
    if (options.tls !== undefined) {
      yield* checkTls(options.tls)
      // Out of date, every peer would refuse it at its first connection, far from this runner.
      yield* LspRemoteServer.checkCertificate(options.tls.cert, "--tls-cert")
    }
    const roots = options.roots === undefined ? undefined : yield* LspRemoteServer.resolveRoots(options.roots)
    const listen = RunnerAddress.make(host, port)
    const advertise = RunnerAddress.make(options.advertiseHost ?? host, port)
    const entity = LspClusterEntity.layer({ ...options, roots })
    const shape: LspClusterRunnerShape = { address: advertise, roots }
    return Layer.succeed(LspClusterRunner, shape).pipe(
      // Rows a killed predecessor at this address left in the placement view go before any entity starts.
      Layer.provide(
        Layer.flatMap(Layer.effectDiscard(Placement.clear(`${advertise.host}:${advertise.port}`)), () => entity)
      ),
      Layer.provide(
        Layer.catchAll(
          ClusterSharding.runner({
            listen,
            advertise,
            token: options.token,
            tls: options.tls === undefined ? undefined : { ...options.tls, ca: options.tls.ca }
          }),
          (error) => {
            if (error._tag !== "SocketServerError") return Layer.fail(error)
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
      Layer.provide(
        LspClusterStorage.layer(options.storage, { allowWritableByOthers: options.allowWritableStorage })
      )
    )
  }))
