import { assert, describe, it } from "@effect/vitest"
import { LspError, LspErrorRead, LspService } from "@lsp-seam/lsp"
import { LspRemoteClient, LspRpc } from "@lsp-seam/lsp-remote"
import { registerFakeProvider } from "@lsp-seam/lsp/testing"
import { Context, Effect, Schema } from "effect"
import * as Path from "node:path"
import { clientOf, request, serveSocket, tempDir } from "./support.js"

/** One error per code, every other one with a detail and a reason, as a host may fail. */
const errors = LspErrorRead.codes.map((code, i) => {
  const error = LspError.make(code, `${code} happened`, i % 2 === 0 ? { code, attempt: i } : undefined)
  return i % 2 === 0 ? LspError.withReason(error, { _tag: "MethodNotFound", method: "textDocument/hover" }) : error
})

const rpcs = [LspRpc.Hello, LspRpc.Query, LspRpc.Status, LspRpc.Memory] as const

/** A host whose provider for `.err` files fails with the error of the code the file is named after. */
const served = Effect.gen(function*() {
  const service = yield* LspService.make
  const context = Context.make(LspService.LspService, service)
  yield* registerFakeProvider({
    id: "failing",
    extensionToLanguage: { ".err": "failing" },
    script: (query) => {
      const error = errors.find((e) => `${e.code}.err` === query.filePath)
      return error === undefined ? { _tag: "Never" } : { _tag: "Fail", error }
    }
  }).pipe(Effect.provide(context))
  const path = Path.join(yield* tempDir, "errors.sock")
  yield* serveSocket(context, { path })
  return yield* clientOf(LspRemoteClient.socket(path))
})

describe("LspError families on the remote wire", () => {
  it("every family's error round-trips through each RPC's error schema as JSON", () => {
    for (const rpc of rpcs) {
      const schema = rpc.errorSchema
      for (const error of errors) {
        const json: unknown = JSON.parse(JSON.stringify(Schema.encodeSync(schema)(error)))
        const decoded = Schema.decodeUnknownSync(schema)(json)
        assert.deepStrictEqual(decoded, error, `${rpc._tag} ${error.code}`)
        assert.strictEqual(LspError.isLspError(decoded) && decoded._tag, error._tag)
      }
    }
  })

  it.scopedLive("a host's failure arrives as its family, so the client's catchTag splits it", () =>
    Effect.gen(function*() {
      const client = yield* served
      for (const error of errors) {
        const remote = yield* Effect.flip(client.query(request(`${error.code}.err`)))
        assert.deepStrictEqual(remote, error, error.code)
      }
      const caught = yield* Effect.forEach(
        ["LSP_TIMEOUT", "LSP_SOURCE_TOO_LARGE", "LSP_REMOTE_FORBIDDEN", "LSP_INVALID_CONFIG", "LSP_CRASH_LOOP"],
        (code) =>
          client.query(request(`${code}.err`)).pipe(
            Effect.as("answered"),
            Effect.catchTags({
              LspTimeoutError: () => Effect.succeed("timeout"),
              LspSourceError: () => Effect.succeed("source"),
              LspRemoteError: () => Effect.succeed("remote"),
              LspConfigurationError: () => Effect.succeed("configuration")
            }),
            Effect.catchAll((e) => Effect.succeed(`other ${e._tag}`))
          )
      )
      assert.deepStrictEqual(caught, ["timeout", "source", "remote", "configuration", "other LspServerError"])
    }))
})
