/**
 * Schema checks for values from outside the process (a language server's JSON, a remote peer's message, a
 * provider written in plain JavaScript) that fail instead of throwing.
 *
 * Effect 3's union parser (3.22.4, `ParseResult.ts`) picks a union's candidate members by reading each
 * discriminating member of the input with `String(value)` before checking its type. For JSON such as
 * `{"kind":{"toString":0}}` or `{"kind":[{"toString":0}]}`, `String` throws a `TypeError`; checking that value
 * then throws out of `Schema.decodeUnknownEither` rather than returning `Left`. These wrappers turn any throw
 * while checking into a `ParseError` on the value, so bad input is refused like any other bad input.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as AST from "effect/SchemaAST"

/** Why a value was refused when checking it threw. */
const unreadable = (ast: AST.AST, input: unknown, thrown: unknown): ParseResult.ParseError =>
  ParseResult.parseError(
    new ParseResult.Type(
      ast,
      input,
      thrown instanceof Error ? `a value that cannot be checked (${thrown.message})` : "a value that cannot be checked"
    )
  )

const guarded = <A>(
  ast: AST.AST,
  check: (input: unknown, options?: AST.ParseOptions) => Either.Either<A, ParseResult.ParseError>
) =>
(input: unknown, options?: AST.ParseOptions): Either.Either<A, ParseResult.ParseError> => {
  try {
    return check(input, options)
  } catch (thrown) {
    return Either.left(unreadable(ast, input, thrown))
  }
}

/**
 * `Schema.decodeUnknownEither(schema, options)`, except that a value whose check throws is refused with a
 * `ParseError` on that value.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeUnknownEither = <A, I>(
  schema: Schema.Schema<A, I, never>,
  options?: AST.ParseOptions
): (input: unknown, options?: AST.ParseOptions) => Either.Either<A, ParseResult.ParseError> =>
  guarded(schema.ast, Schema.decodeUnknownEither(schema, options))

/**
 * `Schema.validateEither(schema, options)` (a check against the type side), except that a value whose check
 * throws is refused with a `ParseError` on that value.
 *
 * @since 0.1.0
 * @category validation
 */
export const validateEither = <A, I>(
  schema: Schema.Schema<A, I, never>,
  options?: AST.ParseOptions
): (input: unknown, options?: AST.ParseOptions) => Either.Either<A, ParseResult.ParseError> =>
  guarded(schema.ast, Schema.validateEither(schema, options))

/**
 * `Schema.is(schema)`, except that a value whose check throws is not a member.
 *
 * @since 0.1.0
 * @category validation
 */
export const is = <A, I>(schema: Schema.Schema<A, I, never>): (input: unknown) => input is A => {
  const check = Schema.is(schema)
  return (input: unknown): input is A => {
    try {
      return check(input)
    } catch {
      return false
    }
  }
}
