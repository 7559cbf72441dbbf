/**
 * @since 0.1.0
 */
export * as LspCli from "./LspCli.js"

/**
 * @since 0.1.0
 */
export * as LspConfigFile from "./LspConfigFile.js"

/**
 * @since 0.1.0
 */
export * as LspPresets from "./LspPresets.js"

/**
 * @since 0.1.0
 */
export * as LspSeam from "./LspSeam.js"
