/**
 * The configuration read field by field through Effect `Config` (`Config.Wrap`, as @effect/sql's `layerConfig`
 * takes its options), then decoded like a configuration value: defaults filled in, every rule checked. A field
 * that breaks a rule is a `ConfigError` at that field's path.
 */
import * as Config from "effect/Config"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { StdioConfig } from "../../StdioConfig.js"
import { toConfigError } from "./configErrors.js"

/** One `Config` per field of the configuration as written (or a plain value's `Config.succeed`). */
export type Fields = { readonly [K in keyof StdioConfig.Encoded]: Config.Config.Wrap<StdioConfig.Encoded[K]> }

const decodeEither = Schema.decodeUnknownEither(StdioConfig, { errors: "all", onExcessProperty: "error" })

/** The decoded configuration of `fields`. */
export const fromFields = (fields: Fields): Config.Config<StdioConfig> =>
  Config.unwrap<StdioConfig.Encoded>(fields).pipe(
    Config.mapOrFail((value) => Either.mapLeft(decodeEither(value), toConfigError))
  )
