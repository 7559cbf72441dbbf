/**
 * Deadlines give partial answers, not nothing (DESIGN §9), against real tsserver on a generated monorepo of 80
 * projects: a cross-project question whose caller's budget ends before the server has loaded them answers at the
 * deadline with what the projects the server held gave, flagged `deadline` with the projects still loading; those
 * go on loading, and the same question asked again is complete. A second question asked while they load is
 * served within its own budget (the projects are opened a few at a time, so the server's queue never holds more
 * than one batch of them), flagged the same way, and a later one is complete.
 */
import { assert, describe, it } from "@effect/vitest"
import { LspDeadline, LspResult, LspService } from "@lsp-seam/lsp"
import { Effect, Either } from "effect"
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

  it.live(
    "a second question asked while the projects still load answers by its own deadline, flagged; a later one is complete",
    () =>
      Effect.gen(function*() {
        // Large enough that loading every project takes clearly longer than both budgets together.
        const repo = Generated.make({ projects: 80, filesPerProject: 80 })
        const first = repo.makeWidget
        // Another file and symbol: `Widget` in the import of the last user package's first file.
        const second = { filePath: "packages/p79/src/part0.ts", line: 0, character: 21 }
        const references = (at: typeof first, budgetMs: number) =>
          LspService.query({
            operation: "findReferences",
            filePath: at.filePath,
            position: { line: at.line, character: at.character },
            workspaceRoot: repo.root
          }).pipe(LspDeadline.within(budgetMs), Effect.timeout(budgetMs), Effect.either)
        const files = (result: LspResult.LspQueryResult) =>
          result.kind === "locations"
            ? [...new Set(result.locations.map((l) => Scratch.relative(repo.root, l.uri)))].sort()
            : []
        const answered = (either: Either.Either<LspResult.LspQueryResult, unknown>) => {
          if (Either.isLeft(either)) assert.fail(`no answer: ${JSON.stringify(either.left)}`)
          return either.right
        }
        yield* LspService.query({
          operation: "hover",
          filePath: first.filePath,
          position: first,
          workspaceRoot: repo.root
        })

        const early = answered(yield* references(first, 2_000))
        assert.deepStrictEqual(LspResult.incompleteReasonsOf(early).map((reason) => reason.reason), ["deadline"])

        // Asked at once, while the server is still loading the projects the first question opened.
        const meanwhile = answered(yield* references(second, 5_000))
        const reasons = LspResult.incompleteReasonsOf(meanwhile)
        assert.deepStrictEqual(reasons.map((reason) => reason.reason), ["deadline"])
        assert.match(reasons[0]!.message, /packages\/p\d\d\/tsconfig\.json/)
        assert.include(files(meanwhile), second.filePath)
        assert.isBelow(files(meanwhile).length, 1 + 80 * 80)

        const complete = answered(yield* references(second, 120_000))
        assert.deepStrictEqual(LspResult.incompleteReasonsOf(complete), [])
        assert.strictEqual(files(complete).length, 1 + 80 * 80)
        repo.remove()
      }).pipe(Effect.provide(hostLayer)),
    240_000
  )
})
