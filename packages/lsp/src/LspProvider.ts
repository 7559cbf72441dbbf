/**
 * A provider answers seam queries for the file extensions it registers. The stdio host is one kind of
 * provider; a remote host or a test double is another. Providers meet callers only through `LspService`.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { LspError } from "./LspError.js"
import type { LspProviderQuery } from "./LspQuery.js"
import type { LspQueryResult } from "./LspResult.js"

/**
 * A provider's id. Not trimmed: `"ts"` and `" ts"` are different ids, and a blank id is refused at
 * registration.
 *
 * @since 0.1.0
 * @category models
 */
export const LspProviderId = Schema.String.pipe(Schema.brand("@lsp-seam/lsp/LspProviderId"))

/**
 * @since 0.1.0
 * @category models
 */
export type LspProviderId = typeof LspProviderId.Type

/**
 * A provider whose queries fail with `E`: every `LspError` family by default; a provider on this machine (the stdio
 * host) is an `LspProvider<LspError.LspLocalError>`, since only a remote host's client raises `LspRemoteError`.
 *
 * @since 0.1.0
 * @category models
 */
export interface LspProvider<out E extends LspError = LspError> {
  /** Unique among registered providers. */
  readonly id: LspProviderId
  /**
   * Extension → LSP language id, for example `{ ".ts": "typescript", "tsx": "typescriptreact" }`. Keys are
   * lower-cased and get a leading dot if missing; each extension can belong to one provider only.
   */
  readonly extensionToLanguage: Readonly<Record<string, string>>
  /** Answers one query. Failures are `LspError`s and reach the caller unchanged. */
  readonly query: (query: LspProviderQuery) => Effect.Effect<LspQueryResult, E>
  /**
   * Optional: the files the workspace's test runners collect by their own configuration (for example pytest's
   * `testpaths` and `python_files`), as a test of a path relative to `workspaceRoot` (slash-separated). `impact`
   * counts them as test code besides the usual conventions. Never fails: a configuration that cannot be read
   * names no files.
   *
   * @since 0.1.0
   */
  readonly testFiles?: ((workspaceRoot: string) => Effect.Effect<(relativePath: string) => boolean>) | undefined
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = <E extends LspError = LspError>(provider: {
  readonly id: string
  readonly extensionToLanguage: Readonly<Record<string, string>>
  readonly query: (query: LspProviderQuery) => Effect.Effect<LspQueryResult, E>
  readonly testFiles?: ((workspaceRoot: string) => Effect.Effect<(relativePath: string) => boolean>) | undefined
}): LspProvider<E> => ({ ...provider, id: LspProviderId.make(provider.id) })
