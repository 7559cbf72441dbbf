/**
 * `LspSeam.layerConfig`: the options read field by field through Effect `Config` (`Config.Wrap`).
 */
import { assert, describe, it } from "@effect/vitest"
import { LspError, LspService } from "@lsp-seam/lsp"
import { Config, ConfigProvider, Effect, Either } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as LspSeam from "../src/LspSeam.js"
import { fakeServer, tempDir } from "./support.js"

const server = { command: process.execPath, args: [fakeServer], extensionToLanguage: { ".fake": "plaintext" } }

const options: Config.Config.Wrap<LspSeam.LayerOptions> = {
  config: Config.succeed({ servers: { fake: server } }),
  remote: Config.string("LSP_SEAM_REMOTE").pipe(Config.withDefault(undefined)),
  token: Config.string("LSP_SEAM_TOKEN").pipe(Config.withDefault(undefined))
}

const hoverWith = (variables: ReadonlyArray<readonly [string, string]>, wrapped = options) =>
  Effect.gen(function*() {
    const dir = tempDir("layer-config")
    NodeFs.writeFileSync(NodePath.join(dir, "a.fake"), "hello\n")
    yield* Effect.addFinalizer(() => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true })))
    return yield* LspService.query({
      operation: "hover",
      filePath: "a.fake",
      position: { line: 0, character: 1 },
      workspaceRoot: dir
    }).pipe(
      Effect.provide(LspSeam.layerConfig(wrapped)),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(variables))),
      Effect.either
    )
  })

describe("LspSeam.layerConfig", () => {
  it.scopedLive("builds the layer from the fields it reads", () =>
    Effect.gen(function*() {
      const answer = Either.getOrThrow(yield* hoverWith([]))
      assert.strictEqual(answer.kind, "hover")
    }), 60_000)

  it.scopedLive(
    "a remote that is not auto, a socket or a URL is the ConfigError of the field remote",
    () =>
      Effect.gen(function*() {
        const error = Either.getOrThrow(Either.flip(yield* hoverWith([["LSP_SEAM_REMOTE", "ftp://host:1"]])))
        assert.isFalse(LspError.isLspError(error))
        assert.match(String(error), /remote.*ftp:\/\/host:1/s)
      }),
    60_000
  )

  it.scopedLive(
    "a configuration that breaks a rule is the ConfigError of the field config",
    () =>
      Effect.gen(function*() {
        const broken = { ...options, config: Config.succeed({ servers: { fake: { ...server, killGraceMs: -1 } } }) }
        const error = Either.getOrThrow(Either.flip(yield* hoverWith([], broken)))
        assert.isFalse(LspError.isLspError(error))
        assert.match(String(error), /config.*server "fake", field killGraceMs/s)
      }),
    60_000
  )
})
