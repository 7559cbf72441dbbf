// The source text of a declaration that a location or symbol may carry (`includeBody`). The public
// documentation is in LspResult.ts.
import * as Schema from "effect/Schema"
import { LspRange } from "../../LspQuery.js"

export const LspBody = Schema.Struct({
  range: LspRange,
  text: Schema.String
})

export type LspBody = typeof LspBody.Type
