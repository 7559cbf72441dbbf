/**
 * Reading a coded failure without its Schema: the closed list of codes by family (`LspError.LspErrorCode` and
 * the family classes are built from it) and a check of an `LspError` as the wire encodes it. Imports nothing,
 * so that a client which must start in Node's start time (the command's remote query, see docs/decisions.md)
 * can report a host's coded error without loading `effect/Schema`.
 *
 * @since 0.1.0
 */

/**
 * The families of failure codes, by the tag of the `Schema.TaggedError` class that carries them
 * (`LspError.LspArgumentsError`, ...): each code belongs to exactly one family, so `Effect.catchTag` on a family
 * catches the same codes everywhere. The list is closed and defined here, in one place, even for codes that only
 * later layers (the stdio host, the tool, the CLI, the Promise client) raise.
 *
 * - `LspArgumentsError`: the call itself is wrong (its arguments, its position, its name, a missing workspace);
 * - `LspSourceError`: the workspace or file the call points at cannot be read as source;
 * - `LspConfigurationError`: the setup is wrong (configuration, a server command, a provider's registration, a
 *   workspace whose dependencies its server cannot find);
 * - `LspServerError`: a language server (or provider) failed: exited, would not start, broke the protocol;
 * - `LspTimeoutError`: the caller's time budget ran out;
 * - `LspRemoteError`: a remote host cannot be reached, refused the caller, or does not match it;
 * - `LspOperationError`: this operation cannot be carried out here or now: no server for the file, not
 *   supported, refused, shut down or abandoned by the caller.
 *
 * @since 0.1.0
 * @category constants
 */
export const families = {
  LspArgumentsError: [
    "LSP_INVALID_ARGUMENTS",
    "LSP_WORKSPACE_REQUIRED",
    "LSP_POSITION_OUT_OF_RANGE",
    "LSP_SYMBOL_NOT_FOUND"
  ],
  LspSourceError: [
    "LSP_INVALID_WORKSPACE",
    "LSP_SOURCE_NOT_FOUND",
    "LSP_SOURCE_OUTSIDE_WORKSPACE",
    "LSP_SOURCE_NOT_A_FILE",
    "LSP_SOURCE_BINARY",
    "LSP_SOURCE_INVALID_UTF8",
    "LSP_SOURCE_TOO_LARGE"
  ],
  LspConfigurationError: [
    "LSP_INVALID_CONFIG",
    "LSP_EXECUTABLE_NOT_FOUND",
    "LSP_INVALID_PROVIDER",
    "LSP_CONFLICT",
    "LSP_WORKSPACE_NOT_READY"
  ],
  LspServerError: [
    "LSP_SERVER_EXITED",
    "LSP_SERVER_START_FAILED",
    "LSP_SERVER_ERROR",
    "LSP_PROTOCOL_ERROR",
    "LSP_TRANSPORT_FAILED",
    "LSP_CRASH_LOOP",
    "LSP_MALFORMED_RESPONSE",
    "LSP_RESPONSE_TOO_LARGE"
  ],
  LspTimeoutError: ["LSP_TIMEOUT"],
  LspRemoteError: [
    "LSP_REMOTE_UNAVAILABLE",
    "LSP_REMOTE_UNAUTHORIZED",
    "LSP_REMOTE_INCOMPATIBLE",
    "LSP_REMOTE_FORBIDDEN"
  ],
  LspOperationError: [
    "LSP_UNAVAILABLE",
    "LSP_UNSUPPORTED_OPERATION",
    "LSP_CANNOT_RENAME",
    "LSP_DISPOSED",
    "LSP_ABORTED"
  ]
} as const

/**
 * The tag of a family of failure codes.
 *
 * @since 0.1.0
 * @category models
 */
export type Family = keyof typeof families

/**
 * @since 0.1.0
 * @category models
 */
export type Code = typeof families[Family][number]

/**
 * Every failure code lsp-seam can produce, family by family in the order of `families`, as
 * `LspError.LspErrorCode` lists them.
 *
 * @since 0.1.0
 * @category constants
 */
export const codes: readonly [Code, ...Array<Code>] = [
  ...families.LspArgumentsError,
  ...families.LspSourceError,
  ...families.LspConfigurationError,
  ...families.LspServerError,
  ...families.LspTimeoutError,
  ...families.LspRemoteError,
  ...families.LspOperationError
]

const isPlain = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype

const isFamily = (value: unknown): value is Family => typeof value === "string" && Object.hasOwn(families, value)

const isCodeOf = (family: Family, value: unknown): value is Code => {
  const members: ReadonlyArray<unknown> = families[family]
  return members.includes(value)
}

const reasonTags: ReadonlyArray<unknown> = ["InitializeFailed", "PositionEncoding", "ServerExited", "TransportFailed"]

// `LspError.LspErrorReason`: a tagged struct; only MethodNotFound carries a field.
const isReason = (value: unknown): boolean =>
  isPlain(value) &&
  (value._tag === "MethodNotFound" ? typeof value.method === "string" : reasonTags.includes(value._tag))

/**
 * The code and message of an `LspError` as the wire encodes it (`{ _tag, code, message, detail?, reason? }`,
 * plain JSON, `_tag` the family of `code`, e.g. `"LspTimeoutError"` for `"LSP_TIMEOUT"`), when
 * `Schema.decodeUnknown(LspError.LspError)` would accept it; `undefined` when the schema has to look (its
 * property tests hold the two together).
 *
 * @since 0.1.0
 * @category validation
 */
export const plainError = (value: unknown): { readonly code: Code; readonly message: string } | undefined => {
  if (!isPlain(value) || !isFamily(value._tag) || !isCodeOf(value._tag, value.code)) return undefined
  if (typeof value.message !== "string") return undefined
  if ("detail" in value && !isPlain(value.detail)) return undefined
  if ("reason" in value && !isReason(value.reason)) return undefined
  return { code: value.code, message: value.message }
}
