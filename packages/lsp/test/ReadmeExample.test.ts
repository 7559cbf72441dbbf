import { assert, it } from "@effect/vitest"
import { LspProvider, LspResult, LspService } from "@lsp-seam/lsp"
import { Effect, Layer } from "effect"

// The README's example, kept here so it cannot rot.
const Markdown = LspService.layerProvider(
  LspProvider.make({
    id: "markdown",
    extensionToLanguage: { md: "markdown", ".MARKDOWN": "markdown" },
    query: (q) =>
      Effect.succeed(
        q.operation === "hover"
          ? LspResult.hover({ contents: `line ${q.position.line}` })
          : LspResult.locations([], "file:///workspace")
      )
  })
)

const program = LspService.query({
  operation: "hover",
  filePath: "docs/intro.md",
  position: { line: 0, character: 0 },
  workspaceRoot: "/workspace"
})

const MainLayer = Markdown.pipe(Layer.provideMerge(LspService.layer))

it("the README example works as printed", async () => {
  const result = await Effect.runPromise(Effect.provide(program, MainLayer))
  assert.deepStrictEqual(result, { kind: "hover", hover: { contents: "line 0" } })
})
