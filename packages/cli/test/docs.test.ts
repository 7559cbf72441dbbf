import { assert, describe, it } from "@effect/vitest"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import * as Catalog from "../docgen/catalog.js"
import * as ReadmeTables from "../docgen/readmeTables.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))

describe("generated documentation", () => {
  for (const [file, content] of Object.entries(Catalog.files())) {
    it(`${file} is what the Schemas render (run npm run docgen after changing them)`, () => {
      const committed = NodeFs.readFileSync(NodePath.join(root, file), "utf8")
      assert.strictEqual(committed, content, `${file} is out of date: run npm run docgen`)
    })
  }

  it("covers every server field, every preset, every tool argument, limit and error code", () => {
    const config = Catalog.configCatalog()
    for (const field of ["command", "extensionToLanguage", "args", "env", "initializationOptions", "killGraceMs"]) {
      assert.include(config, `| \`${field}\` |`)
    }
    for (const id of ["typescript", "python", "bash", "json", "css", "html", "yaml", "c-cpp", "go", "rust"]) {
      assert.include(config, `| \`${id}\` |`)
    }
    const tool = Catalog.toolCatalog()
    for (const name of ["operation", "file_path", "line", "character", "maxLocations", "maxResultChars", "timeoutMs"]) {
      assert.include(tool, `| \`${name}\` |`)
    }
    assert.include(tool, "| `LSP_TIMEOUT` |")
    assert.include(tool, "| `LSP_INVALID_ARGUMENTS` |")
  })

  it("writes the READMEs' configuration tables: an edited row is rewritten, a lost marker is an error", () => {
    const file = "packages/lsp-stdio/README.md"
    const committed = NodeFs.readFileSync(NodePath.join(root, file), "utf8")
    for (const field of ["command", "rootMarkers", "projects", "readiness", "maxServers", "maxMemory"]) {
      assert.include(committed, `| \`${field}\` |`)
    }
    const edited = committed.replace("| `maxServers` | an integer from 1 to 1000 | `32` |", "| `maxServers` | | `8` |")
    assert.notStrictEqual(edited, committed)
    assert.strictEqual(ReadmeTables.fill(file, edited), committed)
    assert.throws(
      () => ReadmeTables.fill(file, committed.replace("<!-- /docgen:server-fields -->", "")),
      /server-fields/
    )
    assert.include(NodeFs.readFileSync(NodePath.join(root, "packages/tool-lsp/README.md"), "utf8"), "| `timeoutMs` |")
  })

  it("shows preset commands without this machine's paths", () => {
    const config = Catalog.configCatalog()
    assert.notInclude(config, process.execPath)
    assert.notInclude(config, root)
  })
})
