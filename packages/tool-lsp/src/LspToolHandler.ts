/**
 * One `lsp` call, independent of any agent framework: validate the arguments, take the workspace from the
 * session, run the seam query within the time budget, render. The adapters (`LspAiTool`, `LspClient`) are
 * thin wrappers around `runUnknown`.
 *
 * @since 0.1.0
 */
import { LspError, type LspQuery, type LspResult, LspService } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Budget from "./internal/budget.js"
import { LspSession } from "./LspSession.js"
import * as LspToolConfig from "./LspToolConfig.js"
import * as LspToolInput from "./LspToolInput.js"
import * as LspToolOutput from "./LspToolOutput.js"
import * as LspToolRender from "./LspToolRender.js"

const workspaceRequired = () =>
  LspError.workspaceRequired(
    "The lsp tool needs a workspace, but this session has no working directory. Use search/read instead, " +
      "or run the session inside a project directory."
  )

const timedOut = (timeoutMs: number) =>
  LspError.timeout(
    `The language server did not answer within ${timeoutMs} ms, so the query was cancelled. The server may ` +
      "still be starting or indexing: retry later, or use search/read instead.",
    { timeoutMs }
  )

/**
 * Runs the seam query for a request within `timeoutMs`. When the budget elapses the query is interrupted
 * (the interruption reaches the provider before this fails) and the call fails with `LSP_TIMEOUT`.
 *
 * @since 0.1.0
 * @category execution
 */
export const budgetedQuery = (
  request: LspQuery.LspQueryRequest,
  timeoutMs: number
): Effect.Effect<LspResult.LspQueryResult, LspError.LspError, LspService.LspService> =>
  // Providers see the deadline, so they can answer within it rather than be cut off.
  Budget.within(LspService.query(request), timeoutMs, () => timedOut(timeoutMs))

/**
 * Handles one call with untrusted arguments (a model's, another process's), offering `config.operations`.
 * Argument errors (`LSP_INVALID_ARGUMENTS`, including an operation not offered) come first,
 * then a missing workspace (`LSP_WORKSPACE_REQUIRED`), both before any query; seam and provider errors pass
 * through unchanged; an exhausted budget is `LSP_TIMEOUT`. The MCP and `@effect/ai` adapters call this.
 *
 * @since 0.1.0
 * @category execution
 */
export const runUnknown = (
  args: unknown,
  config: LspToolConfig.LspToolConfig = LspToolConfig.defaults
): Effect.Effect<LspToolOutput.LspToolOutput, LspError.LspError, LspService.LspService | LspSession> =>
  Effect.gen(function*() {
    const input = yield* LspToolInput.validate(args, config.operations)
    yield* Effect.annotateCurrentSpan({ operation: input.operation, filePath: input.file_path ?? "" })
    const session = yield* LspSession
    const workspaceRoot = yield* Option.match(session.workingDirectory, {
      onNone: () => Effect.fail(workspaceRequired()),
      onSome: Effect.succeed
    })
    const result = yield* budgetedQuery(LspToolInput.toQueryRequest(input, workspaceRoot), config.timeoutMs)
    return LspToolOutput.make(result, LspToolRender.render(result, config, input))
  }).pipe(
    // A span per call, without capturing a stack trace (Effect.fn captures one on every call, which costs
    // more than the rest of the span).
    Effect.withSpan("LspToolHandler.run", { captureStackTrace: false })
  )

/**
 * Handles one call with arguments typed by the tool's input, so a misspelt operation or a wrong argument fails
 * to compile. The values are still checked as `runUnknown` checks them (an operation `config` does not offer,
 * a blank `file_path`, a `line` below 1 fail with `LSP_INVALID_ARGUMENTS`), with the same errors after.
 *
 * @since 0.1.0
 * @category execution
 */
export const run: (
  input: LspToolInput.LspToolInputEncoded,
  config?: LspToolConfig.LspToolConfig
) => Effect.Effect<LspToolOutput.LspToolOutput, LspError.LspError, LspService.LspService | LspSession> = runUnknown
