/**
 * The client's first look at every message its host sends. @effect/rpc's client reads an answer's request id
 * with `BigInt` and decodes its exit with Schema while it dispatches; a value either of them throws on (an id
 * that is no decimal string, a `_tag` Schema's union check cannot turn into a string, see `LspDecode`) is lost
 * there, and the call it answers waits forever. Each decoded message is checked first: an answer that fails
 * the check becomes a defect of that call alone (`LSP_PROTOCOL_ERROR`), and any other invalid message or
 * unreadable line a `Defect` of the connection, which fails every call in flight with the same code.
 */
import type * as RpcSerialization from "@effect/rpc/RpcSerialization"
import { LspDecode } from "@lsp-seam/lsp"
import * as Schema from "effect/Schema"
import { isRequestId, RequestId } from "./requestId.js"

// The exit's own structure (its tags and its cause tree); success values and errors are the group's Schemas'
// to check, and those never throw (`LspRpc.QueryResult` checks with `LspResultCheck`, the rest are plain
// structs).
const ExitShape = Schema.encodedSchema(
  Schema.Exit({ success: Schema.Unknown, failure: Schema.Unknown, defect: Schema.Unknown })
)

const isValid = LspDecode.is(Schema.Union(
  Schema.Struct({
    _tag: Schema.Literal("Exit"),
    requestId: RequestId,
    exit: ExitShape
  }),
  Schema.Struct({ _tag: Schema.Literal("Defect"), defect: Schema.Unknown }),
  Schema.Struct({ _tag: Schema.Literal("ClientProtocolError"), error: Schema.Unknown }),
  Schema.Struct({ _tag: Schema.Literal("Pong", "ClientEnd") })
))

/** The id of an answer the check refused, when it can still be read. */
const answerId = (message: unknown): string | undefined =>
  typeof message === "object" && message !== null && "_tag" in message && message._tag === "Exit" &&
    "requestId" in message && isRequestId(message.requestId)
    ? message.requestId
    : undefined

const invalid = "The host sent a message that is not valid in the lsp-seam protocol"

/** What the client's dispatcher gets in place of `message`: itself when valid. */
const checked = (message: unknown): unknown => {
  if (isValid(message)) return message
  const requestId = answerId(message)
  return requestId === undefined
    ? { _tag: "Defect", defect: `${invalid}.` }
    : { _tag: "Exit", requestId, exit: { _tag: "Failure", cause: { _tag: "Die", defect: `${invalid} as an answer.` } } }
}

/**
 * `serialization` with every message it decodes checked first. A line its reader cannot read (not JSON, or
 * longer than its limit) is a `Defect` too: the ndjson reader keeps a line that is not JSON and throws on it
 * again with every later chunk, and the RPC client reads on after the throw, so each later answer on that
 * connection was lost as well. The reader is replaced, dropping what it held.
 */
export const guardSerialization = (
  serialization: RpcSerialization.RpcSerialization["Type"]
): RpcSerialization.RpcSerialization["Type"] => ({
  ...serialization,
  unsafeMake: () => {
    let parser = serialization.unsafeMake()
    return {
      encode: (response) => parser.encode(response),
      decode: (data) => {
        try {
          return parser.decode(data).map(checked)
        } catch (thrown) {
          parser = serialization.unsafeMake()
          const why = thrown instanceof Error ? thrown.message : "it could not be read"
          return [{ _tag: "Defect", defect: `The host sent a line the client cannot read (${why}).` }]
        }
      }
    }
  }
})
