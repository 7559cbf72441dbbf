/**
 * @since 0.1.0
 */
export * as LspDeadline from "./LspDeadline.js"

/**
 * @since 0.1.0
 */
export * as LspDecode from "./LspDecode.js"

/**
 * @since 0.1.0
 */
export * as LspEnclosing from "./LspEnclosing.js"

/**
 * @since 0.1.0
 */
export * as LspError from "./LspError.js"

/**
 * @since 0.1.0
 */
export * as LspErrorRead from "./LspErrorRead.js"

/**
 * @since 0.1.0
 */
export * as LspExtension from "./LspExtension.js"

/**
 * @since 0.1.0
 */
export * as LspIdentifiers from "./LspIdentifiers.js"

/**
 * @since 0.1.0
 */
export * as LspProvider from "./LspProvider.js"

/**
 * @since 0.1.0
 */
export * as LspQuery from "./LspQuery.js"

/**
 * @since 0.1.0
 */
export * as LspResult from "./LspResult.js"

/**
 * @since 0.1.0
 */
export * as LspResultCheck from "./LspResultCheck.js"

/**
 * @since 0.1.0
 */
export * as LspResultRead from "./LspResultRead.js"

/**
 * @since 0.1.0
 */
export * as LspService from "./LspService.js"
