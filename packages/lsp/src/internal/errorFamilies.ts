/**
 * The schemas of a coded failure: its code, detail and reason, one `Schema.TaggedError` class per family of
 * codes (`LspErrorRead.families`), and their union. `LspError` re-exports them beside a constructor per code.
 */
import * as Schema from "effect/Schema"
import * as LspErrorRead from "../LspErrorRead.js"

/**
 * Every failure code lsp-seam can produce. The union is closed and listed in one place, `LspErrorRead.codes`
 * (a module without Schema, for clients that must start fast), even for codes that only later layers (the
 * stdio host, the tool, the CLI) raise.
 *
 * @since 0.1.0
 * @category models
 */
export const LspErrorCode = Schema.Literal(...LspErrorRead.codes)

/**
 * @since 0.1.0
 * @category models
 */
export type LspErrorCode = typeof LspErrorCode.Type

/**
 * Structured, serialisable facts about a failure (the offending key, a JSON-RPC error code, a stderr
 * tail, ...). Never needed to understand the message; there for programs.
 *
 * @since 0.1.0
 * @category models
 */
export const LspErrorDetail = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * @since 0.1.0
 * @category models
 */
export type LspErrorDetail = typeof LspErrorDetail.Type

/**
 * Why a failure happened, as a tagged value programs match on (`_tag`) instead of reading `code` and
 * `detail`: `MethodNotFound` — a server answered JSON-RPC -32601 to `method`; `InitializeFailed` — the
 * server's initialize handshake failed; `PositionEncoding` — the server chose a position encoding lsp-seam
 * cannot use; `ServerExited` — the server process exited; `TransportFailed` — writing to or reading from the
 * server failed. Optional on an `LspError`: absent unless the raiser knew it. Build one as a plain value,
 * e.g. `{ _tag: "MethodNotFound", method: "textDocument/hover" }`, and attach it with `withReason`.
 *
 * @since 0.1.0
 * @category models
 */
export const LspErrorReason = Schema.Union(
  Schema.TaggedStruct("MethodNotFound", { method: Schema.String }),
  Schema.TaggedStruct("InitializeFailed", {}),
  Schema.TaggedStruct("PositionEncoding", {}),
  Schema.TaggedStruct("ServerExited", {}),
  Schema.TaggedStruct("TransportFailed", {})
)

/**
 * @since 0.1.0
 * @category models
 */
export type LspErrorReason = typeof LspErrorReason.Type

// Every family has the same fields; only the codes its `code` may take differ.
const fieldsOf = <const Codes extends readonly [LspErrorCode, ...Array<LspErrorCode>]>(codes: Codes) => ({
  code: Schema.Literal(...codes),
  message: Schema.String,
  detail: Schema.optional(LspErrorDetail),
  reason: Schema.optional(LspErrorReason)
})

const { families } = LspErrorRead

/**
 * The call itself is wrong: `LSP_INVALID_ARGUMENTS`, `LSP_WORKSPACE_REQUIRED`, `LSP_POSITION_OUT_OF_RANGE`,
 * `LSP_SYMBOL_NOT_FOUND`. Asking again with other arguments can succeed.
 *
 * @since 0.1.0
 * @category errors
 */
export class LspArgumentsError extends Schema.TaggedError<LspArgumentsError>("@lsp-seam/lsp/LspArgumentsError")(
  "LspArgumentsError",
  fieldsOf(families.LspArgumentsError)
) {}

/**
 * The workspace or file the call points at cannot be read as source: `LSP_INVALID_WORKSPACE` and every
 * `LSP_SOURCE_*` code (not found, outside the workspace, not a file, binary, invalid UTF-8, too large).
 *
 * @since 0.1.0
 * @category errors
 */
export class LspSourceError extends Schema.TaggedError<LspSourceError>("@lsp-seam/lsp/LspSourceError")(
  "LspSourceError",
  fieldsOf(families.LspSourceError)
) {}

/**
 * The setup is wrong, whatever the call: `LSP_INVALID_CONFIG`, `LSP_EXECUTABLE_NOT_FOUND` (a server's command
 * resolves to no executable), `LSP_INVALID_PROVIDER`, `LSP_CONFLICT` (a provider's registration),
 * `LSP_WORKSPACE_NOT_READY` (the workspace's dependencies are missing for its server: the message says what to run).
 *
 * @since 0.1.0
 * @category errors
 */
export class LspConfigurationError
  extends Schema.TaggedError<LspConfigurationError>("@lsp-seam/lsp/LspConfigurationError")(
    "LspConfigurationError",
    fieldsOf(families.LspConfigurationError)
  )
{}

/**
 * A language server (or provider) failed: `LSP_SERVER_EXITED`, `LSP_SERVER_START_FAILED`, `LSP_SERVER_ERROR`,
 * `LSP_PROTOCOL_ERROR`, `LSP_TRANSPORT_FAILED`, `LSP_CRASH_LOOP`, `LSP_MALFORMED_RESPONSE`,
 * `LSP_RESPONSE_TOO_LARGE`. Its `reason`, when set, says why in a form to match on.
 *
 * @since 0.1.0
 * @category errors
 */
export class LspServerError extends Schema.TaggedError<LspServerError>("@lsp-seam/lsp/LspServerError")(
  "LspServerError",
  fieldsOf(families.LspServerError)
) {}

/**
 * The caller's time budget ran out: `LSP_TIMEOUT`. The query was cancelled.
 *
 * @since 0.1.0
 * @category errors
 */
export class LspTimeoutError extends Schema.TaggedError<LspTimeoutError>("@lsp-seam/lsp/LspTimeoutError")(
  "LspTimeoutError",
  fieldsOf(families.LspTimeoutError)
) {}

/**
 * A remote host cannot be reached, refused the caller or does not match it: `LSP_REMOTE_UNAVAILABLE`,
 * `LSP_REMOTE_UNAUTHORIZED`, `LSP_REMOTE_INCOMPATIBLE`, `LSP_REMOTE_FORBIDDEN`.
 *
 * @since 0.1.0
 * @category errors
 */
export class LspRemoteError extends Schema.TaggedError<LspRemoteError>("@lsp-seam/lsp/LspRemoteError")(
  "LspRemoteError",
  fieldsOf(families.LspRemoteError)
) {}

/**
 * The operation cannot be carried out here or now: `LSP_UNAVAILABLE` (no server for the file),
 * `LSP_UNSUPPORTED_OPERATION`, `LSP_CANNOT_RENAME`, `LSP_DISPOSED` (shut down), `LSP_ABORTED` (the caller
 * abandoned it).
 *
 * @since 0.1.0
 * @category errors
 */
export class LspOperationError extends Schema.TaggedError<LspOperationError>("@lsp-seam/lsp/LspOperationError")(
  "LspOperationError",
  fieldsOf(families.LspOperationError)
) {}

/**
 * A coded lsp-seam failure: one of the family classes, each with a stable `code`, a `message` written for the
 * reader who has to act on it (often a model), and optional `detail` and `reason`.
 *
 * @since 0.1.0
 * @category errors
 */
export type LspError =
  | LspArgumentsError
  | LspSourceError
  | LspConfigurationError
  | LspServerError
  | LspTimeoutError
  | LspRemoteError
  | LspOperationError

/**
 * The schema of every `LspError`, for a wire (RPC, tool results): the union of the family classes.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LspError = Schema.Union(
  LspArgumentsError,
  LspSourceError,
  LspConfigurationError,
  LspServerError,
  LspTimeoutError,
  LspRemoteError,
  LspOperationError
)

/**
 * The family class of a code: `FamilyOf<"LSP_TIMEOUT">` is `LspTimeoutError`.
 *
 * @since 0.1.0
 * @category models
 */
export type FamilyOf<C extends LspErrorCode> = LspError extends infer E
  ? E extends { readonly code: infer K } ? C extends K ? E : never : never
  : never

/** The fields of an `LspError`, whatever its family. */
export interface LspErrorFields {
  readonly code: LspErrorCode
  readonly message: string
  readonly detail?: LspErrorDetail
  readonly reason?: LspErrorReason
}

const isCodeOf = <const Codes extends ReadonlyArray<LspErrorCode>>(members: Codes) => {
  const all: ReadonlyArray<LspErrorCode> = members
  return (code: LspErrorCode): code is Codes[number] => all.includes(code)
}

const isArguments = isCodeOf(families.LspArgumentsError)
const isSource = isCodeOf(families.LspSourceError)
const isConfiguration = isCodeOf(families.LspConfigurationError)
const isServer = isCodeOf(families.LspServerError)
const isTimeout = isCodeOf(families.LspTimeoutError)
const isRemote = isCodeOf(families.LspRemoteError)

/** The error of the family `fields.code` belongs to. */
export const build = (fields: LspErrorFields): LspError => {
  const { code } = fields
  if (isArguments(code)) return new LspArgumentsError({ ...fields, code })
  if (isSource(code)) return new LspSourceError({ ...fields, code })
  if (isConfiguration(code)) return new LspConfigurationError({ ...fields, code })
  if (isServer(code)) return new LspServerError({ ...fields, code })
  if (isTimeout(code)) return new LspTimeoutError({ ...fields, code })
  if (isRemote(code)) return new LspRemoteError({ ...fields, code })
  return new LspOperationError({ ...fields, code })
}
