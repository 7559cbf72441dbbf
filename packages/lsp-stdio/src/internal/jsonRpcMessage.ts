/**
 * JSON-RPC 2.0 messages as LSP uses them: schemas for what the server sends, builders for what we send.
 *
 * @internal
 */
import { LspError } from "@lsp-seam/lsp"
import * as Either from "effect/Either"
import type * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/** Standard JSON-RPC error codes the client uses in its answers. */
export const ErrorCodes = {
  InvalidParams: -32602,
  MethodNotFound: -32601
} as const

const Version = Schema.Literal("2.0")

const RequestId = Schema.Union(Schema.Int, Schema.String)

/** A member that must be absent (so that the three shapes below never overlap). */
const absent = Schema.optionalWith(Schema.Never, { exact: true })

const Params = Schema.optionalWith(Schema.Unknown, { exact: true })

const ResponseError = Schema.Struct({
  code: Schema.Int,
  message: Schema.String,
  data: Schema.optionalWith(Schema.Unknown, { exact: true })
})

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
  error: Schema.optionalWith(ResponseError, { exact: true }),
  method: absent
}).pipe(Schema.attachPropertySignature("kind", "response"))

/** Any message a server may send. */
export const Incoming = Schema.Union(Request, Notification, Response)

export type Incoming = typeof Incoming.Type

export type IncomingResponse = Extract<Incoming, { readonly kind: "response" }>

export type ResponseError = typeof ResponseError.Type

export type RequestId = typeof RequestId.Type

const decodeIncomingEither = Schema.decodeUnknownEither(Incoming)

/** Longest excerpt of a schema failure kept in an error message (the offending value may be huge). */
const maxIssueLength = 600

/** Validates one decoded JSON value; anything but a request, notification or response is fatal. */
export const decodeIncoming = (message: unknown): Either.Either<Incoming, LspError.LspError> =>
  Either.mapLeft(decodeIncomingEither(message), (error) => {
    const issue = ParseResult.TreeFormatter.formatErrorSync(error)
    return LspError.protocolError(
      "The server sent a message that is not a JSON-RPC request, response or notification: " +
        (issue.length > maxIssueLength ? `${issue.slice(0, maxIssueLength)}...` : issue),
      { reason: "InvalidMessage" }
    )
  })

/** What a response says: the result member (if any), or the error. */
export type Outcome =
  | { readonly _tag: "Result"; readonly result: Option.Option<unknown> }
  | { readonly _tag: "Error"; readonly error: ResponseError }

export const outcome = (response: IncomingResponse): Outcome =>
  response.error !== undefined ? { _tag: "Error", error: response.error } : { _tag: "Result", result: response.result }

export const request = (id: number, method: string, params: unknown) => ({ jsonrpc: "2.0", id, method, params })

export const notification = (method: string, params: unknown) => ({ jsonrpc: "2.0", method, params })

export const resultResponse = (id: RequestId, result: unknown) => ({ jsonrpc: "2.0", id, result })

export const errorResponse = (id: RequestId, code: number, message: string) => ({
  jsonrpc: "2.0",
  id,
  error: { code, message }
})
