/**
 * Reading the configuration's JSON text from one variable of the current `ConfigProvider`, either as an
 * Effect failing with `LSP_INVALID_CONFIG` or as an Effect `Config` failing with `ConfigError`.
 */
import { LspError } from "@lsp-seam/lsp"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"

/** Parses and decodes configuration text; the decoder owns the messages. */
export type Decoder<A> = (text: string) => Either.Either<A, LspError.LspConfigurationError>

/** The text of variable `name`; a missing or unreadable variable is `LSP_INVALID_CONFIG` naming it. */
export const read = (name: string): Effect.Effect<string, LspError.LspConfigurationError> =>
  Config.string(name).pipe(
    Effect.mapError((error) =>
      LspError.invalidConfig(
        ConfigError.isMissingDataOnly(error)
          ? `No lsp-seam configuration: the variable ${name} is not set.`
          : `The lsp-seam configuration variable ${name} could not be read: ${String(error)}`,
        { variable: name }
      )
    )
  )

/** Variable `name` decoded by `decode`, as a `Config`: a decoding failure is `InvalidData` with its message. */
export const config = <A>(name: string, decode: Decoder<A>): Config.Config<A> =>
  Config.string(name).pipe(
    Config.mapOrFail((text) => Either.mapLeft(decode(text), (error) => ConfigError.InvalidData([], error.message)))
  )
