/**
 * Reading a coded failure without its Schema: the closed list of codes (`LspError.LspErrorCode` is built from
 * it) and a check of an `LspError` as the wire encodes it. Imports nothing, so that a client which must start
 * in Node's start time (the command's remote query, see docs/decisions.md) can report a host's coded error
 * without loading `effect/Schema`.
 *
 * @since 0.1.0
 */

/**
 * Every failure code lsp-seam can produce, in the order `LspError.LspErrorCode` lists them. The union is
 * closed and defined here, in one place, even for codes that only later layers (the stdio host, the tool, the
 * CLI) raise.
 *
 * @since 0.1.0
 * @category constants
 */
export const codes = [
  // The seam
  "LSP_INVALID_PROVIDER",
  "LSP_CONFLICT",
  "LSP_UNAVAILABLE",
  "LSP_DISPOSED",
  "LSP_UNSUPPORTED_OPERATION",
  "LSP_MALFORMED_RESPONSE",
  "LSP_WORKSPACE_REQUIRED",
  // Workspace and source files
  "LSP_INVALID_WORKSPACE",
  "LSP_SOURCE_NOT_FOUND",
  "LSP_SOURCE_OUTSIDE_WORKSPACE",
  "LSP_SOURCE_NOT_A_FILE",
  "LSP_SOURCE_BINARY",
  "LSP_SOURCE_INVALID_UTF8",
  "LSP_SOURCE_TOO_LARGE",
  // Servers and the wire
  "LSP_SERVER_EXITED",
  "LSP_SERVER_START_FAILED",
  "LSP_SERVER_ERROR",
  "LSP_PROTOCOL_ERROR",
  "LSP_TRANSPORT_FAILED",
  "LSP_CRASH_LOOP",
  // Configuration and the edges
  "LSP_INVALID_CONFIG",
  "LSP_EXECUTABLE_NOT_FOUND",
  "LSP_TIMEOUT",
  "LSP_INVALID_ARGUMENTS",
  // Positions and names
  "LSP_POSITION_OUT_OF_RANGE",
  "LSP_SYMBOL_NOT_FOUND",
  // The remote provider
  "LSP_REMOTE_UNAVAILABLE",
  "LSP_REMOTE_UNAUTHORIZED",
  "LSP_REMOTE_INCOMPATIBLE",
  "LSP_REMOTE_FORBIDDEN",
  // The wire's limits
  "LSP_RESPONSE_TOO_LARGE",
  // Operations
  "LSP_CANNOT_RENAME"
] as const

/**
 * @since 0.1.0
 * @category models
 */
export type Code = typeof codes[number]

const isPlain = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype

const isCode = (value: unknown): value is Code => (codes as ReadonlyArray<unknown>).includes(value)

const reasonTags: ReadonlyArray<unknown> = ["InitializeFailed", "PositionEncoding", "ServerExited", "TransportFailed"]

// `LspError.LspErrorReason`: a tagged struct; only MethodNotFound carries a field.
const isReason = (value: unknown): boolean =>
  isPlain(value) &&
  (value._tag === "MethodNotFound" ? typeof value.method === "string" : reasonTags.includes(value._tag))

/**
 * The code and message of an `LspError` as the wire encodes it (`{ _tag: "LspError", code, message, detail?,
 * reason? }`, plain JSON), when `Schema.decodeUnknown(LspError.LspError)` would accept it; `undefined` when
 * the schema has to look (its property tests hold the two together).
 *
 * @since 0.1.0
 * @category validation
 */
export const plainError = (value: unknown): { readonly code: Code; readonly message: string } | undefined => {
  if (!isPlain(value) || value._tag !== "LspError" || !isCode(value.code) || typeof value.message !== "string") {
    return undefined
  }
  if ("detail" in value && !isPlain(value.detail)) return undefined
  if ("reason" in value && !isReason(value.reason)) return undefined
  return { code: value.code, message: value.message }
}
