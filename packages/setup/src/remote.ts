/**
 * The `remote` option alone, as a separate entry point (`@lsp-seam/setup/remote`): what a client of a running
 * lsp-seam host needs, without the stdio host, the tool's adapters or `@effect/ai`, which the package's index
 * loads with `LspSeam`. The `lsp-seam` command's `--remote` path starts from here.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as LspDaemon from "./LspDaemon.js"

/**
 * @since 0.1.0
 */
export * as LspRemoteConnection from "./LspRemoteConnection.js"

/**
 * @since 0.1.0
 */
export * as LspRemoteTarget from "./LspRemoteTarget.js"
