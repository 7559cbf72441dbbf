/**
 * What an MCP client writes on stdin, checked line by line before @effect/rpc's JSON-RPC reader sees it: that
 * reader throws on a line that is not JSON and on an id or a method it cannot turn into a string, the server
 * throws on params Schema's union check cannot read (see `LspDecode`), and either stops the stdio loop for
 * good. Methods are the MCP client methods the server has; @effect/rpc's own control methods are not among
 * them.
 *
 * @internal
 */
import * as McpSchema from "@effect/ai/McpSchema"
import { LspDecode } from "@lsp-seam/lsp"
import * as Arr from "effect/Array"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/** JSON-RPC 2.0's error codes for what a client sent. */
const ParseError = -32700
const InvalidRequest = -32600
const MethodNotFound = -32601
const InvalidParams = -32602

const Id = Schema.Union(Schema.String, Schema.Number)

const Member = Schema.optionalWith(Schema.Unknown, { exact: true })

const absent = Schema.optionalWith(Schema.Never, { exact: true })

// Only the JSON-RPC members go on: @effect/rpc also reads its own (`headers`, `traceId`), which no MCP
// client sends and which it trusts.
const ClientMessage = Schema.Union(
  Schema.Struct({
    jsonrpc: Schema.Literal("2.0"),
    id: Schema.optionalWith(Id, { exact: true }),
    method: Schema.String,
    params: Member
  }),
  // An answer to a request of the server's.
  Schema.Struct({ jsonrpc: Schema.Literal("2.0"), id: Id, result: Member, error: Member, method: absent })
    .pipe(Schema.filter((answer) => "result" in answer || "error" in answer))
)

const decodeMessage = LspDecode.decodeUnknownEither(ClientMessage)

// Each method's params, checked as the server will decode them (its decoding throws as well, mid-dispatch).
const decodeParams = new Map(
  Array.from(
    McpSchema.ClientRpcs.requests.values(),
    (rpc: { readonly _tag: string; readonly payloadSchema: Schema.Schema.AnyNoContext }) => [
      rpc._tag,
      LspDecode.decodeUnknownEither(rpc.payloadSchema)
    ]
  )
)

/** Longest description of invalid params sent back (the schema's own can be long). */
const maxIssueLength = 300

/** A line's fate: the messages to pass on, and the errors to answer at once. */
export interface CheckedLine {
  readonly forward: ReadonlyArray<Record<string, unknown>>
  readonly replies: ReadonlyArray<string>
}

const reply = (id: unknown, code: number, message: string): string =>
  `${
    JSON.stringify({
      jsonrpc: "2.0",
      id: typeof id === "string" || typeof id === "number" ? id : null,
      error: { code, message }
    })
  }\n`

const idOf = (value: unknown): unknown => typeof value === "object" && value !== null ? Reflect.get(value, "id") : null

/** The message to pass on, or what to answer instead (`undefined`: a notification, answered by nothing). */
const checkMessage = (value: unknown): Either.Either<Record<string, unknown>, string | undefined> => {
  const decoded = decodeMessage(value)
  if (Either.isLeft(decoded)) {
    return Either.left(
      reply(idOf(value), InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 request, notification or response")
    )
  }
  const message = decoded.right
  if (message.method === undefined) return Either.right(message)
  const refuse = (code: number, text: string) =>
    Either.left(message.id === undefined ? undefined : reply(message.id, code, text))
  const params = decodeParams.get(message.method)
  if (params === undefined) return refuse(MethodNotFound, `Method not found: ${message.method}`)
  const checked = params(message.params)
  if (Either.isRight(checked)) return Either.right(message)
  const issue = ParseResult.TreeFormatter.formatErrorSync(checked.left)
  return refuse(
    InvalidParams,
    `Invalid params for ${message.method}: ${
      issue.length > maxIssueLength ? `${issue.slice(0, maxIssueLength)}...` : issue
    }`
  )
}

/** Checks one line (without its newline) of what the client wrote. */
export const checkLine = (line: string): CheckedLine => {
  let json: unknown
  try {
    json = JSON.parse(line)
  } catch {
    return { forward: [], replies: [reply(null, ParseError, "Parse error: the line is not JSON")] }
  }
  if (Array.isArray(json) && json.length === 0) {
    return { forward: [], replies: [reply(null, InvalidRequest, "Invalid Request: an empty batch")] }
  }
  const [replies, forward] = Arr.partitionMap(Array.isArray(json) ? json : [json], checkMessage)
  return { forward, replies: replies.filter((line) => line !== undefined) }
}
