/**
 * The generated documentation: docs/config-catalog.md, docs/tool-catalog.md and the published JSON Schema
 * of lsp-seam.json, all rendered from the Schemas (and the presets) so they cannot drift. `npm run docgen`
 * writes them (scripts/docgen.ts); a test fails when a committed copy differs from what this renders.
 */
import { LspConfigFile } from "@lsp-seam/setup"
import { configCatalog } from "./configCatalog.js"
import { toolCatalog } from "./toolCatalog.js"

export { configCatalog } from "./configCatalog.js"
export { toolCatalog } from "./toolCatalog.js"

/** The published JSON Schema of lsp-seam.json. */
export const configSchema = (): string => `${JSON.stringify(LspConfigFile.jsonSchema, null, 2)}\n`

/** Every generated file, by path from the repository root. */
export const files = (): Readonly<Record<string, string>> => ({
  "docs/config-catalog.md": configCatalog(),
  "docs/tool-catalog.md": toolCatalog(),
  "packages/cli/lsp-seam.schema.json": configSchema()
})
