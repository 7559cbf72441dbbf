// Writes the generated documentation (docs/config-catalog.md, docs/tool-catalog.md, the configuration tables
// between <!-- docgen:… --> markers in the READMEs) and the published JSON Schema of lsp-seam.json from the
// Schemas. Run through `npm run docgen`, which builds first: the generator (packages/cli/docgen, not part of the
// published package) reads the packages as they are built.
import * as fs from "node:fs"
import * as path from "node:path"
import { files } from "../packages/cli/docgen/catalog.js"

const root = path.resolve(import.meta.dirname, "..")
for (const [file, content] of Object.entries(files())) {
  const target = path.join(root, file)
  const current = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : undefined
  if (current === content) continue
  fs.mkdirSync(path.dirname(target), { recursive: true })
  fs.writeFileSync(target, content)
  console.log(`wrote ${file}`)
}
