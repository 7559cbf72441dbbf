/**
 * @since 0.1.0
 */
export * as LspConfigFile from "./LspConfigFile.js"

/**
 * @since 0.1.0
 */
export * as LspDaemon from "./LspDaemon.js"

/**
 * @since 0.1.0
 */
export * as LspPresets from "./LspPresets.js"

/**
 * @since 0.1.0
 */
export * as LspRemoteConnection from "./LspRemoteConnection.js"

/**
 * @since 0.1.0
 */
export * as LspRemoteTarget from "./LspRemoteTarget.js"

/**
 * @since 0.1.0
 */
export * as LspSeam from "./LspSeam.js"
