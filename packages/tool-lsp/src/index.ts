/**
 * @since 0.1.0
 */
export * as LspAiTool from "./LspAiTool.js"

/**
 * @since 0.1.0
 */
export * as LspClient from "./LspClient.js"

/**
 * @since 0.1.0
 */
export * as LspMcp from "./LspMcp.js"

/**
 * @since 0.1.0
 */
export * as LspMcpStdio from "./LspMcpStdio.js"

/**
 * @since 0.1.0
 */
export * as LspSession from "./LspSession.js"

/**
 * @since 0.1.0
 */
export * as LspToolCard from "./LspToolCard.js"

/**
 * @since 0.1.0
 */
export * as LspToolConfig from "./LspToolConfig.js"

/**
 * @since 0.1.0
 */
export * as LspToolHandler from "./LspToolHandler.js"

/**
 * @since 0.1.0
 */
export * as LspToolInput from "./LspToolInput.js"

/**
 * @since 0.1.0
 */
export * as LspToolOutput from "./LspToolOutput.js"

/**
 * @since 0.1.0
 */
export * as LspToolPrompt from "./LspToolPrompt.js"

/**
 * @since 0.1.0
 */
export * as LspToolRender from "./LspToolRender.js"
