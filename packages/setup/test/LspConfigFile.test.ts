import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { StdioConfig } from "@lsp-seam/lsp-stdio"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as LspConfigFile from "../src/LspConfigFile.js"
import { tempDir } from "./support.js"

const server = { command: "/bin/sh", extensionToLanguage: { ".x": "x" } }

const withDir = <A, E, R>(f: (dir: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => tempDir("config")),
    f,
    (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
  )

const write = (file: string, value: unknown) =>
  NodeFs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value))

describe("LspConfigFile.load", () => {
  it.effect("takes --config first, then lsp-seam.json in the workspace, then the presets", () =>
    withDir((dir) =>
      Effect.gen(function*() {
        const explicit = NodePath.join(dir, "explicit.json")
        write(explicit, { servers: { explicit: server } })
        const local = NodePath.join(dir, "lsp-seam.json")
        write(local, { servers: { local: server } })

        const fromFlag = yield* LspConfigFile.load({ configFile: explicit, workingDirectory: dir })
        assert.deepStrictEqual(fromFlag.source, { _tag: "File", path: explicit, presetDefaults: [] })
        assert.deepStrictEqual(Object.keys(fromFlag.config.servers), ["explicit"])

        const fromWorkspace = yield* LspConfigFile.load({ workingDirectory: dir })
        assert.deepStrictEqual(fromWorkspace.source, { _tag: "File", path: local, presetDefaults: [] })
        assert.deepStrictEqual(Object.keys(fromWorkspace.input.servers), ["local"])

        NodeFs.rmSync(local)
        const fromPresets = yield* LspConfigFile.load({ workingDirectory: dir, environment: { PATH: "" } })
        assert.strictEqual(fromPresets.source._tag, "Presets")
        assert.deepStrictEqual(Object.keys(fromPresets.config.servers), ["typescript"])
      })
    ).pipe(Effect.provide(NodeContext.layer)))

  it.effect("takes the memory budget from the file", () =>
    withDir((dir) =>
      Effect.gen(function*() {
        write(NodePath.join(dir, "lsp-seam.json"), { maxMemory: "2GiB", servers: { x: server } })
        const loaded = yield* LspConfigFile.load({ workingDirectory: dir })
        assert.strictEqual(loaded.config.maxMemory, "2GiB")
        assert.strictEqual(loaded.input.maxMemory, "2GiB")
      })
    ).pipe(Effect.provide(NodeContext.layer)))

  it.effect("LSP_SEAM_MAX_MEMORY sets the budget where the configuration does not", () =>
    withDir((dir) =>
      Effect.gen(function*() {
        const environment = { PATH: "", [LspConfigFile.maxMemoryVariable]: "3GiB" }
        const fromPresets = yield* LspConfigFile.load({ workingDirectory: dir, environment })
        assert.strictEqual(fromPresets.source._tag, "Presets")
        assert.strictEqual(fromPresets.config.maxMemory, "3GiB")
        assert.strictEqual(fromPresets.input.maxMemory, "3GiB")
        const bytes = yield* LspConfigFile.load({
          workingDirectory: dir,
          environment: { ...environment, [LspConfigFile.maxMemoryVariable]: " 2000000000 " }
        })
        assert.strictEqual(bytes.config.maxMemory, 2_000_000_000)

        const file = NodePath.join(dir, "lsp-seam.json")
        write(file, { servers: { x: server } })
        assert.strictEqual((yield* LspConfigFile.load({ workingDirectory: dir, environment })).config.maxMemory, "3GiB")
        // The file's own value wins.
        write(file, { maxMemory: "1GiB", servers: { x: server } })
        assert.strictEqual((yield* LspConfigFile.load({ workingDirectory: dir, environment })).config.maxMemory, "1GiB")
        // Without the variable, the default.
        write(file, { servers: { x: server } })
        const plain = yield* LspConfigFile.load({ workingDirectory: dir, environment: { PATH: "" } })
        assert.strictEqual(plain.config.maxMemory, "25%")

        const bad = yield* Effect.flip(LspConfigFile.load({
          workingDirectory: dir,
          environment: { ...environment, [LspConfigFile.maxMemoryVariable]: "lots" }
        }))
        assert.strictEqual(bad.code, "LSP_INVALID_CONFIG")
        assert.include(bad.message, "LSP_SEAM_MAX_MEMORY=\"lots\" is not a memory budget")
        assert.include(bad.message, "\"2GiB\"")
        NodeFs.rmSync(file)
        const badPresets = yield* Effect.flip(LspConfigFile.load({
          workingDirectory: dir,
          environment: { ...environment, [LspConfigFile.maxMemoryVariable]: "0%" }
        }))
        assert.strictEqual(badPresets.code, "LSP_INVALID_CONFIG")
        assert.include(badPresets.message, "LSP_SEAM_MAX_MEMORY=\"0%\"")
      })
    ).pipe(Effect.provide(NodeContext.layer)))

  it.effect("ignores a $schema key and fills in defaults", () =>
    withDir((dir) =>
      Effect.gen(function*() {
        const file = NodePath.join(dir, "lsp-seam.json")
        write(file, { $schema: "./node_modules/@lsp-seam/cli/lsp-seam.schema.json", servers: { x: server } })
        const loaded = yield* LspConfigFile.load({ workingDirectory: dir })
        assert.strictEqual(loaded.config.servers.x?.killGraceMs, 2000)
        assert.strictEqual(loaded.config.maxMemory, "25%")
        assert.deepStrictEqual(loaded.input, StdioConfig.encode(loaded.config))
      })
    ).pipe(Effect.provide(NodeContext.layer)))

  it.effect("names the file in every LSP_INVALID_CONFIG", () =>
    withDir((dir) =>
      Effect.gen(function*() {
        const file = NodePath.join(dir, "c.json")
        const failure = (content: unknown) => {
          write(file, content)
          return Effect.flip(LspConfigFile.load({ configFile: file, workingDirectory: dir }))
        }
        const notJson = yield* failure("{ servers")
        assert.strictEqual(notJson.code, "LSP_INVALID_CONFIG")
        assert.include(notJson.message, `The configuration file ${file} is not valid JSON`)

        const invalid = yield* failure({ servers: { x: { ...server, killGraceMs: 0 } } })
        assert.strictEqual(invalid.code, "LSP_INVALID_CONFIG")
        assert.isTrue(invalid.message.startsWith(`${file}: `))
        assert.include(invalid.message, "killGraceMs")
        assert.strictEqual(invalid.detail?.file, file)

        const budget = yield* failure({ maxMemory: "2 gigs", servers: { x: server } })
        assert.isTrue(budget.message.startsWith(`${file}: `))
        assert.include(budget.message, "maxMemory")
        assert.include(budget.message, "\"2GiB\"")

        const typo = yield* failure({ server: { x: server } })
        assert.include(typo.message, "server")

        const badSchema = yield* failure({ $schema: 1, servers: { x: server } })
        assert.include(badSchema.message, "\"$schema\" must be a string")

        const missing = yield* Effect.flip(
          LspConfigFile.load({ configFile: NodePath.join(dir, "nope.json"), workingDirectory: dir })
        )
        assert.strictEqual(missing.message, `The configuration file ${NodePath.join(dir, "nope.json")} does not exist.`)
      })
    ).pipe(Effect.provide(NodeContext.layer)))
})

const RootProperties = Schema.Struct({
  $defs: Schema.Struct({
    StdioConfig: Schema.Struct({ properties: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })
  })
})

describe("LspConfigFile.jsonSchema", () => {
  // The copy @lsp-seam/cli publishes (lsp-seam.schema.json) is generated from it; its docs test keeps it current.
  it("is StdioConfig's schema plus the file's own $schema and presetDefaults properties", () => {
    const properties = (schema: unknown) =>
      Schema.decodeUnknownSync(RootProperties)(schema).$defs.StdioConfig.properties
    assert.deepStrictEqual(Object.keys(properties(LspConfigFile.jsonSchema)).slice(0, 2), ["$schema", "presetDefaults"])
    const { $schema: _, presetDefaults: __, ...rest } = properties(LspConfigFile.jsonSchema)
    assert.deepStrictEqual(rest, properties(StdioConfig.jsonSchema))
  })
})
