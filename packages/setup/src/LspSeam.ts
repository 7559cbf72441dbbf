/**
 * lsp-seam assembled for a program on this machine: the `LspService` with the stdio host on top (your
 * configuration, or the presets), as one Layer for Effect code, as the `lsp` tool's handler Layer for an
 * `@effect/ai` agent, and as a Promise client for everything else.
 *
 * @since 0.1.0
 */
import type * as Tool from "@effect/ai/Tool"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { LspError, LspService } from "@lsp-seam/lsp"
import { LspStdio, StdioConfig } from "@lsp-seam/lsp-stdio"
import { LspAiTool, LspClient, LspSession, type LspToolConfig } from "@lsp-seam/tool-lsp"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as RemoteTarget from "./internal/remoteTarget.js"
import * as LspConfigFile from "./LspConfigFile.js"

const remoteLayer = (
  remote: string,
  options: LayerOptions
): Layer.Layer<LspService.LspService, LspError.LspConfigurationError | LspError.LspRemoteError> =>
  Either.match(RemoteTarget.parse(remote), {
    onLeft: (message) => Layer.fail(LspError.invalidConfig(`remote: ${message}`)),
    onRight: (target) =>
      RemoteTarget.layer(target, {
        token: options.token,
        tokenFile: options.tokenFile,
        caFile: options.caFile,
        source: options.config === undefined ? { _tag: "Presets" } : { _tag: "Inline", config: options.config }
      })
  })

/**
 * What `layer` can fail with: a configuration that cannot be used (`LspConfigurationError`) or, with `remote`, a
 * host that cannot be (`LspRemoteError`). Without `remote` only the first.
 *
 * @since 0.1.0
 * @category errors
 */
export type LayerError = LspError.LspConfigurationError | LspError.LspRemoteError

/**
 * @since 0.1.0
 * @category models
 */
export interface LayerOptions {
  /**
   * The stdio host's configuration (`{ servers: { … } }`, validated); default: the active presets. Load a
   * file with `LspConfigFile.load`.
   */
  readonly config?: typeof StdioConfig.StdioConfig.Encoded | undefined
  /** How servers start, see `LspStdio.Options`. */
  readonly stdio?: LspStdio.Options | undefined
  /**
   * Ask a running lsp-seam host instead of starting servers here: `"auto"` (the per-user daemon of `config`,
   * or of the presets, started detached when none runs: `lsp-seam serve` of an installed `@lsp-seam/cli`,
   * `LSP_INVALID_CONFIG` without one), a Unix socket path, or `http://HOST:PORT` / `ws://HOST:PORT`
   * (`https://`/`wss://` for a host serving TLS). `stdio` is then not used.
   *
   * @since 0.1.0
   */
  readonly remote?: "auto" | (string & {}) | undefined
  /**
   * The token of a `remote` URL; default: the file `tokenFile`, else the `LSP_SEAM_TOKEN` variable.
   *
   * @since 0.1.0
   */
  readonly token?: string | undefined
  /**
   * A file holding the token of a `remote` URL (mode 0600).
   *
   * @since 0.1.0
   */
  readonly tokenFile?: string | undefined
  /**
   * A PEM file of the certificates to trust for a `wss://`/`https://` `remote` instead of the system's (a
   * private CA). The token is sent only once the host's certificate is verified.
   *
   * @since 0.1.0
   */
  readonly caFile?: string | undefined
}

// The service is built right here, so it cannot have been shut down while the host registers its providers:
// the registration's LSP_DISPOSED cannot happen.
const localLayer = (
  options: LayerOptions
): Layer.Layer<LspService.LspService | LspService.LspLocalService, LspError.LspConfigurationError> =>
  Layer.unwrapEffect(
    Effect.map(
      options.config === undefined
        ? Effect.map(LspConfigFile.presets(), (loaded) => loaded.input)
        : Effect.succeed(options.config),
      (config) => LspStdio.layer(config, options.stdio)
    )
  ).pipe(
    Layer.provideMerge(LspService.layerLocal),
    Layer.catchAll((error) => error._tag === "LspOperationError" ? Layer.die(error) : Layer.fail(error)),
    Layer.provide(NodeContext.layer)
  )

/**
 * The `LspService` with one provider per configured language server, running on this machine
 * (`NodeContext`). Servers start on the first query that needs them and stop when the Layer is released.
 * Fails to build with `LSP_INVALID_CONFIG` or `LSP_EXECUTABLE_NOT_FOUND`, an `LspConfigurationError` (its type
 * says so). It offers the same seam as `LspService.LspLocalService` too, whose queries are typed without
 * `LspRemoteError` (`LspService.queryLocal`). With `remote`, the `LspService` of that host instead, failing with
 * `LayerError`: `LSP_REMOTE_UNAVAILABLE`, `LSP_REMOTE_UNAUTHORIZED` or `LSP_REMOTE_INCOMPATIBLE` (an
 * `LspRemoteError`) when it cannot be used, also when the `"auto"` daemon does not come up; `LSP_INVALID_CONFIG`
 * for a bad `remote`, token or CA file, a configuration the daemon cannot be given, or no `lsp-seam` command to
 * start it with. Releasing the Layer then closes the connection, not the host.
 *
 * @since 0.1.0
 * @category layers
 */
export function layer(
  options?: LayerOptions & { readonly remote?: undefined }
): Layer.Layer<LspService.LspService | LspService.LspLocalService, LspError.LspConfigurationError>
export function layer(options: LayerOptions): Layer.Layer<LspService.LspService, LayerError>
export function layer(options: LayerOptions = {}): Layer.Layer<LspService.LspService, LayerError> {
  return options.remote !== undefined ? remoteLayer(options.remote, options) : localLayer(options)
}

// A field that cannot be used is the ConfigError of that field, as a field of the wrong type is.
const checkFields = (options: LayerOptions): Either.Either<LayerOptions, ConfigError.ConfigError> => {
  const remote = options.remote === undefined ? Either.right(undefined) : RemoteTarget.parse(options.remote)
  if (Either.isLeft(remote)) return Either.left(ConfigError.InvalidData(["remote"], remote.left))
  if (options.config === undefined) return Either.right(options)
  return Either.mapBoth(StdioConfig.decodeEither(options.config), {
    onLeft: (error) => ConfigError.InvalidData(["config"], error.message),
    onRight: () => options
  })
}

/**
 * `layer` with its options read through Effect `Config`, field by field (`Config.Wrap`, the way @effect/sql's
 * `layerConfig` takes its options): each field a `Config` of its own, or left out. A `remote` that is not `auto`,
 * a socket path or a URL, or a `config` document that breaks a rule, fails with a `ConfigError` at that field;
 * then the Layer fails as `layer` does.
 *
 * @example
 * import { LspSeam } from "@lsp-seam/setup"
 * import { Config } from "effect"
 *
 * // LSP_SEAM_REMOTE=ws://127.0.0.1:7421 LSP_SEAM_TOKEN_FILE=~/.lsp-seam-token (both optional)
 * const seam = LspSeam.layerConfig({
 *   remote: Config.string("LSP_SEAM_REMOTE").pipe(Config.withDefault(undefined)),
 *   tokenFile: Config.string("LSP_SEAM_TOKEN_FILE").pipe(Config.withDefault(undefined))
 * })
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: Config.Config.Wrap<LayerOptions>
): Layer.Layer<LspService.LspService, LayerError | ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(options).pipe(Config.mapOrFail(checkFields)), (read) => layer(read)))

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolLayerOptions extends LayerOptions {
  /** The workspace root of every call: the agent session's working directory. */
  readonly workingDirectory: string
  /** Tool configuration: limits (`maxLocations`, `maxResultChars`, `timeoutMs`) and the offered `operations`. */
  readonly tool?: LspToolConfig.LspToolConfigInput | undefined
}

/**
 * The handler of the `lsp` tool for an `@effect/ai` agent, with everything it needs: merge it and pass
 * `LspAiTool.LspToolkit` to `LanguageModel.generateText` (`LspAiTool.makeToolkit(operations)` when
 * `tool.operations` offers fewer than all). Fails to build as `layer` does, or with `LSP_INVALID_CONFIG` for the
 * `tool` options: without `remote`, only with an `LspConfigurationError`.
 *
 * @since 0.1.0
 * @category layers
 */
export function layerTool(
  options: ToolLayerOptions & { readonly remote?: undefined }
): Layer.Layer<Tool.Handler<"lsp">, LspError.LspConfigurationError>
export function layerTool(options: ToolLayerOptions): Layer.Layer<Tool.Handler<"lsp">, LayerError>
export function layerTool(options: ToolLayerOptions): Layer.Layer<Tool.Handler<"lsp">, LayerError> {
  return LspAiTool.layer(options.tool).pipe(
    Layer.provide(LspSession.layer(options.workingDirectory)),
    Layer.provide(layer(options))
  )
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ClientOptions extends LayerOptions {
  /** Default workspace root of every query (a query may override it). */
  readonly workingDirectory?: string | undefined
  /** Tool configuration: limits (`maxLocations`, `maxResultChars`, `timeoutMs`) and the offered `operations`. */
  readonly tool?: LspToolConfig.LspToolConfigInput | undefined
}

/**
 * A Promise client over `layer(options)`: `query(args, { signal })` takes the tool's arguments (one-based
 * positions, typed by the tool's input; `queryUnknown` validates untrusted ones) and resolves to
 * `{ result, text }`; coded failures reject with the `LspError`. Call `close()` to stop the servers. See
 * `LspClient.make`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeClient = (options: ClientOptions = {}): LspClient.LspClient =>
  LspClient.make(layer(options), { workingDirectory: options.workingDirectory, tool: options.tool })
