/**
 * The errors of lsp-seam. Every failure anywhere in the stack (seam, host, tool, CLI) is an `LspError`: one
 * of a small union of `Schema.TaggedError` classes by family (`LspArgumentsError`, `LspSourceError`,
 * `LspConfigurationError`, `LspServerError`, `LspTimeoutError`, `LspRemoteError`, `LspOperationError`), which
 * `Effect.catchTag`/`catchTags` split, each with a stable `code` from a closed union that callers and models
 * can branch on. Which code belongs to which family: `LspErrorRead.families`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import {
  build,
  type FamilyOf,
  type LspConfigurationError,
  LspError,
  type LspErrorCode,
  type LspErrorDetail,
  type LspErrorReason,
  type LspOperationError,
  type LspRemoteError
} from "./internal/errorFamilies.js"

/**
 * The schemas of a failure, its family classes and their union `LspError` (the type of every failure and
 * the schema of a wire that carries one).
 *
 * @since 0.1.0
 */
export {
  LspArgumentsError,
  LspConfigurationError,
  LspError,
  LspErrorCode,
  LspErrorDetail,
  LspErrorReason,
  LspOperationError,
  LspRemoteError,
  LspServerError,
  LspSourceError,
  LspTimeoutError
} from "./internal/errorFamilies.js"

/**
 * @since 0.1.0
 */
export type { FamilyOf } from "./internal/errorFamilies.js"

/**
 * What a provider on this machine (the stdio host, a test double) can fail with: every family but
 * `LspRemoteError`, which only the client of a remote host raises.
 *
 * @since 0.1.0
 * @category errors
 */
export type LspLocalError = Exclude<LspError, LspRemoteError>

/**
 * What registering a provider can fail with: `LSP_INVALID_PROVIDER` or `LSP_CONFLICT` (`LspConfigurationError`),
 * `LSP_DISPOSED` once the service has been shut down (`LspOperationError`).
 *
 * @since 0.1.0
 * @category errors
 */
export type LspRegistrationError = LspConfigurationError | LspOperationError

/**
 * Builds the `LspError` of the family `code` belongs to (`make("LSP_TIMEOUT", …)` is an `LspTimeoutError`);
 * `detail` is omitted when not given.
 *
 * @since 0.1.0
 * @category constructors
 */
export function make<C extends LspErrorCode>(code: C, message: string, detail?: LspErrorDetail): FamilyOf<C>
export function make(code: LspErrorCode, message: string, detail?: LspErrorDetail): LspError {
  return build(detail === undefined ? { code, message } : { code, message, detail })
}

/**
 * The same error with a typed `reason` (replacing any it had), of the same family: `withReason(error, reason)`,
 * or `withReason(reason)` to use in a pipe or `Effect.mapError`. Every constructor of this module leaves
 * `reason` out; this is how one is attached.
 *
 * @example
 * import { LspError } from "@lsp-seam/lsp"
 *
 * const failure = LspError.withReason(
 *   LspError.serverError("textDocument/hover is not supported", { jsonRpcCode: -32601 }),
 *   { _tag: "MethodNotFound", method: "textDocument/hover" }
 * )
 *
 * @since 0.1.0
 * @category constructors
 */
export function withReason(reason: LspErrorReason): <E extends LspError>(error: E) => E
export function withReason<E extends LspError>(error: E, reason: LspErrorReason): E
export function withReason(
  ...args: [reason: LspErrorReason] | [error: LspError, reason: LspErrorReason]
): LspError | ((error: LspError) => LspError) {
  if (args.length === 1) {
    const [reason] = args
    return (error: LspError) => withReason(error, reason)
  }
  const [{ code, detail, message }, reason] = args
  return build(detail === undefined ? { code, message, reason } : { code, message, detail, reason })
}

const constructor = <C extends LspErrorCode>(code: C) => (message: string, detail?: LspErrorDetail): FamilyOf<C> =>
  make(code, message, detail)

/**
 * A provider's shape or extension map breaks a registration rule.
 *
 * @since 0.1.0
 * @category constructors
 */
export const invalidProvider = constructor("LSP_INVALID_PROVIDER")

/**
 * A provider id or extension is already held by another provider.
 *
 * @since 0.1.0
 * @category constructors
 */
export const conflict = constructor("LSP_CONFLICT")

/**
 * No registered provider handles the file's extension.
 *
 * @since 0.1.0
 * @category constructors
 */
export const unavailable = constructor("LSP_UNAVAILABLE")

/**
 * The service or provider has been shut down.
 *
 * @since 0.1.0
 * @category constructors
 */
export const disposed = constructor("LSP_DISPOSED")

/**
 * The server does not support the operation (or cannot open documents transiently).
 *
 * @since 0.1.0
 * @category constructors
 */
export const unsupportedOperation = constructor("LSP_UNSUPPORTED_OPERATION")

/**
 * A provider or server answered with a value that does not fit the protocol.
 *
 * @since 0.1.0
 * @category constructors
 */
export const malformedResponse = constructor("LSP_MALFORMED_RESPONSE")

/**
 * A query needs a workspace and the caller has none.
 *
 * @since 0.1.0
 * @category constructors
 */
export const workspaceRequired = constructor("LSP_WORKSPACE_REQUIRED")

/**
 * The workspace root does not exist or is not a directory.
 *
 * @since 0.1.0
 * @category constructors
 */
export const invalidWorkspace = constructor("LSP_INVALID_WORKSPACE")

/**
 * The source file does not exist.
 *
 * @since 0.1.0
 * @category constructors
 */
export const sourceNotFound = constructor("LSP_SOURCE_NOT_FOUND")

/**
 * The source file resolves (possibly through a symlink) outside the workspace.
 *
 * @since 0.1.0
 * @category constructors
 */
export const sourceOutsideWorkspace = constructor("LSP_SOURCE_OUTSIDE_WORKSPACE")

/**
 * The source path is a directory, FIFO, device or anything but a regular file.
 *
 * @since 0.1.0
 * @category constructors
 */
export const sourceNotAFile = constructor("LSP_SOURCE_NOT_A_FILE")

/**
 * The source file looks binary (a NUL byte near its start).
 *
 * @since 0.1.0
 * @category constructors
 */
export const sourceBinary = constructor("LSP_SOURCE_BINARY")

/**
 * The source file is not valid UTF-8.
 *
 * @since 0.1.0
 * @category constructors
 */
export const sourceInvalidUtf8 = constructor("LSP_SOURCE_INVALID_UTF8")

/**
 * The source file is larger than the configured limit.
 *
 * @since 0.1.0
 * @category constructors
 */
export const sourceTooLarge = constructor("LSP_SOURCE_TOO_LARGE")

/**
 * The language server process exited; the message carries its stderr tail.
 *
 * @since 0.1.0
 * @category constructors
 */
export const serverExited = constructor("LSP_SERVER_EXITED")

/**
 * The language server could not be spawned or failed its handshake.
 *
 * @since 0.1.0
 * @category constructors
 */
export const serverStartFailed = constructor("LSP_SERVER_START_FAILED")

/**
 * The server answered a request with a JSON-RPC error (code and message in `detail`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const serverError = constructor("LSP_SERVER_ERROR")

/**
 * The server broke the wire protocol (framing, JSON, position encoding).
 *
 * @since 0.1.0
 * @category constructors
 */
export const protocolError = constructor("LSP_PROTOCOL_ERROR")

/**
 * Writing to or reading from the server failed.
 *
 * @since 0.1.0
 * @category constructors
 */
export const transportFailed = constructor("LSP_TRANSPORT_FAILED")

/**
 * The server crashed too often recently; restarts are paused.
 *
 * @since 0.1.0
 * @category constructors
 */
export const crashLoop = constructor("LSP_CRASH_LOOP")

/**
 * Configuration failed validation.
 *
 * @since 0.1.0
 * @category constructors
 */
export const invalidConfig = constructor("LSP_INVALID_CONFIG")

/**
 * A configured server command could not be resolved to an executable file.
 *
 * @since 0.1.0
 * @category constructors
 */
export const executableNotFound = constructor("LSP_EXECUTABLE_NOT_FOUND")

/**
 * The server cannot answer for this workspace until the workspace is set up (its dependencies are not
 * downloaded, …): the message says what to run. Raised where a server's configuration (`workspaceErrors`)
 * recognises its error message.
 *
 * @since 0.1.0
 * @category constructors
 */
export const workspaceNotReady = constructor("LSP_WORKSPACE_NOT_READY")

/**
 * The caller's time budget ran out.
 *
 * @since 0.1.0
 * @category constructors
 */
export const timeout = constructor("LSP_TIMEOUT")

/**
 * Tool or query arguments failed validation.
 *
 * @since 0.1.0
 * @category constructors
 */
export const invalidArguments = constructor("LSP_INVALID_ARGUMENTS")

/**
 * A position's line is past the end of the file, or its character past the end of its line (the message
 * says the file's line count or the line's length).
 *
 * @since 0.1.0
 * @category constructors
 */
export const positionOutOfRange = constructor("LSP_POSITION_OUT_OF_RANGE")

/**
 * A requested `symbol` occurs nowhere near the requested line (the message lists the identifiers on it).
 *
 * @since 0.1.0
 * @category constructors
 */
export const symbolNotFound = constructor("LSP_SYMBOL_NOT_FOUND")

/**
 * The remote host cannot be reached, or the connection to it was lost before it answered.
 *
 * @since 0.1.0
 * @category constructors
 */
export const remoteUnavailable = constructor("LSP_REMOTE_UNAVAILABLE")

/**
 * The remote host refused the connection's credentials (a missing or wrong bearer token).
 *
 * @since 0.1.0
 * @category constructors
 */
export const remoteUnauthorized = constructor("LSP_REMOTE_UNAUTHORIZED")

/**
 * The remote host runs another lsp-seam version or another configuration than the client expects.
 *
 * @since 0.1.0
 * @category constructors
 */
export const remoteIncompatible = constructor("LSP_REMOTE_INCOMPATIBLE")

/**
 * The remote host does not serve the asked workspace: it lies outside the host's served roots.
 *
 * @since 0.1.0
 * @category constructors
 */
export const remoteForbidden = constructor("LSP_REMOTE_FORBIDDEN")

/**
 * A language server's answer is larger than the host's frame limit; that query alone fails.
 *
 * @since 0.1.0
 * @category constructors
 */
export const responseTooLarge = constructor("LSP_RESPONSE_TOO_LARGE")

/**
 * The position cannot be renamed (a keyword, a literal, a symbol the server will not rename such as one
 * declared in a library), or the server refused the rename; the message says why.
 *
 * @since 0.1.0
 * @category constructors
 */
export const cannotRename = constructor("LSP_CANNOT_RENAME")

/**
 * The caller abandoned the query: the Promise client's `signal` was aborted without a reason of its own.
 *
 * @since 0.1.0
 * @category constructors
 */
export const aborted = constructor("LSP_ABORTED")

/**
 * True for any `LspError`, of any family, whichever copy of its class made it.
 *
 * @since 0.1.0
 * @category guards
 */
export const isLspError = (u: unknown): u is LspError => Schema.is(LspError)(u)

/**
 * True for an `LspError` of any family but `LspRemoteError`: what a provider on this machine may fail with.
 *
 * @since 0.1.0
 * @category guards
 */
export const isLspLocalError = (u: unknown): u is LspLocalError => isLspError(u) && u._tag !== "LspRemoteError"
