/**
 * @since 0.1.0
 */
export * as LspCli from "./LspCli.js"
