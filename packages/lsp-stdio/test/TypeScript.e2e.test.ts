import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { LspIdentifiers, LspService } from "@lsp-seam/lsp"
import { Effect, Layer, Schema } from "effect"
import * as NodeFs from "node:fs"
import { createRequire } from "node:module"
import * as NodePath from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as LspStdio from "../src/LspStdio.js"

// Answers measured against typescript-language-server for the fixture project (see the JSON's comments).
const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url))
const project = NodePath.join(fixtures, "ts-project")

const Position = Schema.Struct({ line: Schema.Number, character: Schema.Number })
const Expected = Schema.Struct({
  queries: Schema.Array(Schema.Struct({
    name: Schema.String,
    operation: Schema.Literal("goToDefinition", "findReferences", "goToImplementation", "hover"),
    file: Schema.String,
    position: Position,
    locations: Schema.optional(Schema.Array(Schema.Tuple(Schema.String, Schema.Number, Schema.Number))),
    hover: Schema.optional(
      Schema.Struct({ contains: Schema.String, range: Schema.Struct({ start: Position, end: Position }) })
    )
  })),
  negativeProbes: Schema.Array(Schema.Struct({
    name: Schema.String,
    operation: Schema.Literal("goToDefinition", "hover"),
    file: Schema.String,
    position: Position
  }))
})
const expected = Schema.decodeUnknownSync(Expected)(
  JSON.parse(NodeFs.readFileSync(NodePath.join(fixtures, "ts-project.expected.json"), "utf8"))
)

const server = createRequire(import.meta.url).resolve("typescript-language-server/lib/cli.mjs")

const config = {
  servers: {
    typescript: {
      command: process.execPath,
      args: [server, "--stdio"],
      extensionToLanguage: { ts: "typescript" },
      initializationOptions: {
        tsserver: { useSyntaxServer: "never" },
        disableAutomaticTypingAcquisition: true,
        preferences: { includePackageJsonAutoImports: "off" }
      }
    }
  }
}

const HostLayer = LspStdio.layer(config).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer))

const projectUri = pathToFileURL(NodeFs.realpathSync(project)).href
const relative = (uri: string) => uri.startsWith(projectUri + "/") ? uri.slice(projectUri.length + 1) : uri

layer(HostLayer, { timeout: "120 seconds" })("typescript-language-server end to end", (it) => {
  for (const q of expected.queries) {
    it.effect(
      `${q.name}: ${q.operation} ${q.file}:${q.position.line}:${q.position.character}`,
      () =>
        Effect.gen(function*() {
          const result = yield* LspService.query({
            operation: q.operation,
            filePath: q.file,
            position: q.position,
            workspaceRoot: project
          })
          if (q.locations !== undefined) {
            assert.strictEqual(result.kind, "locations")
            if (result.kind !== "locations") return
            assert.strictEqual(result.resolvedWorkspaceUri, projectUri)
            assert.deepStrictEqual(
              result.locations.map((l) => [relative(l.uri), l.range.start.line, l.range.start.character]),
              q.locations.map((l) => [...l])
            )
          }
          if (q.hover !== undefined) {
            assert.strictEqual(result.kind, "hover")
            if (result.kind !== "hover") return
            assert.include(result.hover?.contents ?? "", q.hover.contains)
            assert.deepStrictEqual(result.hover?.range, q.hover.range)
          }
        }),
      { timeout: 60_000 }
    )
  }

  for (const probe of expected.negativeProbes) {
    it.effect(`${probe.name}: a code-point column finds nothing (columns are UTF-16)`, () =>
      Effect.gen(function*() {
        const result = yield* LspService.query({
          operation: probe.operation,
          filePath: probe.file,
          position: probe.position,
          workspaceRoot: project
        })
        const { offIdentifier, ...answer } = result
        assert.deepStrictEqual(
          answer,
          probe.operation === "hover"
            ? { kind: "hover", hover: null }
            : { kind: "locations", locations: [], resolvedWorkspaceUri: projectUri }
        )
        // An empty answer off any identifier lists the line's (UTF-16 columns); on one (here a keyword), it
        // is just empty.
        const lines = LspIdentifiers.splitLines(NodeFs.readFileSync(NodePath.join(project, probe.file), "utf8"))
        assert.deepStrictEqual(offIdentifier, LspIdentifiers.offIdentifier(lines, probe.position))
      }))
  }
})
