/**
 * What one `lsp` call produces: the full seam result (never capped, for programs) and the text rendered
 * for the model (capped).
 *
 * @since 0.1.0
 */
import { LspResult } from "@lsp-seam/lsp"
import * as JSONSchema from "effect/JSONSchema"
import * as Schema from "effect/Schema"

/**
 * @since 0.1.0
 * @category schemas
 */
export const LspToolOutput = Schema.Struct({
  result: LspResult.LspQueryResult,
  text: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export interface LspToolOutput extends Schema.Schema.Type<typeof LspToolOutput> {}

/**
 * The JSON Schema of the canonical output: a closed union on `result.kind`, every object with
 * `additionalProperties: false`.
 *
 * @since 0.1.0
 * @category constants
 */
export const jsonSchema: JSONSchema.JsonSchema7 = JSONSchema.fromAST(LspToolOutput.ast, {
  definitions: {},
  topLevelReferenceStrategy: "skip"
})

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (result: LspResult.LspQueryResult, text: string): LspToolOutput => ({ result, text })
