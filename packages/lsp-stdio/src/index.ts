/**
 * @since 0.1.0
 */
export * as Framing from "./Framing.js"

/**
 * @since 0.1.0
 */
export * as JsonRpc from "./JsonRpc.js"

/**
 * @since 0.1.0
 */
export * as LspStdio from "./LspStdio.js"

/**
 * @since 0.1.0
 */
export * as StdioConfig from "./StdioConfig.js"

/**
 * @since 0.1.0
 */
export * as StdioStatus from "./StdioStatus.js"

/**
 * @since 0.1.0
 */
export * as StdioWorkspace from "./StdioWorkspace.js"
