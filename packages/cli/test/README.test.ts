import { assert, describe, it } from "@effect/vitest"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"

// The root README's promises that can drift: the quick-start position, the shown output (its TypeScript
// examples are compiled and run by examples.e2e.test.ts).
const root = fileURLToPath(new URL("../../../", import.meta.url))
const readme = NodeFs.readFileSync(NodePath.join(root, "README.md"), "utf8")

const blocks = (language: string) =>
  Array.from(readme.matchAll(new RegExp("^```" + language + "\\n([\\s\\S]*?)^```$", "gm")), (m) => m[1]!)

describe("README", () => {
  it("starts with two commands: install and query a symbol of this repository, then npm test", () => {
    const quickStart = blocks("sh")[0]!.trimEnd().split("\n")
    assert.strictEqual(quickStart.length, 2)
    assert.strictEqual(quickStart[1], "npm test")
    const match = /^npm ci && npx lsp-seam query hover (\S+):(\d+):(\d+)$/.exec(quickStart[0]!)
    assert.isNotNull(match)
    const [, file, line, character] = match!
    const text = NodeFs.readFileSync(NodePath.join(root, file!), "utf8").split("\n")[Number(line) - 1]!
    // The position is on the `query` accessor, whose hover the README shows.
    assert.isTrue(text.slice(Number(character) - 1).startsWith("query"), text)
    assert.include(readme, "Queries the `LspService` in context.")
  })

  it("shows the findReferences output the end-to-end test expects", () => {
    assert.include(
      readme,
      "$ npx lsp-seam query findReferences shape.ts:7:14 --cwd packages/cli/test/fixtures/ts-workspace\n" +
        "shape.ts:7:14\nmain.ts:1:10\nmain.ts:3:35\nmain.ts:3:50\n"
    )
  })

  it("shows the --symbol example the end-to-end test expects", () => {
    assert.include(
      readme,
      "$ npx lsp-seam query findReferences shape.ts:7 --symbol Circle --cwd packages/cli/test/fixtures/ts-workspace\n" +
        "Resolved `Circle` to shape.ts:7:14.\nshape.ts:7:14\nmain.ts:1:10\nmain.ts:3:35\nmain.ts:3:50\n"
    )
    assert.include(readme, "lsp-seam query <operation> <file>:<line>[:<character>] [--symbol NAME]")
  })

  it("shows the documentSymbol and incomingCalls output the end-to-end tests expect, and the new forms", () => {
    assert.include(
      readme,
      "$ npx lsp-seam query documentSymbol shape.ts --cwd packages/cli/test/fixtures/ts-workspace\n" +
        "shape.ts:2:18  Interface  Shape\n  shape.ts:3:3  Method  Shape.area\nshape.ts:7:14  Class  Circle\n" +
        "  shape.ts:8:3  Constructor  Circle.constructor\n  shape.ts:8:24  Property  Circle.radius\n" +
        "  shape.ts:10:3  Method  Circle.area\n"
    )
    assert.include(
      readme,
      "$ npx lsp-seam query incomingCalls shape.ts:10:3 --cwd packages/cli/test/fixtures/ts-workspace\n" +
        "Calls to area (Method) at shape.ts:10:3:\nmain.ts  main.ts:1:1\n  main.ts:5:64\n"
    )
    assert.include(readme, "lsp-seam query documentSymbol <file> [--cwd DIR]")
    assert.include(readme, "lsp-seam query workspaceSymbol <query> [--file FILE] [--cwd DIR]")
  })

  it("shows the impact form and the tree the end-to-end test expects", () => {
    assert.include(readme, "lsp-seam query impact <file>:<line>[:<character>] [--symbol NAME] [--depth N]")
    assert.include(
      readme,
      "$ npx lsp-seam query impact src/parse.ts:2:17 --cwd packages/cli/test/fixtures/impact-workspace\n" +
        "Impact of parse (Function) src/parse.ts:2 — "
    )
    assert.include(
      readme,
      "load (Function) src/load.ts:3 — 1 use: line 4\n  main (Function) src/main.ts:3 — 1 call: line 4\n" +
        "    run (Function) src/main.ts:7 — 1 call: line 8\n"
    )
    assert.include(readme, "Test files to run: test/load.test.ts, test/parse.test.ts.\n")
  })
})
