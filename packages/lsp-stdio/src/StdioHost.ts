/**
 * The former name of `StdioStatus`: the host's read-only status view (it was never the host itself).
 *
 * @since 0.1.0
 */
import * as StdioStatus from "./StdioStatus.js"

/**
 * @since 0.1.0
 * @category models
 * @deprecated Use `StdioStatus.ServerStatus`.
 */
export type ServerStatus = StdioStatus.ServerStatus

/**
 * @since 0.1.0
 * @category models
 * @deprecated Use `StdioStatus.StdioStatusShape`.
 */
export type StdioHostShape = StdioStatus.StdioStatusShape

/**
 * The same tag as `StdioStatus.StdioStatus`.
 *
 * @since 0.1.0
 * @category tags
 * @deprecated Use `StdioStatus.StdioStatus`.
 */
export const StdioHost = StdioStatus.StdioStatus

/**
 * @since 0.1.0
 * @category tags
 * @deprecated Use `StdioStatus.StdioStatus`.
 */
export type StdioHost = StdioStatus.StdioStatus
