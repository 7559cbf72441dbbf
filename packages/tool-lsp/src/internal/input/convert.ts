/**
 * Conversion between the tool's one-based positions and validated input and the seam's zero-based positions
 * and requests.
 */
import type { LspQuery } from "@lsp-seam/lsp"
import type * as InputSchema from "./schema.js"

/** One-based tool position → zero-based seam position. */
export const toSeamPosition = (
  position: { readonly line: number; readonly character: number }
): LspQuery.LspPosition => ({
  line: position.line - 1,
  character: position.character - 1
})

/** Zero-based seam position → one-based tool position. */
export const fromSeamPosition = (
  position: LspQuery.LspPosition
): { readonly line: number; readonly character: number } => ({
  line: position.line + 1,
  character: position.character + 1
})

/** The seam request for validated input; with `symbol` and no `character`, the seam character is 0. */
export const toQueryRequest = (
  input: InputSchema.LspToolInput,
  workspaceRoot: string
): LspQuery.LspQueryRequest => {
  const body = "include_body" in input && input.include_body === true ? { includeBody: true } : {}
  switch (input.operation) {
    case "documentSymbol":
      return { operation: input.operation, filePath: input.file_path, workspaceRoot, ...body }
    case "diagnostics":
      return input.severity === undefined
        ? { operation: input.operation, filePath: input.file_path, workspaceRoot }
        : { operation: input.operation, filePath: input.file_path, workspaceRoot, severity: input.severity }
    case "workspaceSymbol":
      return input.file_path === undefined
        ? { operation: input.operation, query: input.query, workspaceRoot, ...body }
        : { operation: input.operation, query: input.query, workspaceRoot, filePath: input.file_path, ...body }
    case "renamePreview": {
      const position = toSeamPosition({ line: input.line, character: input.character ?? 1 })
      const request = { operation: input.operation, filePath: input.file_path, position, workspaceRoot }
      return input.symbol === undefined
        ? { ...request, newName: input.new_name }
        : { ...request, newName: input.new_name, symbol: input.symbol }
    }
    case "impact": {
      const position = toSeamPosition({ line: input.line, character: input.character ?? 1 })
      return {
        operation: input.operation,
        filePath: input.file_path,
        position,
        workspaceRoot,
        ...(input.symbol === undefined ? {} : { symbol: input.symbol }),
        ...(input.depth === undefined ? {} : { depth: input.depth })
      }
    }
    default: {
      const position = toSeamPosition({ line: input.line, character: input.character ?? 1 })
      return input.symbol === undefined
        ? { operation: input.operation, filePath: input.file_path, position, workspaceRoot, ...body }
        : {
          operation: input.operation,
          filePath: input.file_path,
          position,
          workspaceRoot,
          symbol: input.symbol,
          ...body
        }
    }
  }
}
