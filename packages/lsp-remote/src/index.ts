/**
 * @since 0.1.0
 */
export * as LspRemoteAddress from "./LspRemoteAddress.js"

/**
 * @since 0.1.0
 */
export * as LspRemoteAuth from "./LspRemoteAuth.js"

/**
 * @since 0.1.0
 */
export * as LspRemoteClient from "./LspRemoteClient.js"

/**
 * @since 0.1.0
 */
export * as LspRemoteDirectory from "./LspRemoteDirectory.js"

/**
 * @since 0.1.0
 */
export * as LspRemoteServer from "./LspRemoteServer.js"

/**
 * @since 0.1.0
 */
export * as LspRpc from "./LspRpc.js"
