/**
 * The client's fixed answers to requests a server sends it. lsp-seam is a read-only client: it accepts the
 * bookkeeping requests servers need to make progress and refuses everything else, above all edits.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { ErrorCodes } from "./jsonRpcMessage.js"

export type Answer =
  | { readonly _tag: "Result"; readonly result: unknown }
  | { readonly _tag: "Error"; readonly code: number; readonly message: string }

const result = (value: unknown): Answer => ({ _tag: "Result", result: value })

const error = (code: number, message: string): Answer => ({ _tag: "Error", code, message })

const ConfigurationParams = Schema.Struct({ items: Schema.Array(Schema.Unknown) })

const isConfigurationParams = Schema.is(ConfigurationParams)

/**
 * Requests acknowledged with `null`: accepting them costs nothing and keeps servers going. A diagnostics
 * refresh asks the client to pull again; the host pulls afresh for every query anyway, and pyright exits
 * (code 1) when the request is refused.
 */
const acknowledged = new Set([
  "window/workDoneProgress/create",
  "client/registerCapability",
  "client/unregisterCapability",
  "workspace/diagnostic/refresh"
])

/**
 * Answers a server→client request. `configuration` is the static value returned for every item of a
 * `workspace/configuration` request.
 */
export const answer = (method: string, params: unknown, configuration: unknown): Answer => {
  if (method === "workspace/configuration") {
    return isConfigurationParams(params)
      ? result(params.items.map(() => configuration))
      : error(ErrorCodes.InvalidParams, "workspace/configuration needs params.items to be an array.")
  }
  if (acknowledged.has(method)) return result(null)
  if (method === "workspace/applyEdit") {
    return error(ErrorCodes.MethodNotFound, "lsp-seam is read-only: it never applies workspace edits.")
  }
  return error(ErrorCodes.MethodNotFound, `lsp-seam does not handle the "${method}" request.`)
}
