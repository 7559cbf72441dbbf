import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as Tool from "@effect/ai/Tool"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { LspResult, LspService } from "@lsp-seam/lsp"
import { LspStdio } from "@lsp-seam/lsp-stdio"
import * as Testing from "@lsp-seam/lsp/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as NodeFs from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as LspAiTool from "../src/LspAiTool.js"
import * as LspSession from "../src/LspSession.js"
import * as LspToolInput from "../src/LspToolInput.js"

/** One scripted turn: what the model answers, given the prompt so far. */
type Turn = (prompt: Prompt.Prompt) => Array<Response.PartEncoded>

interface Transcript {
  /** The prompt of every turn, and the tools offered in it, as the provider received them. */
  readonly turns: Array<{ readonly prompt: Prompt.Prompt; readonly tools: ReadonlyArray<Tool.Any> }>
}

class Recorded extends Context.Tag("test/Recorded")<Recorded, Transcript>() {}

/** A `LanguageModel` that answers from a script instead of a provider: tool calls, then text. */
const scriptedModel = (script: ReadonlyArray<Turn>) =>
  Layer.effectContext(Effect.gen(function*() {
    const transcript: Transcript = { turns: [] }
    const model = yield* LanguageModel.make({
      generateText: (options) =>
        Effect.sync(() => {
          const turn = script[transcript.turns.length]
          transcript.turns.push({ prompt: options.prompt, tools: options.tools })
          return turn === undefined ? [{ type: "text", text: "(script ended)" }] : turn(options.prompt)
        }),
      streamText: () => Stream.die("the scripted model does not stream")
    })
    return Context.make(LanguageModel.LanguageModel, model).pipe(Context.add(Recorded, transcript))
  }))

const toolCall = (id: string, params: Record<string, unknown>): Response.PartEncoded => ({
  type: "tool-call",
  id,
  name: "lsp",
  params
})

/** The tool results the model reads in its prompt, by call id. */
const toolResultsIn = (prompt: Prompt.Prompt): Map<string, unknown> => {
  const results = new Map<string, unknown>()
  for (const message of prompt.content) {
    if (message.role !== "tool") continue
    for (const part of message.content) results.set(part.id, part.result)
  }
  return results
}

/**
 * The agent loop a harness runs: generate, append the response (tool calls and their results) to the prompt,
 * until the model answers with text only. Returns every tool result part, in order.
 */
const converse = (question: string) =>
  Effect.gen(function*() {
    let prompt = Prompt.make(question)
    const toolResults: Array<Response.ToolResultPart<"lsp", unknown, unknown>> = []
    for (let turn = 0; turn < 5; turn++) {
      const response = yield* LanguageModel.generateText({ prompt, toolkit: LspAiTool.LspToolkit })
      prompt = Prompt.merge(prompt, Prompt.fromResponseParts(response.content))
      toolResults.push(...response.toolResults)
      if (response.toolCalls.length === 0) return { text: response.text, toolResults, prompt }
    }
    return assert.fail("the scripted model never stopped calling tools")
  })

/** documentSymbol on m.ts, then incomingCalls on the first function it listed, then a text answer. */
const script: ReadonlyArray<Turn> = [
  () => [toolCall("call-1", { operation: "documentSymbol", file_path: "m.ts" })],
  (prompt) => {
    // The model reads the outline and points at the first function it lists.
    const outline = String(toolResultsIn(prompt).get("call-1"))
    const [, line, character] = /^m\.ts:(\d+):(\d+) {2}Function {2}add$/m.exec(outline) ?? []
    return [
      toolCall("call-2", {
        operation: "incomingCalls",
        file_path: "m.ts",
        line: Number(line),
        character: Number(character)
      })
    ]
  },
  (prompt) => [{ type: "text", text: `add is called by:\n${String(toolResultsIn(prompt).get("call-2"))}` }]
]

const assertToolResultsAreTheRenderedText = (
  outcome: Effect.Effect.Success<ReturnType<typeof converse>>,
  transcript: Transcript
) => {
  assert.deepStrictEqual(outcome.toolResults.map((part) => part.isFailure), [false, false])
  const seen = toolResultsIn(transcript.turns[2]!.prompt)
  for (const part of outcome.toolResults) {
    const output = part.result as { readonly text: string }
    // The handler's result keeps the canonical value; what reaches the model is exactly its rendered text.
    assert.strictEqual(part.encodedResult, output.text)
    assert.strictEqual(seen.get(part.id), output.text)
  }
  // Every turn offered the one lsp tool, with the generated schema and description.
  for (const turn of transcript.turns) {
    assert.deepStrictEqual(turn.tools.map((tool) => tool.name), ["lsp"])
    const offered = turn.tools[0] as unknown as typeof LspAiTool.LspTool
    assert.deepStrictEqual(Tool.getJsonSchema(offered), LspToolInput.jsonSchema)
    assert.strictEqual(Tool.getDescription(offered), LspToolInput.description)
  }
}

const fakeWorkspace = "file:///w"

const range = (line: number, character: number, length: number) => ({
  start: { line, character },
  end: { line, character: character + length }
})

const fakeSymbols = LspResult.symbols([
  {
    name: "add",
    kind: "Function",
    uri: `${fakeWorkspace}/m.ts`,
    range: range(0, 0, 60),
    selectionRange: range(0, 16, 3),
    depth: 0
  },
  {
    name: "main",
    kind: "Function",
    uri: `${fakeWorkspace}/m.ts`,
    range: range(17, 0, 60),
    selectionRange: range(17, 16, 4),
    depth: 0
  }
], fakeWorkspace)

const addItem = {
  name: "add",
  kind: "Function",
  uri: `${fakeWorkspace}/m.ts`,
  range: range(0, 0, 60),
  selectionRange: range(0, 16, 3)
} as const

const fakeCalls = LspResult.calls("incoming", [addItem], [{
  name: "main",
  kind: "Function",
  uri: `${fakeWorkspace}/m.ts`,
  range: range(17, 0, 60),
  selectionRange: range(17, 16, 4),
  fromUri: `${fakeWorkspace}/m.ts`,
  fromRanges: [range(18, 9, 3)]
}], fakeWorkspace)

class FakeProvider extends Context.Tag("test/FakeProvider")<FakeProvider, Testing.FakeProvider>() {}

describe("a scripted LanguageModel drives generateText with LspToolkit", () => {
  it.scoped("through documentSymbol and incomingCalls on a fake provider", () =>
    Effect.gen(function*() {
      const outcome = yield* converse("Who calls add?")
      const transcript = yield* Recorded
      assert.strictEqual(transcript.turns.length, 3)
      assertToolResultsAreTheRenderedText(outcome, transcript)
      assert.deepStrictEqual(outcome.toolResults.map((part) => part.encodedResult), [
        "m.ts:1:17  Function  add\nm.ts:18:17  Function  main",
        "Calls to add (Function) at m.ts:1:17:\nmain  m.ts:18:17\n  m.ts:19:10"
      ])
      assert.strictEqual(
        outcome.text,
        "add is called by:\nCalls to add (Function) at m.ts:1:17:\nmain  m.ts:18:17\n  m.ts:19:10"
      )
      const queries = yield* (yield* FakeProvider).queries
      assert.deepStrictEqual(queries.map((query) => query.operation), ["documentSymbol", "incomingCalls"])
      assert.deepStrictEqual(queries[1], {
        operation: "incomingCalls",
        filePath: "m.ts",
        position: { line: 0, character: 16 },
        workspaceRoot: "/w",
        languageId: "typescript"
      })
    }).pipe(
      Effect.provide(
        Layer.mergeAll(scriptedModel(script), LspAiTool.layer()).pipe(
          Layer.provideMerge(
            Layer.mergeAll(
              Layer.scoped(
                FakeProvider,
                Testing.registerFakeProvider({
                  id: "ts",
                  extensionToLanguage: { ts: "typescript" },
                  script: [Testing.succeed(fakeSymbols), Testing.succeed(fakeCalls)]
                })
              ),
              LspSession.layer("/w")
            ).pipe(Layer.provideMerge(LspService.layer))
          )
        )
      )
    ))
})

// The real thing: typescript-language-server through the stdio host, on a fixture project.
const workspace = NodeFs.realpathSync(fileURLToPath(new URL("./fixtures/calls-workspace", import.meta.url)))
const server = createRequire(import.meta.url).resolve("typescript-language-server/lib/cli.mjs")

const typescriptHost = LspStdio.layer({
  servers: {
    typescript: {
      command: process.execPath,
      args: [server, "--stdio"],
      extensionToLanguage: { ts: "typescript" },
      initializationOptions: {
        tsserver: { useSyntaxServer: "never" },
        disableAutomaticTypingAcquisition: true,
        preferences: { includePackageJsonAutoImports: "off" }
      }
    }
  }
}).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer))

describe("a scripted LanguageModel drives generateText with LspToolkit on typescript-language-server", () => {
  it.scopedLive("through documentSymbol and incomingCalls, reading the rendered text", () =>
    Effect.gen(function*() {
      const outcome = yield* converse("Who calls add?")
      const transcript = yield* Recorded
      assertToolResultsAreTheRenderedText(outcome, transcript)
      const [outline, calls] = outcome.toolResults.map((part) => part.encodedResult)
      assert.strictEqual(
        outline,
        [
          "m.ts:1:17  Function  add",
          "m.ts:5:17  Function  twice",
          "m.ts:9:14  Class  Counter",
          "  m.ts:10:3  Property  Counter.total",
          "  m.ts:12:3  Method  Counter.bump",
          "m.ts:18:17  Function  main"
        ].join("\n")
      )
      assert.strictEqual(
        calls,
        [
          "Calls to add (Function) at m.ts:1:17:",
          "twice  m.ts:5:17",
          "  m.ts:6:10",
          "bump  m.ts:12:3",
          "  m.ts:13:18",
          "main  m.ts:18:17",
          "  m.ts:19:10"
        ].join("\n")
      )
      const canonical = outcome.toolResults[1]!.result as { readonly result: LspResult.LspQueryResult }
      assert.strictEqual(canonical.result.kind, "calls")
      assert.isTrue(
        canonical.result.kind === "calls" && canonical.result.resolvedWorkspaceUri === pathToFileURL(workspace).href
      )
    }).pipe(
      Effect.provide(
        Layer.mergeAll(scriptedModel(script), LspAiTool.layer()).pipe(
          Layer.provideMerge(Layer.mergeAll(typescriptHost, LspSession.layer(workspace)))
        )
      )
    ), { timeout: 120_000 })
})
