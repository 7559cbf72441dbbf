import { assert, describe, it } from "@effect/vitest"
import type { LspQuery } from "@lsp-seam/lsp"
import { LspProvider, LspResult, LspService } from "@lsp-seam/lsp"
import { Effect, Either, Schema } from "effect"

const empty = LspResult.locations([], "file:///w")
const noProject: LspResult.IncompleteReason = {
  reason: "no-project",
  message: "No tsconfig.json: references in other files may be missing. Add one to the workspace."
}

describe("LspResult.markIncomplete", () => {
  it("without a reason, marks the answer incomplete because of readiness, as before", () => {
    assert.deepStrictEqual(LspResult.markIncomplete(empty), {
      ...empty,
      incomplete: true,
      incompleteReasons: [{ reason: "readiness", message: LspResult.readinessMessage }]
    })
  })

  it("appends a given reason, once per kind", () => {
    const both = LspResult.markIncomplete(LspResult.markIncomplete(empty), noProject)
    assert.strictEqual(both.incomplete, true)
    assert.deepStrictEqual(both.incompleteReasons, [LspResult.readiness, noProject])
    assert.deepStrictEqual(LspResult.markIncomplete(both, { ...noProject, message: "again" }), both)
    assert.deepStrictEqual(LspResult.markIncomplete(LspResult.hover(null), noProject).incompleteReasons, [noProject])
  })

  it("reads the reasons of results that only say incomplete: true", () => {
    assert.deepStrictEqual(LspResult.incompleteReasonsOf({ ...empty, incomplete: true }), [LspResult.readiness])
    assert.deepStrictEqual(LspResult.incompleteReasonsOf(empty), [])
    assert.deepStrictEqual(LspResult.incompleteReasonsOf(LspResult.markIncomplete(empty, noProject)), [noProject])
  })
})

describe("LspResult annotations", () => {
  const resolved: LspResult.Resolved = {
    symbol: "add",
    position: { line: 0, character: 16 },
    requested: { line: 0, character: 0 },
    occurrences: 2
  }
  const off: LspResult.OffIdentifier = { line: 2, character: 4, identifiers: [{ name: "add", character: 16 }] }

  it("are optional and additive: old results still validate, new fields survive validation", () => {
    const validate = Schema.validateEither(LspResult.LspQueryResult)
    assert.deepStrictEqual(validate(empty), Either.right(empty))
    const annotated = LspResult.withOffIdentifier(
      LspResult.withResolved(LspResult.markIncomplete(empty, noProject), resolved),
      off
    )
    assert.deepStrictEqual(validate(annotated), Either.right(annotated))
    assert.isTrue(Either.isLeft(validate({ ...empty, incompleteReasons: [{ reason: "other", message: "" }] })))
    assert.isTrue(Either.isLeft(validate({ ...empty, resolved: { ...resolved, occurrences: 0 } })))
  })

  it("isEmpty: no locations, a null hover or blank hover contents", () => {
    assert.isTrue(LspResult.isEmpty(empty))
    assert.isTrue(LspResult.isEmpty(LspResult.hover(null)))
    assert.isTrue(LspResult.isEmpty(LspResult.hover({ contents: " \n" })))
    assert.isFalse(LspResult.isEmpty(LspResult.hover({ contents: "x" })))
    assert.isFalse(
      LspResult.isEmpty(
        LspResult.locations([{ uri: "file:///w/a", range: { start: off, end: off } }], "file:///w")
      )
    )
  })

  it.scoped("travel through LspService to the caller, and the request's symbol reaches the provider", () =>
    Effect.gen(function*() {
      const seen: Array<LspQuery.LspProviderQuery> = []
      yield* LspService.registerProvider(LspProvider.make({
        id: "p",
        extensionToLanguage: { ts: "typescript" },
        query: (q) => {
          seen.push(q)
          return Effect.succeed(LspResult.withResolved(LspResult.hover({ contents: "x" }), resolved))
        }
      }))
      const request = {
        operation: "hover" as const,
        filePath: "a.ts",
        position: { line: 0, character: 0 },
        workspaceRoot: "/w",
        symbol: "add"
      }
      const result = yield* LspService.query(request)
      assert.deepStrictEqual(result.resolved, resolved)
      const asked = seen[0]
      assert.strictEqual(asked !== undefined && "symbol" in asked ? asked.symbol : undefined, "add")
      const refused = yield* Effect.flip(LspService.query({ ...request, symbol: "" }))
      assert.strictEqual(refused.code, "LSP_INVALID_ARGUMENTS")
    }).pipe(Effect.provide(LspService.layer)))
})
