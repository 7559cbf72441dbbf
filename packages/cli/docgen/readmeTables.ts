/**
 * The tables of the READMEs that restate configuration, rendered from the Schemas and the presets like the
 * catalogs. Each lives between `<!-- docgen:NAME … -->` and `<!-- /docgen:NAME -->` in its README; `npm run
 * docgen` rewrites what is between, the rest of the README is left as written.
 */
import { LspPresets } from "@lsp-seam/setup"
import { hostFieldTable, serverFieldTable } from "./configCatalog.js"
import { cell } from "./markdown.js"
import { limitsTable } from "./toolCatalog.js"

// `["go.work", "go.mod"]`, as the README's prose writes a list of names.
const list = (value: unknown): string =>
  Array.isArray(value) ? `[${value.map(list).join(", ")}]` : JSON.stringify(value)

const presetRootMarkers = (): string =>
  [
    "| preset | rootMarkers |",
    "|---|---|",
    ...LspPresets.all.flatMap((preset) =>
      preset.server.rootMarkers === undefined
        ? []
        : [`| ${preset.title} (\`${preset.id}\`) | \`${cell(list(preset.server.rootMarkers))}\` |`]
    )
  ].join("\n")

/** The generated regions, by README (a path from the repository's root) and region name. */
export const regions: Readonly<Record<string, Readonly<Record<string, () => string>>>> = {
  "README.md": { "preset-root-markers": presetRootMarkers },
  "packages/lsp-stdio/README.md": { "server-fields": serverFieldTable, "host-fields": hostFieldTable },
  "packages/tool-lsp/README.md": { "tool-config": limitsTable }
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * `markdown` (the README `file`) with each of its regions rewritten. Throws when a region's markers are missing
 * or repeated: a README that lost them would otherwise silently stop being generated.
 */
export const fill = (file: string, markdown: string): string =>
  Object.entries(regions[file] ?? {}).reduce((text, [name, render]) => {
    const region = new RegExp(
      `(<!-- docgen:${escape(name)}\\b[^>]*-->\\n)[\\s\\S]*?(<!-- /docgen:${escape(name)} -->)`,
      "g"
    )
    const found = text.match(region)?.length ?? 0
    if (found !== 1) {
      throw new Error(`${file}: expected one <!-- docgen:${name} --> … <!-- /docgen:${name} --> region, found ${found}`)
    }
    return text.replace(region, (_, open: string, close: string) => `${open}${render()}\n${close}`)
  }, markdown)
