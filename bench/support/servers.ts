/**
 * The servers the full-stack benchmarks run (the fake server script and typescript-language-server), the
 * workspaces they run in (temporary copies, never the fixtures themselves), the query sequences, and the
 * host configuration for each.
 */
import * as Schema from "effect/Schema"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import type { Query, ServerSpec } from "./rawClient.js"

const fixtures = fileURLToPath(new URL("../../packages/lsp-stdio/test/fixtures/", import.meta.url))

export const fakeServer: ServerSpec = {
  name: "fake",
  command: process.execPath,
  args: [Path.join(fixtures, "fake-server.mjs")],
  // Nothing recorded: recording appends to a file on every message and would dominate the figures.
  env: { FAKE_LSP: "{}" },
  extension: "fake",
  languageId: "fake",
  initializationOptions: null
}

export const typescriptServer: ServerSpec = {
  name: "typescript",
  command: process.execPath,
  args: [createRequire(import.meta.url).resolve("typescript-language-server/lib/cli.mjs"), "--stdio"],
  env: {},
  extension: "ts",
  languageId: "typescript",
  initializationOptions: {
    tsserver: { useSyntaxServer: "never" },
    disableAutomaticTypingAcquisition: true,
    preferences: { includePackageJsonAutoImports: "off" }
  }
}

/** The stdio host's configuration for one server, with the defaults of a real deployment. */
export const hostConfig = (spec: ServerSpec) => ({
  servers: {
    [spec.name]: {
      command: spec.command,
      args: spec.args,
      env: spec.env,
      extensionToLanguage: { [spec.extension]: spec.languageId },
      initializationOptions: spec.initializationOptions
    }
  }
})

/** The fake server answers every query by echoing its position; the four operations in turn. */
export const fakeQueries: ReadonlyArray<Query> = [
  { operation: "goToDefinition", file: "main.fake", position: { line: 1, character: 0 } },
  { operation: "findReferences", file: "main.fake", position: { line: 0, character: 4 } },
  { operation: "goToImplementation", file: "main.fake", position: { line: 1, character: 0 } },
  { operation: "hover", file: "main.fake", position: { line: 0, character: 4 } }
]

const Expected = Schema.Struct({
  queries: Schema.Array(Schema.Struct({
    operation: Schema.Literal("goToDefinition", "findReferences", "goToImplementation", "hover"),
    file: Schema.String,
    position: Schema.Struct({ line: Schema.Number, character: Schema.Number })
  }))
})

/** The queries whose answers the end-to-end test checks: every operation, aliases, non-BMP columns. */
export const typescriptQueries: ReadonlyArray<Query> = Schema.decodeUnknownSync(Expected)(
  JSON.parse(Fs.readFileSync(Path.join(fixtures, "ts-project.expected.json"), "utf8"))
).queries

const temporaryRoot = Fs.mkdtempSync(Path.join(Os.tmpdir(), "lsp-seam-bench-"))

/** Removes every workspace the bench created. */
export const removeWorkspaces = () => Fs.rmSync(temporaryRoot, { recursive: true, force: true })

let made = 0

/** A fresh workspace for the fake server: `main.fake`, plus any extra files. */
export const fakeWorkspace = (files: Record<string, string> = {}): string => {
  const root = Path.join(temporaryRoot, `fake-${made++}`)
  Fs.mkdirSync(root)
  for (const [name, text] of Object.entries({ "main.fake": "let x = 1\nx\n", ...files })) {
    Fs.writeFileSync(Path.join(root, name), text)
  }
  return Fs.realpathSync(root)
}

/** A fresh copy of the TypeScript fixture project, plus any extra files. */
export const typescriptWorkspace = (files: Record<string, string> = {}): string => {
  const root = Path.join(temporaryRoot, `ts-${made++}`)
  Fs.cpSync(Path.join(fixtures, "ts-project"), root, { recursive: true })
  for (const [name, text] of Object.entries(files)) Fs.writeFileSync(Path.join(root, name), text)
  return Fs.realpathSync(root)
}
