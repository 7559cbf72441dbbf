/**
 * The generated documentation: docs/config-catalog.md, docs/tool-catalog.md, the published JSON Schema of
 * lsp-seam.json and the configuration tables of the READMEs, all rendered from the Schemas (and the presets) so
 * they cannot drift. `npm run docgen` writes them (scripts/docgen.ts); a test fails when a committed copy differs
 * from what this renders.
 */
import { LspConfigFile } from "@lsp-seam/setup"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { configCatalog } from "./configCatalog.js"
import * as ReadmeTables from "./readmeTables.js"
import { toolCatalog } from "./toolCatalog.js"

export { configCatalog } from "./configCatalog.js"
export { toolCatalog } from "./toolCatalog.js"

/** The published JSON Schema of lsp-seam.json. */
export const configSchema = (): string => `${JSON.stringify(LspConfigFile.jsonSchema, null, 2)}\n`

const root = NodePath.resolve(import.meta.dirname, "..", "..", "..")

/**
 * Every generated file, by path from the repository root: a README as it is now with its generated regions
 * rendered again.
 */
export const files = (): Readonly<Record<string, string>> => ({
  "docs/config-catalog.md": configCatalog(),
  "docs/tool-catalog.md": toolCatalog(),
  "packages/cli/lsp-seam.schema.json": configSchema(),
  ...Object.fromEntries(
    Object.keys(ReadmeTables.regions).map((file) => [
      file,
      ReadmeTables.fill(file, NodeFs.readFileSync(NodePath.join(root, file), "utf8"))
    ])
  )
})
