/**
 * The `LspService` of the host a `remote` option names (`LspRemoteTarget`): the connection, the token a URL
 * needs (given, from a file, or from `LSP_SEAM_TOKEN`), the certificates a TLS host with a private CA is checked
 * against and, for `"auto"`, the per-user daemon found or started (`lsp-seam serve` of an installed
 * `@lsp-seam/cli`) and started again when it has gone.
 *
 * @since 0.1.0
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type { LspError, LspService } from "@lsp-seam/lsp"
import type { LspRemoteClient } from "@lsp-seam/lsp-remote"
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import * as Daemon from "./internal/daemon.js"
import * as DaemonIdentity from "./internal/daemonIdentity.js"
import * as RemoteTarget from "./internal/remoteTarget.js"
import type * as LspDaemon from "./LspDaemon.js"
import type * as LspRemoteTarget from "./LspRemoteTarget.js"

/**
 * How a client proves itself to a host behind a URL.
 *
 * @since 0.1.0
 * @category models
 */
export type { TokenOptions } from "./internal/remoteTarget.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface LayerOptions extends RemoteTarget.TokenOptions {
  /** For `"auto"`: the configuration the daemon must run. */
  readonly source: LspDaemon.ConfigSource
}

/**
 * The WebSocket transport of `url`, with its token (`token`, else `tokenFile`, else `LSP_SEAM_TOKEN`; none is
 * `LSP_REMOTE_UNAUTHORIZED`) and, with `caFile`, the certificates it trusts (`LSP_INVALID_CONFIG` when the file
 * holds none).
 *
 * @since 0.1.0
 * @category constructors
 */
export const webSocketTransport: (
  url: string,
  options: RemoteTarget.TokenOptions
) => Effect.Effect<LspRemoteClient.Transport, LspError.LspConfigurationError | LspError.LspRemoteError> =
  RemoteTarget.webSocketTransport

/**
 * The `LspService` (and `LspRemoteClient`) the host answers. Building it greets the host, so an unreachable
 * host, a refused token or (for `"auto"`) a daemon of another version or configuration fails here, before any
 * query. For `"auto"` it finds or starts the daemon, and starts it again when it has gone (see `LspDaemon`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: (
  remote: LspRemoteTarget.Remote,
  options: LayerOptions
) => Layer.Layer<
  LspService.LspService | LspRemoteClient.LspRemoteClient,
  LspError.LspConfigurationError | LspError.LspRemoteError
> = RemoteTarget.layer

/**
 * The identity of the daemon for a configuration (`LspDaemon`), in an environment (default `process.env`). Fails with
 * `LSP_INVALID_CONFIG` when the configuration file cannot be read, or when `@lsp-seam/cli` is not installed.
 *
 * @since 0.1.0
 * @category constructors
 */
export const identifyDaemon: (
  source: LspDaemon.ConfigSource,
  environment?: Readonly<Record<string, string | undefined>>
) => Effect.Effect<LspDaemon.Identity, LspError.LspConfigurationError, FileSystem.FileSystem | Path.Path> =
  DaemonIdentity.identify

/**
 * Whether the daemon for `source` answers now, with the expected identity; never starts one. `Left` carries the
 * socket asked and, when something answered but cannot be used (another version or configuration), why.
 *
 * @since 0.1.0
 * @category utils
 */
export const findDaemon: (
  source: LspDaemon.ConfigSource,
  environment?: NodeJS.ProcessEnv
) => Effect.Effect<
  Either.Either<
    { readonly path: string; readonly identity: LspDaemon.Identity },
    { readonly path: string; readonly error?: LspError.LspConfigurationError | LspError.LspRemoteError }
  >,
  LspError.LspConfigurationError | LspError.LspRemoteError
> = Daemon.find
