// The README's example, verbatim below this line: `tsc -b` type-checks it, ReadmeExample.test.ts keeps it equal.
import { NodeContext } from "@effect/platform-node"
import { LspService } from "@lsp-seam/lsp"
import { LspStdio } from "@lsp-seam/lsp-stdio"
import { Effect, Layer } from "effect"

const Lsp = LspStdio.layer({
  servers: {
    typescript: {
      command: "typescript-language-server", // a bare name is looked up on the child's PATH, at load
      args: ["--stdio"],
      extensionToLanguage: { ts: "typescript", tsx: "typescriptreact" },
      initializationOptions: { tsserver: { useSyntaxServer: "never" } }
    }
  }
}).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer))

const program = LspService.query({
  operation: "goToDefinition",
  filePath: "src/main.ts",
  position: { line: 10, character: 4 }, // zero-based, UTF-16
  workspaceRoot: process.cwd()
})

Effect.runPromise(Effect.provide(program, Lsp)).then(console.log)
