/**
 * Deadlines give partial answers, not nothing (DESIGN §9), against real tsserver on a generated monorepo of 80
 * projects: a cross-project question whose caller's budget ends before the server has loaded them answers at the
 * deadline with what the projects the server held gave, flagged `deadline` with the projects still loading; those
 * go on loading, and the same question asked again is complete.
 */
import { assert, describe, it } from "@effect/vitest"
import { LspDeadline, LspResult, LspService } from "@lsp-seam/lsp"
import { Effect } from "effect"
import * as Generated from "./support/generatedMonorepo.js"
import * as Scratch from "./support/scratchRepository.js"
import * as TypeScriptHost from "./support/typescriptHost.js"

const hostLayer = TypeScriptHost.layer(100)

describe("answers at the deadline", () => {
  it.live(
    "a cross-project question answers at its deadline, flagged; asked again it is complete",
    () =>
      Effect.gen(function*() {
        const repo = Generated.make({ projects: 80, filesPerProject: 20 })
        const { filePath, ...position } = repo.makeWidget
        const references = (budgetMs: number) =>
          LspService.query({ operation: "findReferences", filePath, position, workspaceRoot: repo.root }).pipe(
            // As the tool does: the deadline published, and the query cut off when it comes.
            LspDeadline.within(budgetMs),
            Effect.timeout(budgetMs)
          )
        const files = (result: LspResult.LspQueryResult) =>
          result.kind === "locations"
            ? [...new Set(result.locations.map((l) => Scratch.relative(repo.root, l.uri)))].sort()
            : []
        // The server started and the asked file's own project loaded, as after any earlier question.
        yield* LspService.query({ operation: "hover", filePath, position, workspaceRoot: repo.root })

        const early = yield* references(2_000)
        const reasons = LspResult.incompleteReasonsOf(early)
        assert.deepStrictEqual(reasons.map((reason) => reason.reason), ["deadline"])
        assert.include(reasons[0]!.message, "packages/p00/tsconfig.json")
        assert.deepStrictEqual(files(early), [filePath])

        const complete = yield* references(120_000)
        assert.deepStrictEqual(LspResult.incompleteReasonsOf(complete), [])
        assert.strictEqual(files(complete).length, 1 + 80 * 20)
        repo.remove()
      }).pipe(Effect.provide(hostLayer)),
    240_000
  )
})
