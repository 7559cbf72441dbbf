/**
 * The stdio host as a Layer: every configured language server becomes an `LspService` provider, for the
 * lifetime of the Layer. Servers run as scoped resources, one per (provider, canonical workspace), started
 * on the first query that needs them and torn down, with their whole process tree, when the Layer closes.
 *
 * @since 0.1.0
 */
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import { type LspError, LspService } from "@lsp-seam/lsp"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as ConfigByField from "./internal/config/configByField.js"
import * as Host from "./internal/host/host.js"
import * as ProcessMemory from "./internal/process/processMemory.js"
import * as ProcessWorld from "./internal/process/processWorld.js"
import * as Diagnose from "./internal/servers/diagnose.js"
import * as StdioConfig from "./StdioConfig.js"
import * as StdioStatus from "./StdioStatus.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Whether servers run on this machine, in the host's own process namespace (the default). Then servers
   * learn the host's pid (so they exit when it dies), teardown ends their whole process group, a watchdog
   * process ends the groups of a host killed before its teardown (SIGTERM, then SIGKILL after the longest
   * `killGraceMs` rounded up to whole seconds), and
   * workspaces and sources are read with synchronous system calls (far cheaper than the thread pool for
   * small local files). Set it to false when the `CommandExecutor` runs them elsewhere (a sandbox, a remote
   * machine, a test double): then every file is read through the platform `FileSystem`.
   */
  readonly local?: boolean
  /** The environment servers inherit before scrubbing; default `process.env`. */
  readonly environment?: Readonly<Record<string, string | undefined>>
}

/**
 * What building the host can fail with: an invalid configuration or a command that resolves to no executable
 * (`LSP_INVALID_CONFIG`, `LSP_EXECUTABLE_NOT_FOUND`), or a registration the `LspService` refuses
 * (`LSP_INVALID_PROVIDER`, `LSP_CONFLICT`; `LSP_DISPOSED` when that service has been shut down). Never a server's
 * failure: servers start on the first query that needs them.
 *
 * @since 0.1.0
 * @category errors
 */
export type LayerError = LspError.LspConfigurationError | LspError.LspOperationError

/**
 * Where the servers run, for the current scope: the local watchdog waits as long as the most patient server.
 * A `ProcessMemory` in context replaces the world's own measurement of the servers' memory.
 */
const processWorld = (config: StdioConfig.StdioConfig, options: Options) =>
  Effect.zipWith(
    options.local === false
      ? Effect.succeed(ProcessWorld.remote)
      : ProcessWorld.makeLocal(Math.max(0, ...Object.values(config.servers).map((server) => server.killGraceMs))),
    Effect.serviceOption(ProcessMemory.ProcessMemory),
    (world, memory) => Option.match(memory, { onNone: () => world, onSome: (memory) => ({ ...world, memory }) })
  )

/** Resolves every executable of a decoded `config`, then registers its providers; nothing on any failure. */
const registerDecoded = (config: StdioConfig.StdioConfig, options: Options) =>
  Effect.gen(function*() {
    const specs = yield* Host.prepare(config, options.environment ?? process.env)
    const { host, providers } = yield* Host.makeProviders(specs, yield* processWorld(config, options), {
      maxServers: config.maxServers,
      maxMemory: config.maxMemory
    })
    const service = yield* LspService.LspService
    yield* Effect.forEach(providers, (provider) => service.registerProvider(provider), { discard: true })
    return host
  })

/**
 * Validates `config`, resolves every executable, then registers one provider per server with the
 * `LspService` in context, for the current scope. Any failure registers nothing. Returns the host's
 * read-only status view.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  config: StdioConfig.StdioConfig.Encoded,
  options: Options = {}
): Effect.Effect<
  StdioStatus.StdioStatusShape,
  LayerError,
  LspService.LspService | FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor | Scope.Scope
> => Effect.flatMap(StdioConfig.decode(config), (decoded) => registerDecoded(decoded, options))

/**
 * The host as a Layer, from a configuration value (validated here). It registers the providers and offers
 * the host's read-only status as `StdioStatus`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  config: StdioConfig.StdioConfig.Encoded,
  options?: Options
): Layer.Layer<
  StdioStatus.StdioStatus,
  LayerError,
  LspService.LspService | FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor
> => Layer.scoped(StdioStatus.StdioStatus, make(config, options))

/**
 * The configuration's fields, each from its own Effect `Config` (`Config.Wrap`, the way @effect/sql's
 * `layerConfig` takes its options): `{ servers: …, maxServers: Config.integer("LSP_SEAM_MAX_SERVERS") }`. A field
 * may be a plain `Config.succeed(value)`; an optional one may be left out (its default applies).
 *
 * @since 0.1.0
 * @category models
 */
export type ConfigFields = ConfigByField.Fields

/**
 * The host as a Layer, with its configuration loaded through Effect `Config`, in one of two forms.
 *
 * - One document (the default: a JSON document in the `LSP_SEAM_CONFIG` variable): a `Config` that yields a
 *   decoded configuration (`StdioConfig.config` decodes and validates the text). It is validated again as a
 *   value (a hand-built or mapped `Config` may break a rule its type cannot show), never encoded and decoded;
 *   a broken rule is then `LSP_INVALID_CONFIG`.
 * - Field by field (`ConfigFields`): the fields are read, then decoded as a configuration value; a field that
 *   breaks a rule fails with a `ConfigError` at that field's path (`maxServers`, `servers.ts.command`).
 *
 * Then its executables are resolved as `layer` does (`LSP_EXECUTABLE_NOT_FOUND`).
 *
 * @example
 * import { LspStdio } from "@lsp-seam/lsp-stdio"
 * import { Config } from "effect"
 *
 * // LSP_SEAM_MAX_SERVERS=4 LSP_SEAM_MAX_MEMORY=2GiB
 * const host = LspStdio.layerConfig({
 *   servers: Config.succeed({
 *     typescript: {
 *       command: "typescript-language-server",
 *       args: ["--stdio"],
 *       extensionToLanguage: { ".ts": "typescript" }
 *     }
 *   }),
 *   maxServers: Config.integer("LSP_SEAM_MAX_SERVERS").pipe(Config.withDefault(32)),
 *   maxMemory: Config.string("LSP_SEAM_MAX_MEMORY").pipe(Config.withDefault("25%"))
 * })
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: {
  (
    config?: Config.Config<StdioConfig.StdioConfig>,
    options?: Options
  ): Layer.Layer<
    StdioStatus.StdioStatus,
    LayerError | ConfigError.ConfigError,
    LspService.LspService | FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor
  >
  (
    fields: ConfigFields,
    options?: Options
  ): Layer.Layer<
    StdioStatus.StdioStatus,
    LayerError | ConfigError.ConfigError,
    LspService.LspService | FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor
  >
} = (config: Config.Config<StdioConfig.StdioConfig> | ConfigFields = StdioConfig.config(), options?: Options) =>
  Layer.scoped(
    StdioStatus.StdioStatus,
    Effect.flatMap(
      Config.isConfig(config) ? Effect.flatMap(config, StdioConfig.validate) : ConfigByField.fromFields(config),
      (decoded) => registerDecoded(decoded, options ?? {})
    )
  )

/**
 * One server's health, as `diagnose` reports it.
 *
 * @since 0.1.0
 * @category models
 */
export type { ServerDiagnosis } from "./internal/servers/diagnose.js"

/**
 * Starts every configured server once for `workspaceRoot` (then shuts it down) and reports, per server,
 * whether its command resolves, what it answered to `initialize` (position encoding, document sync,
 * which of the four operations it supports), how long the start took, and any error. Fails only when the
 * configuration itself is invalid (`LSP_INVALID_CONFIG`) or the workspace is not an existing directory
 * (`LSP_INVALID_WORKSPACE`).
 *
 * @since 0.1.0
 * @category diagnostics
 */
export const diagnose = (
  config: StdioConfig.StdioConfig.Encoded,
  workspaceRoot: string,
  options: Options = {}
): Effect.Effect<
  ReadonlyArray<Diagnose.ServerDiagnosis>,
  LspError.LspConfigurationError | LspError.LspSourceError,
  FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor
> =>
  Effect.flatMap(StdioConfig.decode(config), (decoded) =>
    Effect.scoped(
      Effect.flatMap(
        processWorld(decoded, options),
        (world) => Diagnose.diagnose(decoded, workspaceRoot, world, options.environment ?? process.env)
      )
    ))
