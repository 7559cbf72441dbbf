/**
 * The agent session the tool runs in, as the harness provides it. The tool takes its workspace root from
 * the session's working directory and has no fallback: without one, queries fail with
 * `LSP_WORKSPACE_REQUIRED`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/**
 * @since 0.1.0
 * @category models
 */
export interface LspSessionShape {
  /** The session's working directory, used as the workspace root of every query. */
  readonly workingDirectory: Option.Option<string>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class LspSession extends Context.Tag("@lsp-seam/tool-lsp/LspSession")<LspSession, LspSessionShape>() {}

/**
 * A session; a missing or blank working directory means none.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (workingDirectory?: string | undefined): LspSessionShape => ({
  workingDirectory: Option.fromNullable(workingDirectory).pipe(Option.filter((dir) => dir.trim() !== ""))
})

/**
 * A session working in `workingDirectory`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (workingDirectory: string): Layer.Layer<LspSession> =>
  Layer.succeed(LspSession, make(workingDirectory))

/**
 * A session without a working directory: every query fails with `LSP_WORKSPACE_REQUIRED`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWithoutWorkspace: Layer.Layer<LspSession> = Layer.succeed(LspSession, make())
