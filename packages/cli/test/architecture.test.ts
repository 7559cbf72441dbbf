/**
 * The house drawn from its imports: every relative import of every `packages/*\/src/**\/*.ts` (type-only imports,
 * re-exports and dynamic `import()` included, as TypeScript's own pre-processor reads them) is an edge, and the
 * graph must have no cycle. The command's test reads the whole house because the command sits above every
 * package. Beside it, the rule that keeps `src/internal` readable: no folder there holds more than 15 modules.
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const packages = fileURLToPath(new URL("../../", import.meta.url))

const walk = (dir: string): Array<string> =>
  NodeFs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = NodePath.join(dir, entry.name)
    return entry.isDirectory() ? walk(full) : entry.name.endsWith(".ts") ? [full] : []
  })

const sources = NodeFs.readdirSync(packages, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && NodeFs.existsSync(NodePath.join(packages, entry.name, "src")))
  .flatMap((entry) => walk(NodePath.join(packages, entry.name, "src")))

const name = (file: string): string => NodePath.relative(packages, file)

/** The modules a file imports by a relative path, as files (`./x.js` is `./x.ts`). */
const importsOf = (file: string): Array<string> =>
  ts.preProcessFile(NodeFs.readFileSync(file, "utf8"), true, true).importedFiles
    .map((imported) => imported.fileName)
    .filter((specifier) => specifier.startsWith("./") || specifier.startsWith("../"))
    .map((specifier) => NodePath.resolve(NodePath.dirname(file), specifier.replace(/\.js$/, ".ts")))

/** Every cycle a depth-first walk meets, each written `a -> b -> … -> a`. */
const cyclesOf = (graph: ReadonlyMap<string, ReadonlyArray<string>>): Array<string> => {
  const cycles: Array<string> = []
  const done = new Set<string>()
  const trail: Array<string> = []
  const visit = (file: string) => {
    const at = trail.indexOf(file)
    if (at >= 0) {
      cycles.push([...trail.slice(at), file].map(name).join(" -> "))
      return
    }
    if (done.has(file)) return
    trail.push(file)
    for (const next of graph.get(file) ?? []) visit(next)
    trail.pop()
    done.add(file)
  }
  for (const file of graph.keys()) visit(file)
  return cycles
}

describe("the house drawn from its imports", () => {
  const graph = new Map(sources.map((file) => [file, importsOf(file)]))

  it("reads every package's sources and resolves every relative import", () => {
    assert.isAbove(sources.length, 150)
    const missing = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => !graph.has(target)).map((target) => `${name(file)} imports ${name(target)}`)
    )
    assert.deepStrictEqual(missing, [])
  })

  it("has no import cycle between modules", () => {
    assert.deepStrictEqual(cyclesOf(graph), [])
  })

  it("finds a cycle when there is one", () => {
    const [a, b, c] = ["a.ts", "b.ts", "c.ts"].map((file) => NodePath.join(packages, file)) as [string, string, string]
    assert.deepStrictEqual(cyclesOf(new Map([[a, [b]], [b, [c]], [c, [a]]])), ["a.ts -> b.ts -> c.ts -> a.ts"])
    assert.deepStrictEqual(cyclesOf(new Map([[a, [b, c]], [b, [c]], [c, []]])), [])
  })

  it("keeps every folder under a package's src/internal to 15 modules at most", () => {
    const counts = new Map<string, number>()
    for (const file of sources) {
      const folder = NodePath.dirname(file)
      if (name(folder).split(NodePath.sep)[2] === "internal") counts.set(folder, (counts.get(folder) ?? 0) + 1)
    }
    assert.isAbove(counts.size, 10)
    const crowded = [...counts].filter(([, count]) => count > 15).map(([folder, count]) => `${name(folder)}: ${count}`)
    assert.deepStrictEqual(crowded, [])
  })
})
