/**
 * The check of an answer against `LspResult.LspQueryResult`, as the seam makes it of every provider's answer
 * and the remote wire of every answer it carries. The schema's check costs ~2 µs per location (four integer
 * filters, three structs), so a list of 500 references took over 1 ms before the caller saw it. A plain
 * locations result — the shape the hosts build, and the largest answers there are — is therefore checked
 * and copied field by field, which gives the very value the schema gives (new objects holding only the
 * schema's members); everything else goes to the schema, which also writes the error messages. The property
 * tests hold the two to the same results. The plain check itself is `LspResultRead.plainLocations`, which a
 * client can use without loading the schema.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as LspDecode from "./LspDecode.js"
import { LspQueryResult } from "./LspResult.js"
import { plainLocations } from "./LspResultRead.js"

const bySchema = LspDecode.validateEither(LspQueryResult)

/**
 * What `Schema.validateEither(LspResult.LspQueryResult)` gives for `value`: the answer as the schema
 * returns it (new objects with the schema's members only), or the schema's error. Plain locations results are
 * checked without the schema, ~25× faster.
 *
 * @since 0.1.0
 * @category validation
 */
export const validate = (value: unknown): Either.Either<LspQueryResult, ParseResult.ParseError> => {
  const fast = plainLocations(value)
  return fast !== undefined ? Either.right(fast) : bySchema(value)
}
