import { assert, describe, it } from "@effect/vitest"
import { LspError, LspProvider, LspResult, LspService } from "@lsp-seam/lsp"
import { Cause, Effect, Exit, Option } from "effect"

const request = (filePath: string) => ({
  operation: "goToDefinition" as const,
  filePath,
  position: { line: 0, character: 0 },
  workspaceRoot: "/ws"
})

const answer = LspResult.locations([], "file:///ws")

describe("LspService's local face", () => {
  it.scoped("is the same registry: a local provider answers through both faces, its failure unchanged", () =>
    Effect.gen(function*() {
      const timeout = LspError.timeout("too slow")
      const local = yield* LspService.LspLocalService
      yield* local.registerProvider(LspProvider.make({
        id: "local",
        extensionToLanguage: { ts: "typescript" },
        query: (query) => query.operation === "hover" ? Effect.fail(timeout) : Effect.succeed(answer)
      }))
      assert.deepStrictEqual(yield* LspService.queryLocal(request("a.ts")), answer)
      assert.deepStrictEqual(yield* LspService.query(request("a.ts")), answer)
      const failed = yield* Effect.flip(LspService.queryLocal({ ...request("a.ts"), operation: "hover" }))
      assert.strictEqual(failed, timeout)
      // One registry: the extension is taken for the other face too.
      const conflict = yield* Effect.flip(LspService.registerProvider(LspProvider.make({
        id: "other",
        extensionToLanguage: { ts: "typescript" },
        query: () => Effect.succeed(answer)
      })))
      assert.strictEqual(conflict.code, "LSP_CONFLICT")
      // The seam's own failures are local families.
      assert.strictEqual((yield* Effect.flip(LspService.queryLocal(request("a.py")))).code, "LSP_UNAVAILABLE")
    }).pipe(Effect.provide(LspService.layerLocal)))

  it.scoped("a remote error from a provider registered through LspService fails that face and is a defect here", () =>
    Effect.gen(function*() {
      const unavailable = LspError.remoteUnavailable("the host is down")
      yield* LspService.registerProvider(LspProvider.make({
        id: "remote",
        extensionToLanguage: { ts: "typescript" },
        query: () => Effect.fail(unavailable)
      }))
      assert.strictEqual(yield* Effect.flip(LspService.query(request("a.ts"))), unavailable)
      const exit = yield* Effect.exit(LspService.queryLocal(request("a.ts")))
      assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause))
      if (Exit.isFailure(exit)) assert.strictEqual(Option.getOrUndefined(Cause.dieOption(exit.cause)), unavailable)
    }).pipe(Effect.provide(LspService.layerLocal)))
})
