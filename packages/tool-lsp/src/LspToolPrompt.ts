/**
 * The system-prompt section that tells the model when to reach for `lsp`, for the operations the tool offers.
 * The text depends on nothing else (no path, date or limit), so it never breaks a cached prompt prefix.
 *
 * @since 0.1.0
 */
import { isPositionOperation, offersBody } from "./internal/input/operations.js"
import * as LspToolInput from "./LspToolInput.js"

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

const base = "Use search/read for ordinary navigation. Use lsp when textual matches are ambiguous or before a " +
  "change requires precise definitions, implementations, or references."

const positions = "Positions are one-based line and character (UTF-16) at the cursor; an off-symbol position may " +
  "return no results. Or pass symbol, the identifier's name, with its line instead of counting columns."

const callsSentence = (incoming: boolean, outgoing: boolean): ReadonlyArray<string> => {
  if (incoming && outgoing) return ["incomingCalls and outgoingCalls list a function's callers and callees."]
  if (incoming) return ["incomingCalls lists a function's callers."]
  return outgoing ? ["outgoingCalls lists the functions a function calls."] : []
}

/**
 * The guidance text for the offered operations: the reference's, plus one sentence for `symbol` and one short
 * sentence per capability beyond the reference's four. With exactly those four it is the text of 0.1.0,
 * verbatim.
 *
 * @since 0.1.0
 * @category constructors
 */
export const textFor = (operations: LspToolInput.Operations): string => {
  const has = (operation: LspToolInput.ToolOperation) => operations.includes(operation)
  const positional = operations.some(isPositionOperation)
  return [
    base,
    ...(positional ? [positions] : []),
    ...(has("findReferences") ? ["findReferences always includes the declaration."] : []),
    ...(has("goToTypeDefinition") ? ["goToTypeDefinition jumps from a value to its type's declaration."] : []),
    ...callsSentence(has("incomingCalls"), has("outgoingCalls")),
    ...(has("documentSymbol") ? ["documentSymbol outlines a file without reading it."] : []),
    ...(has("workspaceSymbol") ? ["workspaceSymbol finds a declaration by name when its file is unknown."] : []),
    ...(has("diagnostics") ? ["After editing a file, ask lsp for its diagnostics."] : []),
    ...(offersBody(operations)
      ? ["Pass include_body: true to get a definition's or symbol's code in the same call, not a file read."]
      : []),
    ...(has("renamePreview")
      ? ["To rename, renamePreview lists every edit the rename needs, writing nothing: apply them with your edit tool."]
      : []),
    ...(has("impact")
      ? ["Before changing a function, impact shows what depends on it in one call: its uses, their callers, the tests."]
      : [])
  ].join(" ")
}

/**
 * The guidance text when every operation is offered (the default configuration).
 *
 * @since 0.1.0
 * @category constants
 */
export const text = textFor(LspToolInput.allOperations)

/**
 * The section for the offered operations: name `lsp`, order 112.
 *
 * @since 0.1.0
 * @category constructors
 */
export const sectionFor = (operations: LspToolInput.Operations): LspPromptSection => ({
  name: "lsp",
  order: 112,
  text: textFor(operations)
})

/**
 * The section when every operation is offered: name `lsp`, order 112.
 *
 * @since 0.1.0
 * @category constants
 */
export const section: LspPromptSection = sectionFor(LspToolInput.allOperations)
