/**
 * The `lsp` tool on an `@effect/ai` `McpServer`, with MCP-native results: the rendered text as plain text
 * content, and a coded failure as `isError: true` with `error[CODE]: message`. The tool definition (name,
 * description, input JSON Schema, annotations) is `LspAiTool.LspTool`'s.
 *
 * `McpServer.toolkit(LspAiTool.LspToolkit)` with `LspAiTool.layer()` also works, but `@effect/ai` then
 * sends each result as JSON (`"a.ts:1:1\nb.ts:2:2"` quoted and escaped) and, because the tool returns its
 * failures as results, reports them with `isError: false`. This module avoids both.
 *
 * The canonical result is deliberately not sent as `structuredContent`: some clients hand structured
 * content to the model, and it is never capped.
 *
 * @since 0.1.0
 */
import * as McpSchema from "@effect/ai/McpSchema"
import * as McpServer from "@effect/ai/McpServer"
import * as Tool from "@effect/ai/Tool"
import { type LspError, LspService } from "@lsp-seam/lsp"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { LspTool, makeTool } from "./LspAiTool.js"
import { LspSession } from "./LspSession.js"
import * as LspToolConfig from "./LspToolConfig.js"
import * as LspToolHandler from "./LspToolHandler.js"
import type * as LspToolInput from "./LspToolInput.js"

/**
 * The MCP tool definition for a tool offering `operations`, derived from `LspAiTool.makeTool(operations)`.
 *
 * @since 0.1.0
 * @category tools
 */
export const toolFor = (operations: LspToolInput.Operations): McpSchema.Tool => {
  const lsp = operations === LspToolConfig.allOperations ? LspTool : makeTool(operations)
  return new McpSchema.Tool({
    name: lsp.name,
    description: Tool.getDescription(lsp),
    inputSchema: Tool.getJsonSchema(lsp),
    annotations: new McpSchema.ToolAnnotations({
      ...Option.match(Context.getOption(lsp.annotations, Tool.Title), {
        onNone: () => ({}),
        onSome: (title) => ({ title })
      }),
      readOnlyHint: Context.get(lsp.annotations, Tool.Readonly),
      destructiveHint: Context.get(lsp.annotations, Tool.Destructive),
      idempotentHint: Context.get(lsp.annotations, Tool.Idempotent),
      openWorldHint: Context.get(lsp.annotations, Tool.OpenWorld)
    })
  })
}

/**
 * The MCP tool definition, derived from `LspAiTool.LspTool` (every operation).
 *
 * @since 0.1.0
 * @category tools
 */
export const tool: McpSchema.Tool = toolFor(LspToolConfig.allOperations)

/**
 * The MCP result for a failure: `error[CODE]: message`, flagged as an error.
 *
 * @since 0.1.0
 * @category rendering
 */
export const errorResult = (error: LspError.LspError): McpSchema.CallToolResult =>
  new McpSchema.CallToolResult({
    isError: true,
    content: [{ type: "text", text: `error[${error.code}]: ${error.message}` }]
  })

/**
 * The MCP result for a success: the rendered text.
 *
 * @since 0.1.0
 * @category rendering
 */
export const textResult = (text: string): McpSchema.CallToolResult =>
  new McpSchema.CallToolResult({ isError: false, content: [{ type: "text", text }] })

/**
 * Adds the `lsp` tool offering `config.operations` (default: all) to the `McpServer` in context. The `LspService` and `LspSession` are captured now;
 * a cancelled MCP request interrupts the query down to the provider.
 *
 * @since 0.1.0
 * @category constructors
 */
export const addTool = (
  config?: LspToolConfig.LspToolConfigInput
): Effect.Effect<void, LspError.LspConfigurationError, McpServer.McpServer | LspService.LspService | LspSession> =>
  Effect.gen(function*() {
    const server = yield* McpServer.McpServer
    const resolved = yield* LspToolConfig.make(config)
    const context = Context.pick(LspService.LspService, LspSession)(
      yield* Effect.context<LspService.LspService | LspSession>()
    )
    yield* server.addTool({
      tool: resolved.operations === LspToolConfig.defaults.operations ? tool : toolFor(resolved.operations),
      handle: (payload: unknown) =>
        LspToolHandler.runUnknown(payload, resolved).pipe(
          Effect.provide(context),
          Effect.match({ onFailure: errorResult, onSuccess: (output) => textResult(output.text) })
        )
    })
  })

/**
 * `addTool` as a Layer, providing `McpServer.layer` (shared with `McpServer.layerStdio`/`layerHttp` in the
 * same build). For the CLI:
 * `LspMcp.layer().pipe(Layer.provide(McpServer.layerStdio(...)), Layer.provide(provider), Layer.provide(session))`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  config?: LspToolConfig.LspToolConfigInput
): Layer.Layer<never, LspError.LspConfigurationError, LspService.LspService | LspSession> =>
  Layer.effectDiscard(addTool(config)).pipe(Layer.provide(McpServer.McpServer.layer))
