/**
 * The `lsp` tool for `@effect/ai`: a `Tool`, a one-tool `Toolkit`, and the handler Layer. An agent built on
 * `@effect/ai` adds LSP navigation by merging `layer()` (plus an `LspService` provider and an `LspSession`)
 * and passing `LspToolkit` to `LanguageModel.generateText`. `McpServer.toolkit(LspToolkit)` serves the same
 * tool over MCP.
 *
 * @since 0.1.0
 */
import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import { LspError, LspService } from "@lsp-seam/lsp"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import { LspSession } from "./LspSession.js"
import * as LspToolConfig from "./LspToolConfig.js"
import * as LspToolHandler from "./LspToolHandler.js"
import * as LspToolInput from "./LspToolInput.js"
import * as LspToolOutput from "./LspToolOutput.js"

/**
 * The success schema of `LspTool`. Its type is the canonical `LspToolOutput` (what a program gets as the
 * handler result); its encoded form — what `@effect/ai` sends back to the model — is only the rendered,
 * capped text, so the uncapped result never reaches the model. One-way: text cannot be decoded back.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LspToolOutputAsText = Schema.transformOrFail(Schema.String, LspToolOutput.LspToolOutput, {
  strict: true,
  decode: (text, _options, ast) =>
    ParseResult.fail(
      new ParseResult.Forbidden(ast, text, "Rendered lsp text cannot be decoded back into the canonical result.")
    ),
  encode: (output) => ParseResult.succeed(output.text)
})

/**
 * The parameters as the toolkit decodes them: every argument of the tool's own input schema
 * (`LspToolInput.parametersFor`, so no argument is ever dropped here) accepted as is, and only `operation`
 * required, so that validation happens in the handler and a bad argument reaches the model as a coded
 * `LSP_INVALID_ARGUMENTS` result instead of a toolkit decoding failure. The JSON Schema the model sees is still
 * the strict one, `LspToolInput.jsonSchemaFor(operations)`.
 */
const parametersFor = (operations: LspToolInput.Operations) => {
  const strict = LspToolInput.parametersFor(operations).ast
  const names = SchemaAST.isTypeLiteral(strict)
    ? strict.propertySignatures.map((signature) => String(signature.name))
    : []
  return Schema.Struct(
    Object.fromEntries(
      names.map((name) => [name, name === "operation" ? Schema.Unknown : Schema.optional(Schema.Unknown)] as const)
    )
  ).annotations({ jsonSchema: LspToolInput.jsonSchemaFor(operations) })
}

/**
 * The `lsp` tool offering `operations` (its description and JSON Schema name only those). Pass the same
 * operations to `layer` (`{ operations }`), whose handler refuses the others. Failures are `LspError`s in
 * `"return"` mode; annotated read-only, non-destructive, idempotent and closed-world, as `LspTool`.
 *
 * @since 0.1.0
 * @category tools
 */
export const makeTool = (operations: LspToolInput.Operations) =>
  Tool.make(LspToolInput.name, {
    description: LspToolInput.descriptionFor(operations),
    success: LspToolOutputAsText,
    failure: LspError.LspError,
    failureMode: "return"
  })
    .setParameters(parametersFor(operations))
    .annotate(Tool.Title, "Language server navigation")
    .annotate(Tool.Readonly, true)
    .annotate(Tool.Destructive, false)
    .annotate(Tool.Idempotent, true)
    .annotate(Tool.OpenWorld, false)

/**
 * The `lsp` tool with every operation (the default configuration). Failures are `LspError`s in `"return"`
 * mode: the handler's coded error becomes the tool result the model reads (`{ _tag, code, message }`, `_tag` the
 * code's family such as `"LspTimeoutError"`, marked as a failure) instead of failing the whole generation. Annotated read-only, non-destructive,
 * idempotent and closed-world.
 *
 * @since 0.1.0
 * @category tools
 */
export const LspTool = makeTool(LspToolConfig.allOperations)

/**
 * A toolkit with the one `lsp` tool.
 *
 * @since 0.1.0
 * @category tools
 */
export const LspToolkit = Toolkit.make(LspTool)

/**
 * A toolkit with the one `lsp` tool offering `operations`; `layer({ operations })` handles it (handlers are
 * found by tool name, so the Layer serves `LspToolkit` and this one alike).
 *
 * @since 0.1.0
 * @category tools
 */
export const makeToolkit = (operations: LspToolInput.Operations): typeof LspToolkit =>
  Toolkit.make(makeTool(operations))

/**
 * The handler Layer. It captures the `LspService` and the `LspSession` when built, so build one per session
 * (or per working directory). Fails to build with `LSP_INVALID_CONFIG` on an invalid configuration.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  config?: LspToolConfig.LspToolConfigInput
): Layer.Layer<Tool.Handler<"lsp">, LspError.LspConfigurationError, LspService.LspService | LspSession> =>
  LspToolkit.toLayer(Effect.gen(function*() {
    const resolved = yield* LspToolConfig.make(config)
    const context = Context.pick(LspService.LspService, LspSession)(
      yield* Effect.context<LspService.LspService | LspSession>()
    )
    return LspToolkit.of({
      lsp: (params) => LspToolHandler.runUnknown(params, resolved).pipe(Effect.provide(context))
    })
  }))
