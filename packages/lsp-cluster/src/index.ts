/**
 * @since 0.1.0
 */
export * as LspClusterClient from "./LspClusterClient.js"

/**
 * @since 0.1.0
 */
export * as LspClusterEntity from "./LspClusterEntity.js"

/**
 * @since 0.1.0
 */
export * as LspClusterRunner from "./LspClusterRunner.js"

/**
 * @since 0.1.0
 */
export * as LspClusterStorage from "./LspClusterStorage.js"

/**
 * @since 0.1.0
 */
export * as LspClusterHealth from "./LspClusterHealth.js"
