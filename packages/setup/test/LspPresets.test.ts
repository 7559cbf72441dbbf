import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { LspExtension } from "@lsp-seam/lsp"
import { StdioConfig } from "@lsp-seam/lsp-stdio"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as LspPresets from "../src/LspPresets.js"
import { tempDir } from "./support.js"

const TypeScriptOptions = Schema.Struct({
  tsserver: Schema.Struct({ useSyntaxServer: Schema.String, fallbackPath: Schema.String }),
  disableAutomaticTypingAcquisition: Schema.Boolean
})

const allServers = { servers: Object.fromEntries(LspPresets.all.map((preset) => [preset.id, preset.server])) }

describe("LspPresets", () => {
  it("all presets together are one valid configuration (so extensions never overlap)", () => {
    assert.isTrue(Either.isRight(StdioConfig.decodeEither(allServers)))
  })

  it("cover the languages of the design, each extension once", () => {
    const extensions = LspPresets.all.flatMap((preset) =>
      Object.keys(preset.server.extensionToLanguage).map((key) =>
        Either.getOrThrow(LspExtension.normalizeExtensionKey(key))
      )
    )
    assert.strictEqual(new Set(extensions).size, extensions.length)
    for (const ext of [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".py", ".sh", ".json", ".css"]) {
      assert.include(extensions, ext)
    }
    for (const ext of [".html", ".yaml", ".yml", ".c", ".cpp", ".h", ".go", ".rs"]) assert.include(extensions, ext)
  })

  it("run the TypeScript server of this package with the same Node, never the syntax server", () => {
    const server = LspPresets.typescript.server
    assert.strictEqual(server.command, process.execPath)
    assert.isTrue(NodeFs.existsSync(server.args![0]!))
    assert.isTrue(server.args![0]!.endsWith("typescript-language-server/lib/cli.mjs"))
    assert.deepStrictEqual(server.args?.slice(1), ["--stdio"])
    const options = Schema.decodeUnknownSync(TypeScriptOptions)(server.initializationOptions)
    assert.strictEqual(options.tsserver.useSyntaxServer, "never")
    assert.isTrue(NodeFs.existsSync(options.tsserver.fallbackPath))
    assert.isTrue(options.disableAutomaticTypingAcquisition)
  })

  it("keep servers that could download things offline", () => {
    const byId = new Map(LspPresets.all.map((preset) => [preset.id, preset.server]))
    assert.deepStrictEqual(byId.get("json")?.initializationOptions, {
      handledSchemaProtocols: ["file"],
      provideFormatter: false
    })
    assert.deepStrictEqual(byId.get("yaml")?.configuration, {
      schemaStore: { enable: false },
      kubernetesCRDStore: { enable: false }
    })
    assert.strictEqual(byId.get("go")?.env?.GOPROXY, "off")
    assert.strictEqual(byId.get("rust")?.env?.CARGO_NET_OFFLINE, "true")
  })

  it.effect("are active when their command is an executable file on PATH, and only then", () =>
    Effect.gen(function*() {
      const dir = tempDir("path")
      const executable = NodePath.join(dir, "gopls")
      NodeFs.writeFileSync(executable, "#!/bin/sh\n", { mode: 0o755 })
      NodeFs.writeFileSync(NodePath.join(dir, "clangd"), "not executable\n", { mode: 0o644 })
      NodeFs.mkdirSync(NodePath.join(dir, "pyright-langserver"))
      const detections = yield* LspPresets.detect({ PATH: ["relative/dir", "", dir].join(NodePath.delimiter) })
      NodeFs.rmSync(dir, { recursive: true, force: true })
      const active = detections.filter((d) => Option.isSome(d.executable)).map((d) => d.preset.id)
      assert.deepStrictEqual(active, ["typescript", "go"])
      assert.deepStrictEqual(detections.find((d) => d.preset.id === "go")?.executable, Option.some(executable))
      assert.deepStrictEqual(Object.keys(LspPresets.toConfig(detections).servers), ["typescript", "go"])
    }).pipe(Effect.provide(NodeContext.layer)))
})
