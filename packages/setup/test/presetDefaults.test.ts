/**
 * A configuration file that runs a preset's server by its command, without the preset's settings: it gets them for
 * what it does not set itself. With the real typescript-language-server, a file without `useSyntaxServer: "never"`
 * answers definitions with the declaration (not the import line) and references with the declaration.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import * as LspConfigFile from "../src/LspConfigFile.js"
import * as LspPresets from "../src/LspPresets.js"
import * as LspSeam from "../src/LspSeam.js"
import { fakeServer, tempDir, workspace } from "./support.js"

/** The typescript-language-server executable of this repository's devDependencies. */
const typescriptLanguageServer = fileURLToPath(
  new URL("../../../node_modules/.bin/typescript-language-server", import.meta.url)
)

const withFile = <A, E, R>(content: unknown, f: (file: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const dir = tempDir("preset-defaults")
      const file = NodePath.join(dir, "lsp-seam.json")
      NodeFs.writeFileSync(file, JSON.stringify(content))
      return file
    }),
    f,
    (file) => Effect.sync(() => NodeFs.rmSync(NodePath.dirname(file), { recursive: true, force: true }))
  )

const load = (content: unknown) =>
  withFile(content, (file) => LspConfigFile.load({ configFile: file, workingDirectory: workspace }))

const tsServer = {
  command: "typescript-language-server",
  args: ["--stdio"],
  extensionToLanguage: { ".ts": "typescript" }
}

describe("preset defaults for a configuration file", () => {
  it.effect("a server run by a preset's command gets the preset's settings it does not set, and says which", () =>
    Effect.gen(function*() {
      const loaded = yield* load({
        servers: {
          ts: { ...tsServer, initializationOptions: { preferences: { quotePreference: "single" } }, projects: null },
          py: {
            command: "/opt/pyright/bin/pyright-langserver",
            args: ["--stdio"],
            extensionToLanguage: { ".py": "python" }
          },
          other: { command: process.execPath, args: [fakeServer], extensionToLanguage: { ".fake": "plaintext" } }
        }
      })
      const ts = loaded.config.servers.ts!
      const options = ts.initializationOptions as { readonly tsserver: unknown; readonly preferences: unknown }
      assert.deepStrictEqual(
        options.tsserver,
        (LspPresets.typescript.server.initializationOptions as { readonly tsserver: unknown }).tsserver
      )
      // Merged key by key: its own preference stays beside the preset's.
      assert.deepStrictEqual(options.preferences, { quotePreference: "single", includePackageJsonAutoImports: "off" })
      // What it sets, null too, is its own; the command, its arguments and its extensions are never the preset's.
      assert.isNull(ts.projects)
      assert.deepStrictEqual(ts.projectMarkers, ["tsconfig.json", "jsconfig.json"])
      assert.deepStrictEqual(ts.args, ["--stdio"])
      assert.deepStrictEqual(ts.extensionToLanguage, { ".ts": "typescript" })
      // Recognised by the command's file name, wherever it is installed.
      assert.strictEqual(
        loaded.config.servers.py!.readiness.readyLog,
        "^(Found \\d+ source files?|No source files found)"
      )
      assert.deepStrictEqual(loaded.config.servers.other!.projectMarkers, [])
      assert.deepStrictEqual(loaded.source._tag === "File" ? loaded.source.presetDefaults : undefined, [
        {
          serverId: "ts",
          presetId: "typescript",
          fields: [
            "initializationOptions.tsserver",
            "initializationOptions.disableAutomaticTypingAcquisition",
            "initializationOptions.preferences.includePackageJsonAutoImports",
            "projectMarkers",
            "looseFiles",
            "diagnosticsPull",
            "diagnosticsWait"
          ]
        },
        { serverId: "py", presetId: "python", fields: ["readiness", "rootMarkers", "excludedFiles"] }
      ])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("a server is recognised by its script too: the package's file, or Node's first argument", () =>
    Effect.gen(function*() {
      const loaded = yield* load({
        servers: {
          cli: {
            command: "/repo/node_modules/typescript-language-server/lib/cli.mjs",
            args: ["--stdio"],
            extensionToLanguage: { ".ts": "typescript" }
          },
          node: {
            command: process.execPath,
            args: ["node_modules/pyright/langserver.index.js", "--stdio"],
            extensionToLanguage: { ".py": "python" }
          },
          // Another package's cli.mjs is not the TypeScript server.
          other: { command: "/repo/node_modules/other/lib/cli.mjs", extensionToLanguage: { ".o": "plaintext" } }
        }
      })
      const applied = loaded.source._tag === "File" ? loaded.source.presetDefaults : []
      assert.deepStrictEqual(applied.map((entry) => [entry.serverId, entry.presetId]), [
        ["cli", "typescript"],
        ["node", "python"]
      ])
      assert.isNull(loaded.config.servers.other!.initializationOptions)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("\"presetDefaults\": false keeps every server exactly as written; anything but a boolean is refused", () =>
    Effect.gen(function*() {
      const loaded = yield* load({ presetDefaults: false, servers: { ts: tsServer } })
      assert.isNull(loaded.config.servers.ts!.initializationOptions)
      assert.deepStrictEqual(loaded.source._tag === "File" ? loaded.source.presetDefaults : undefined, [])
      const error = yield* Effect.flip(load({ presetDefaults: "no", servers: { ts: tsServer } }))
      assert.strictEqual(error.code, "LSP_INVALID_CONFIG")
      assert.include(error.message, "\"presetDefaults\" must be true or false")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.live(
    "a hand-written typescript-language-server answers definitions and references with the declaration",
    () =>
      Effect.gen(function*() {
        const loaded = yield* load({ servers: { ts: { ...tsServer, command: typescriptLanguageServer } } })
        const client = LspSeam.makeClient({ workingDirectory: workspace, config: loaded.input })
        const answers = yield* Effect.promise(async () => {
          try {
            // main.ts:7:42 is `Square` in `new Square(2)`, imported on line 3.
            const definition = await client.query({
              operation: "goToDefinition",
              file_path: "main.ts",
              line: 7,
              character: 42
            })
            const references = await client.query({
              operation: "findReferences",
              file_path: "main.ts",
              line: 7,
              character: 42
            })
            const hover = await client.query({ operation: "hover", file_path: "main.ts", line: 7, character: 42 })
            return { definition: definition.text, references: references.text, hover: hover.text }
          } finally {
            await client.close()
          }
        })
        assert.strictEqual(answers.definition, "square.ts:3:14\nsquare.ts:4:3")
        assert.include(answers.references.split("\n"), "square.ts:3:14")
        // Not the syntax server's `import Square`: the constructor, with its parameter.
        assert.include(answers.hover, "new Square(side")
      }).pipe(Effect.provide(NodeContext.layer)),
    60_000
  )
})
