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
import type * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
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
  LspError.LspError,
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
  LspError.LspError,
  LspService.LspService | FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor
> => Layer.scoped(StdioStatus.StdioStatus, make(config, options))

/**
 * The host as a Layer, with its configuration loaded through Effect `Config` (by default a JSON document
 * in the `LSP_SEAM_CONFIG` variable). The `Config` yields a decoded configuration (`StdioConfig.config`
 * decodes and validates the text); it is validated again as a value (a hand-built or mapped `Config` may
 * break a rule its type cannot show), never encoded and decoded, then its executables are resolved as
 * `layer` does.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  config: Config.Config<StdioConfig.StdioConfig> = StdioConfig.config(),
  options?: Options
): Layer.Layer<
  StdioStatus.StdioStatus,
  LspError.LspError | ConfigError.ConfigError,
  LspService.LspService | FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor
> =>
  Layer.scoped(
    StdioStatus.StdioStatus,
    Effect.flatMap(
      Effect.flatMap(config, StdioConfig.validate),
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
 * configuration itself is invalid or the workspace does not exist.
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
  LspError.LspError,
  FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor
> =>
  Effect.flatMap(StdioConfig.decode(config), (decoded) =>
    Effect.scoped(
      Effect.flatMap(
        processWorld(decoded, options),
        (world) => Diagnose.diagnose(decoded, workspaceRoot, world, options.environment ?? process.env)
      )
    ))
