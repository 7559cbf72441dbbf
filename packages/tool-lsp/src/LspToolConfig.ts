/**
 * Operator settings of the `lsp` tool. None of them is model input.
 *
 * @since 0.1.0
 */
import { LspError } from "@lsp-seam/lsp"
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as LspToolInput from "./LspToolInput.js"

const Positive = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))

/**
 * The largest delay a JavaScript timer accepts (2^31 − 1 ms, about 24.8 days).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxTimeoutMs = 2_147_483_647

/**
 * Every operation, in the canonical order: the default of `operations`.
 *
 * @since 0.1.0
 * @category constants
 */
export const allOperations = LspToolInput.allOperations

const Operations = Schema.NonEmptyArray(LspToolInput.ToolOperation).pipe(
  Schema.filter((operations) => new Set(operations).size === operations.length, {
    message: () => "operations must not name an operation twice"
  })
)

/**
 * - `maxLocations` (default 100): location, symbol or call lines rendered before the omission line.
 * - `maxResultChars` (default 16 000): length cap of the whole rendered text, truncation notice included.
 * - `timeoutMs` (default 60 000, integer 1..2 147 483 647): budget of one query, covering queueing, opening,
 *   the request and closing; enforced by interruption.
 * - `maxBodyLines` (default 150): lines of code shown per body (`include_body`); a longer body is
 *   cut, and says how many lines were left out and where the rest is (`path:line`).
 * - `maxBodyBytes` (default 12 000): UTF-8 bytes of code shown per answer, all bodies together;
 *   past it a body is cut, and later bodies are named by where they are instead.
 * - `operations` (default: all of `LspToolInput.ToolOperation`): the operations the tool offers, a
 *   non-empty list without repeats. The tool's JSON Schema, description and prompt text are built from it
 *   (in the canonical order, whatever the order given); an operation not offered is `LSP_INVALID_ARGUMENTS`.
 *
 * Unknown keys are rejected so a misspelt setting does not silently fall back to its default.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LspToolConfig = Schema.Struct({
  maxLocations: Schema.optionalWith(Positive, { default: () => 100 }),
  maxResultChars: Schema.optionalWith(Positive, { default: () => 16_000 }),
  timeoutMs: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, maxTimeoutMs)), { default: () => 60_000 }),
  maxBodyLines: Schema.optionalWith(Positive, { default: () => 150 }),
  maxBodyBytes: Schema.optionalWith(Positive, { default: () => 12_000 }),
  operations: Schema.optionalWith(Operations, { default: () => allOperations })
})

/**
 * A complete, valid configuration.
 *
 * @since 0.1.0
 * @category models
 */
export interface LspToolConfig extends Schema.Schema.Type<typeof LspToolConfig> {}

/**
 * What callers may pass: every key optional.
 *
 * @since 0.1.0
 * @category models
 */
export interface LspToolConfigInput extends Schema.Schema.Encoded<typeof LspToolConfig> {}

const decodeEither = Schema.decodeUnknownEither(LspToolConfig, { onExcessProperty: "error", errors: "all" })

/**
 * Validates a configuration and fills in defaults; `undefined` means all defaults. Fails with
 * `LSP_INVALID_CONFIG`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const decode = (input?: unknown): Either.Either<LspToolConfig, LspError.LspConfigurationError> =>
  decodeEither(input === undefined ? {} : input).pipe(
    Either.mapLeft((error) =>
      LspError.invalidConfig(
        `Invalid lsp tool configuration: ${ParseResult.TreeFormatter.formatErrorSync(error)}`
      )
    )
  )

/**
 * `decode` as an Effect, for a typed input: the fields given are checked, the others take their defaults, and a
 * value out of range (or an unknown key) fails with `LSP_INVALID_CONFIG`. What `LspToolHandler.run` takes.
 *
 * docs/testing.md has an example that runs with this package's tests.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (input?: LspToolConfigInput): Effect.Effect<LspToolConfig, LspError.LspConfigurationError> =>
  decode(input)

/**
 * The default configuration.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: LspToolConfig = Either.getOrThrow(decode())
