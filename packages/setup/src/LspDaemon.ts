/**
 * The per-user daemon behind `remote: "auto"`, as a client sees it. The daemon is `lsp-seam serve` of an
 * installed `@lsp-seam/cli` (this package does not depend on the command line: without it, `"auto"` fails with
 * `LSP_INVALID_CONFIG` saying what to install). Each configuration has its own daemon, on a socket in
 * `LspRemoteAddress.defaultSocketDirectory()` named after its identity: the version of that `@lsp-seam/cli`
 * and a fingerprint of the resolved configuration and of the environment that decides how commands resolve.
 * Client and daemon compute the identity the same way, and the daemon's `Hello` confirms it. Nothing here
 * runs on the Effect runtime, so a command's bundled fast start can use it without loading that;
 * `LspRemoteConnection` finds, starts and reaches the daemon, and has `identifyDaemon`, the identity with the
 * reason when it cannot be computed.
 *
 * @since 0.1.0
 */
import * as DaemonIdentity from "./internal/daemonIdentity.js"

/**
 * Where the daemon's configuration comes from: a file, an inline configuration (written next to the socket
 * for the daemon to read), or the presets.
 *
 * @since 0.1.0
 * @category models
 */
export type { ConfigSource } from "./internal/daemonIdentity.js"

/**
 * Which daemon a configuration gets: the `@lsp-seam/cli` version and 16 hex digits of a SHA-256 over that
 * version, the configuration, `PATH` and the Node binary.
 *
 * @since 0.1.0
 * @category models
 */
export type { Identity } from "./internal/daemonIdentity.js"

/**
 * The command's order: `configFile`, else `lsp-seam.json` in the working directory, else the presets.
 *
 * @since 0.1.0
 * @category constructors
 */
export const resolveSource: (options: {
  readonly configFile?: string | undefined
  readonly workingDirectory: string
}) => DaemonIdentity.ConfigSource = DaemonIdentity.resolveSource

/**
 * The identity of the daemon for a configuration, in an environment (default `process.env`), with `node:fs` and
 * no Effect runtime (for a command's fast start); `undefined` when the configuration file cannot be read or
 * `@lsp-seam/cli` is not installed (`LspRemoteConnection.identifyDaemon` says why).
 *
 * @since 0.1.0
 * @category constructors
 */
export const identifySync: (
  source: DaemonIdentity.ConfigSource,
  environment?: Readonly<Record<string, string | undefined>>
) => DaemonIdentity.Identity | undefined = DaemonIdentity.identifySync

/**
 * The file name of the daemon's socket, in `LspRemoteAddress.defaultSocketDirectory()`.
 *
 * @since 0.1.0
 * @category utils
 */
export const socketName: (identity: DaemonIdentity.Identity) => string = DaemonIdentity.socketName
