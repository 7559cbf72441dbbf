// #region agent
import { LanguageModel } from "@effect/ai"
import { LspSeam } from "@lsp-seam/setup"
import { LspAiTool, LspToolPrompt } from "@lsp-seam/tool-lsp"
import { Effect } from "effect"

const LspLive = LspSeam.layerTool({ workingDirectory: process.cwd(), tool: { timeoutMs: 30_000 } })

const answer = LanguageModel.generateText({
  prompt: "Who calls parseConfig, and what does it return?",
  toolkit: LspAiTool.LspToolkit
}).pipe(Effect.provide(LspLive)) // plus your model provider's Layer
// #endregion

// A root README example, verbatim in the region (README.test.ts compares): type-checked, never run.
void [answer, LspToolPrompt]
