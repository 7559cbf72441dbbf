/**
 * JSON-RPC 2.0 messages as LSP uses them: schemas for what the server sends (lenient where a server's
 * slip costs nothing to repair), builders for what we send, and the errors an answer fails a request with.
 *
 * @internal
 */
import { LspDecode, LspError } from "@lsp-seam/lsp"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/** Standard JSON-RPC error codes: the client's answers, and the stand-in for an error without a code. */
export const ErrorCodes = {
  InvalidParams: -32602,
  MethodNotFound: -32601,
  InternalError: -32603
} as const

const Version = Schema.Literal("2.0")

const RequestId = Schema.Union(Schema.Int, Schema.String)

/** A member that must be absent (so that the three shapes below never overlap). */
const absent = Schema.optionalWith(Schema.Never, { exact: true })

const Params = Schema.optionalWith(Schema.Unknown, { exact: true })

const Member = Schema.optionalWith(Schema.Unknown, { exact: true })

/** Any object: a missing or mistyped code or message is filled in by `outcome` rather than refused. */
const LooseResponseError = Schema.Struct({ code: Member, message: Member, data: Member })

/** A request from the server; its answer must carry the same id. */
const Request = Schema.Struct({
  jsonrpc: Version,
  id: RequestId,
  method: Schema.String,
  params: Params
}).pipe(Schema.attachPropertySignature("kind", "request"))

const Notification = Schema.Struct({
  jsonrpc: Version,
  method: Schema.String,
  params: Params,
  id: absent
}).pipe(Schema.attachPropertySignature("kind", "notification"))

/**
 * A response. `result` is `None` when the member is missing, `Some(null)` for `result: null`. A response
 * carrying both members is treated as an error: an error is never silently dropped.
 */
const Response = Schema.Struct({
  jsonrpc: Version,
  id: Schema.NullOr(RequestId),
  result: Schema.optionalWith(Schema.Unknown, { exact: true, as: "Option" }),
  error: Schema.optionalWith(LooseResponseError, { exact: true }),
  method: absent
}).pipe(Schema.attachPropertySignature("kind", "response"))

/** Any message a server may send. */
export const Incoming = Schema.Union(Request, Notification, Response)

export type Incoming = typeof Incoming.Type

export type IncomingResponse = Extract<Incoming, { readonly kind: "response" }>

export interface ResponseError {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

export type RequestId = typeof RequestId.Type

// A server's JSON can make Schema's own union check throw (see `LspDecode`); these refuse such a message instead.
const decodeIncomingEither = LspDecode.decodeUnknownEither(Incoming)
const decodeRequest = LspDecode.decodeUnknownEither(Request)
const decodeNotification = LspDecode.decodeUnknownEither(Notification)
const decodeResponse = LspDecode.decodeUnknownEither(Response)

/**
 * The common case, checked without the schema: a response with a result to one of our requests (integer
 * ids), no error and no method. `Response` decodes it to the same value.
 */
const isPlainAnswer = (
  message: unknown
): message is { readonly jsonrpc: "2.0"; readonly id: number; readonly result: unknown } =>
  typeof message === "object" && message !== null && "jsonrpc" in message && message.jsonrpc === "2.0" &&
  "id" in message && Number.isSafeInteger(message.id) && "result" in message && !("error" in message) &&
  !("method" in message)

/**
 * The one member of `Incoming` a value can only be, by its `method` and `id` members: the members never
 * overlap, so where that member accepts the value the union gives the same. Decoding the union tries the
 * members in turn (a response after failing as a request and as a notification), which cost more than the
 * rest of a message's handling.
 */
const memberFor = (
  message: unknown
): ((u: unknown) => Either.Either<Incoming, ParseResult.ParseError>) | undefined => {
  if (typeof message !== "object" || message === null) return undefined
  if (!("method" in message)) return decodeResponse
  return "id" in message ? decodeRequest : decodeNotification
}

/** Longest description of an invalid message kept for the log (the offending value may be huge). */
const maxIssueLength = 300

/**
 * Validates one decoded JSON value. `Left` describes, briefly, why it is not a request, notification or
 * response.
 */
export const decodeIncoming = (message: unknown): Either.Either<Incoming, string> => {
  if (isPlainAnswer(message)) {
    return Either.right({ jsonrpc: "2.0", id: message.id, result: Option.some(message.result), kind: "response" })
  }
  const member = memberFor(message)?.(message)
  if (member !== undefined && Either.isRight(member)) return Either.right(member.right)
  // Not a valid message: the union's own complaint says what it is not.
  return Either.mapLeft(decodeIncomingEither(message), (error) => {
    const issue = ParseResult.TreeFormatter.formatErrorSync(error)
    return issue.length > maxIssueLength ? `${issue.slice(0, maxIssueLength)}...` : issue
  })
}

/**
 * The id of a value that is no request or notification (it has no `method`) but carries an integer id,
 * the only kind the client sends: an invalid message that may well be the answer to a pending request.
 */
export const responseId = (message: unknown): number | undefined => {
  if (typeof message !== "object" || message === null || "method" in message || !("id" in message)) return
  return Number.isSafeInteger(message.id) ? message.id as number : undefined
}

/** Stands in for an error response's missing or non-string `message`. */
export const noMessage = "(no message)"

/**
 * What a response says: the result member (if any), or the error. `repaired` says what an error object
 * lacked (an integer code, a string message) and was given.
 */
export type Outcome =
  | { readonly _tag: "Result"; readonly result: Option.Option<unknown> }
  | { readonly _tag: "Error"; readonly error: ResponseError; readonly repaired: string | undefined }

export const outcome = (response: IncomingResponse): Outcome => {
  const raw = response.error
  if (raw === undefined) return { _tag: "Result", result: response.result }
  const hasCode = Number.isSafeInteger(raw.code)
  const hasMessage = typeof raw.message === "string"
  const code = hasCode ? raw.code as number : ErrorCodes.InternalError
  const message = hasMessage ? raw.message as string : noMessage
  const error = raw.data === undefined ? { code, message } : { code, message, data: raw.data }
  const repaired = hasCode && hasMessage ?
    undefined :
    `an error without ${
      hasCode ? "a string message" : hasMessage ? "an integer code" : "an integer code or a string message"
    }`
  return { _tag: "Error", error, repaired }
}

/** JSON-RPC's "method not found". */
const methodNotFound = -32601

/**
 * The failure of a request the server answered with `error`. A "method not found" is classified here, where
 * the number comes off the wire, as the typed reason `MethodNotFound`: the host decides on that.
 */
export const serverError = (method: string, error: ResponseError): LspError.LspLocalError => {
  const failure = LspError.serverError(
    `The language server failed the "${method}" request (JSON-RPC error ${error.code}): ${error.message}`,
    error.data === undefined
      ? { method, code: error.code, message: error.message }
      : { method, code: error.code, message: error.message, data: error.data }
  )
  return error.code === methodNotFound ? LspError.withReason(failure, { _tag: "MethodNotFound", method }) : failure
}

/** The failure of a request whose answer is not a valid response. */
export const malformedResponse = (method: string, issue: string): LspError.LspLocalError =>
  LspError.malformedResponse(
    `The language server answered the "${method}" request with a message that is not a valid JSON-RPC response.`,
    { method, issue }
  )

export const request = (id: number, method: string, params: unknown) => ({ jsonrpc: "2.0", id, method, params })

export const notification = (method: string, params: unknown) => ({ jsonrpc: "2.0", method, params })

export const resultResponse = (id: RequestId, result: unknown) => ({ jsonrpc: "2.0", id, result })

export const errorResponse = (id: RequestId, code: number, message: string) => ({
  jsonrpc: "2.0",
  id,
  error: { code, message }
})
