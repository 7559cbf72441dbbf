import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { LspError, LspService } from "@lsp-seam/lsp"
import { Config, type ConfigError, ConfigProvider, Effect, Either, Layer } from "effect"
import * as LspStdio from "../src/LspStdio.js"
import * as StdioConfig from "../src/StdioConfig.js"
import * as StdioStatus from "../src/StdioStatus.js"

// Not local: registering starts no process (servers start on a first query, and no watchdog is needed).
const options: LspStdio.Options = { local: false }

const server = (extensionToLanguage: Record<string, string>, command: string = process.execPath) => ({
  command,
  extensionToLanguage
})

/** What a built host shows without starting a server: its status and the extensions it registered. */
const observe = <E>(
  host: Layer.Layer<StdioStatus.StdioStatus, E, LspService.LspService | NodeContext.NodeContext>,
  provider: ConfigProvider.ConfigProvider = ConfigProvider.fromMap(new Map())
) =>
  Effect.gen(function*() {
    const status = yield* Effect.flatMap(StdioStatus.StdioStatus, (h) => h.status)
    // A file no server handles: the answer lists every registered extension.
    const routes = yield* LspService.query({
      operation: "hover",
      filePath: "probe.unrouted",
      position: { line: 0, character: 0 },
      workspaceRoot: "/"
    }).pipe(Effect.match({ onFailure: (error) => error.message, onSuccess: () => "routed" }))
    return { status, routes }
  }).pipe(
    Effect.provide(Layer.provideMerge(host, LspService.layer)),
    Effect.provide(NodeContext.layer),
    Effect.withConfigProvider(provider),
    Effect.either
  )

const inVariable = (input: unknown) => ConfigProvider.fromMap(new Map([["CFG", JSON.stringify(input)]]))

/** A failed build as text: the code and message of an `LspError`, the rendering of a `ConfigError`. */
const failure = <A>(result: Either.Either<A, LspError.LspError | ConfigError.ConfigError>): string => {
  const error = Either.getOrThrow(Either.flip(result))
  return LspError.isLspError(error) ? `${error.code}: ${error.message}` : String(error)
}

describe("LspStdio.layerConfig", () => {
  it.effect("registers what layer registers for the same configuration", () =>
    Effect.gen(function*() {
      const input = {
        servers: { ts: server({ ".ts": "typescript", TSX: "typescriptreact" }), py: server({ py: "python" }) }
      }
      const direct = yield* observe(LspStdio.layer(input, options))
      const viaConfig = yield* observe(LspStdio.layerConfig(StdioConfig.config("CFG"), options), inVariable(input))
      assert.isTrue(Either.isRight(direct))
      assert.deepStrictEqual(viaConfig, direct)
      assert.include(Either.getOrThrow(direct).routes, "registered: .py, .ts, .tsx")
    }))

  it.effect("fails as layer does when an executable does not resolve", () =>
    Effect.gen(function*() {
      const input = { servers: { gone: server({ gone: "gone" }, "no-such-language-server-xyz") } }
      const direct = failure(yield* observe(LspStdio.layer(input, options)))
      const viaConfig = failure(
        yield* observe(LspStdio.layerConfig(StdioConfig.config("CFG"), options), inVariable(input))
      )
      assert.match(direct, /^LSP_EXECUTABLE_NOT_FOUND: .*no-such-language-server-xyz/)
      assert.strictEqual(viaConfig, direct)
    }))

  it.effect("reports an invalid configuration with the message layer gives", () =>
    Effect.gen(function*() {
      const input = { servers: { ts: { ...server({ ts: "typescript" }), killGraceMs: 0 } } }
      const direct = failure(yield* observe(LspStdio.layer(input, options)))
      const viaConfig = failure(
        yield* observe(LspStdio.layerConfig(StdioConfig.config("CFG"), options), inVariable(input))
      )
      const message = direct.replace(/^LSP_INVALID_CONFIG: /, "")
      assert.notStrictEqual(message, direct)
      assert.include(message, "server \"ts\", field killGraceMs")
      assert.include(viaConfig, message)
    }))

  // The Config's value is the decoded configuration; a copy of it carrying one more property is still one (the
  // type allows it) but cannot be encoded again (unknown properties are refused both ways).
  it.effect("uses the decoded value as it is, without encoding it to decode it again", () =>
    Effect.gen(function*() {
      const input = { servers: { ts: server({ ts: "typescript" }) } }
      const labelled = Config.map(StdioConfig.config("CFG"), (config) => ({ ...config, source: "CFG" }))
      const viaConfig = yield* observe(LspStdio.layerConfig(labelled, options), inVariable(input))
      assert.deepStrictEqual(viaConfig, yield* observe(LspStdio.layer(input, options)))
      assert.isTrue(Either.isRight(viaConfig))
    }))

  // A hand-built or mapped Config may break a rule its type cannot show; it is validated as a value.
  it.effect("refuses a Config whose value breaks a rule of the schema", () =>
    Effect.gen(function*() {
      const input = { servers: { ts: server({ ts: "typescript" }) } }
      const broken = Config.map(StdioConfig.config("CFG"), (config) => ({
        ...config,
        servers: { ts: { ...config.servers.ts!, killGraceMs: 0 } }
      }))
      const viaConfig = yield* observe(LspStdio.layerConfig(broken, options), inVariable(input))
      assert.isTrue(Either.isLeft(viaConfig))
      if (Either.isLeft(viaConfig)) {
        const error = viaConfig.left
        assert.isTrue(LspError.isLspError(error) && error.code === "LSP_INVALID_CONFIG", String(error))
        assert.include(error.message, "killGraceMs")
      }
    }))
})

describe("LspStdio.layerConfig, field by field (Config.Wrap)", () => {
  const fields: LspStdio.ConfigFields = {
    servers: Config.succeed({ ts: server({ ".ts": "typescript" }) }),
    maxServers: Config.integer("LSP_SEAM_MAX_SERVERS"),
    maxMemory: Config.string("LSP_SEAM_MAX_MEMORY").pipe(Config.withDefault("25%"))
  }
  const variables = (entries: ReadonlyArray<readonly [string, string]>) => ConfigProvider.fromMap(new Map(entries))

  it.effect("reads each field from its own variable, as layer takes the same values", () =>
    Effect.gen(function*() {
      const input = { servers: { ts: server({ ".ts": "typescript" }) }, maxServers: 3, maxMemory: "1GiB" }
      const direct = yield* observe(LspStdio.layer(input, options))
      const viaFields = yield* observe(
        LspStdio.layerConfig(fields, options),
        variables([["LSP_SEAM_MAX_SERVERS", "3"], ["LSP_SEAM_MAX_MEMORY", "1GiB"]])
      )
      assert.isTrue(Either.isRight(direct))
      assert.deepStrictEqual(viaFields, direct)
    }))

  it.effect("a field that breaks a rule is a ConfigError at that field", () =>
    Effect.gen(function*() {
      const result = yield* observe(LspStdio.layerConfig(fields, options), variables([["LSP_SEAM_MAX_SERVERS", "0"]]))
      const error = Either.getOrThrow(Either.flip(result))
      assert.isFalse(LspError.isLspError(error))
      const text = String(error)
      assert.include(text, "maxServers")
      assert.include(text, "from 1 to 1000")
    }))

  it.effect("a variable that is not of the field's type is the ConfigError naming the variable", () =>
    Effect.gen(function*() {
      const result = yield* observe(
        LspStdio.layerConfig(fields, options),
        variables([["LSP_SEAM_MAX_SERVERS", "many"]])
      )
      assert.include(failure(result), "LSP_SEAM_MAX_SERVERS")
    }))
})
