/**
 * The system-prompt section that tells the model when to reach for `lsp`. The text is static, so it never
 * breaks a cached prompt prefix.
 *
 * @since 0.1.0
 */

/**
 * A named piece of system prompt; harnesses sort sections by `order`.
 *
 * @since 0.1.0
 * @category models
 */
export interface LspPromptSection {
  readonly name: string
  readonly order: number
  readonly text: string
}

/**
 * The guidance text: the reference's, plus one sentence for `symbol`.
 *
 * @since 0.1.0
 * @category constants
 */
export const text = "Use search/read for ordinary navigation. Use lsp when textual matches are ambiguous or " +
  "before a change requires precise definitions, implementations, or references. Positions are one-based " +
  "line and character (UTF-16) at the cursor; an off-symbol position may return no results. Or pass symbol, " +
  "the identifier's name, with its line instead of counting columns. findReferences always includes the " +
  "declaration."

/**
 * The section: name `lsp`, order 112.
 *
 * @since 0.1.0
 * @category constants
 */
export const section: LspPromptSection = { name: "lsp", order: 112, text }
