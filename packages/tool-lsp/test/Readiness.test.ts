import { assert, describe, it } from "@effect/vitest"
import { LspDeadline, LspProvider, LspResult, LspService } from "@lsp-seam/lsp"
import { Effect, Option, TestClock } from "effect"
import * as LspSession from "../src/LspSession.js"
import * as LspToolConfig from "../src/LspToolConfig.js"
import * as LspToolHandler from "../src/LspToolHandler.js"
import * as LspToolRender from "../src/LspToolRender.js"

const args = { operation: "hover", file_path: "a.ts", line: 1, character: 1 } as const

// A provider that answers with the milliseconds its deadline leaves it ("none" without one).
const registerDeadlineReader = LspService.registerProvider(LspProvider.make({
  id: "deadline-reader",
  extensionToLanguage: { ts: "typescript" },
  query: () =>
    Effect.map(
      LspDeadline.remaining,
      (left) => LspResult.hover({ contents: Option.match(left, { onNone: () => "none", onSome: String }) })
    )
}))

describe("the tool and a provider that is still starting up", () => {
  it.scoped("the provider sees the tool's deadline, measured on the Effect clock", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust("1 hour")
      yield* registerDeadlineReader
      const config = yield* LspToolConfig.make({ timeoutMs: 7_000 })
      const output = yield* LspToolHandler.run(args, config).pipe(Effect.provide(LspSession.layer("/ws")))
      assert.strictEqual(output.text, "7000")
      // Outside a budgeted call there is no deadline.
      assert.isTrue(Option.isNone(yield* LspDeadline.remaining))
    }).pipe(Effect.provide(LspService.layer)))

  it.scopedLive("on the live clock too, where the budget sets it on the query's own fiber; an earlier one is kept", () =>
    Effect.gen(function*() {
      yield* registerDeadlineReader
      const run = (timeoutMs: number) =>
        Effect.flatMap(LspToolConfig.make({ timeoutMs }), (config) => LspToolHandler.run(args, config)).pipe(
          Effect.provide(LspSession.layer("/ws"))
        )
      const left = Number((yield* run(7_000)).text)
      assert.isTrue(left > 6_000 && left <= 7_000, String(left))
      assert.isTrue(Option.isNone(yield* LspDeadline.remaining))
      const earlier = Number((yield* run(7_000).pipe(LspDeadline.within(3_000))).text)
      assert.isTrue(earlier > 2_000 && earlier <= 3_000, String(earlier))
    }).pipe(Effect.provide(LspService.layer)))

  it("an incomplete answer opens with a note the model can act on, kept even when the text is capped", () => {
    const result = LspResult.markIncomplete(LspResult.locations([], "file:///ws"))
    const text = LspToolRender.render(result, { maxLocations: 100, maxResultChars: 16_000 })
    assert.strictEqual(text, `${LspToolRender.incompleteNote}\nNo results.`)
    const long = LspResult.markIncomplete(LspResult.hover({ contents: "x".repeat(20_000) }))
    const capped = LspToolRender.render(long, { maxLocations: 100, maxResultChars: 1_000 })
    assert.strictEqual(capped.length, 1_000)
    assert.isTrue(capped.startsWith(LspToolRender.incompleteNote))
    // A complete answer has no note.
    assert.strictEqual(
      LspToolRender.render(LspResult.hover(null), { maxLocations: 100, maxResultChars: 16_000 }),
      "No hover information."
    )
  })

  it("hover text loses the blank lines servers wrap around it, and nothing else", () => {
    const render = (contents: string) =>
      LspToolRender.render(LspResult.hover({ contents }), { maxLocations: 100, maxResultChars: 16_000 })
    assert.strictEqual(render("\n```typescript\nconst x: number\n```\n"), "```typescript\nconst x: number\n```")
    assert.strictEqual(render("  indented\n\nsecond  "), "  indented\n\nsecond  ")
  })
})
