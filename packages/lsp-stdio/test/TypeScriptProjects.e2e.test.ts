/**
 * A TypeScript monorepo without a solution tsconfig, queried from its root as an agent does: a library and
 * three apps, each its own project, each app implementing the library's interface and calling its function.
 * tsserver alone answers from the projects it has loaded (references) or from the queried file's project
 * (implementations, callers); with `projects` the host loads every project and asks the others, so every answer
 * is complete — or, past `maxProjects`, says which projects it did not search.
 */
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { LspResult, LspService } from "@lsp-seam/lsp"
import { Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import { createRequire } from "node:module"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as LspStdio from "../src/LspStdio.js"
import type * as StdioConfig from "../src/StdioConfig.js"

const require = createRequire(import.meta.url)
const server = require.resolve("typescript-language-server/lib/cli.mjs")
const apps = ["app1", "app2", "app3"]

const makeMonorepo = () => {
  const root = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "lsp-seam-projects-")))
  const write = (file: string, text: string) => {
    NodeFs.mkdirSync(NodePath.dirname(NodePath.join(root, file)), { recursive: true })
    NodeFs.writeFileSync(NodePath.join(root, file), text)
  }
  const tsconfig = JSON.stringify({
    // A comment and a trailing comma, as tsconfig.json allows: the host still reads `include`.
    compilerOptions: { strict: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", types: [] },
    include: ["src"]
  })
  const withComment = `// the project\n${tsconfig.slice(0, -1)},\n}\n`
  write("package.json", "{\"name\": \"mono\", \"private\": true}\n")
  write("packages/lib/tsconfig.json", withComment)
  write(
    "packages/lib/src/index.ts",
    "export interface Named {\n  name(): string\n}\n\nexport function greet(who: Named): string {\n" +
      "  return `hello ${who.name()}`\n}\n"
  )
  for (const app of apps) {
    write(`packages/${app}/tsconfig.json`, withComment)
    // Sorts before src/ and is outside the project's `include`: opening it would not load the project.
    write(`packages/${app}/a.config.ts`, "export const port = 1\n")
    write(
      `packages/${app}/src/main.ts`,
      `import { greet, type Named } from "../../lib/src/index.js"\n\nexport class Person implements Named {\n` +
        `  name(): string {\n    return "${app}"\n  }\n}\n\nexport function run(): string {\n` +
        `  return greet(new Person())\n}\n\nexport const label = "greet"\n`
    )
  }
  return root
}

const hostLayer = (projects: StdioConfig.Projects | null) =>
  LspStdio.layer({
    servers: {
      typescript: {
        command: process.execPath,
        args: [server, "--stdio"],
        extensionToLanguage: { ".ts": "typescript" },
        initializationOptions: {
          tsserver: { useSyntaxServer: "never" },
          disableAutomaticTypingAcquisition: true
        },
        projectMarkers: ["tsconfig.json", "jsconfig.json"],
        projects
      }
    }
  }).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer))

const at = (
  root: string,
  operation: "findReferences" | "goToImplementation" | "incomingCalls",
  line: number,
  character: number
) =>
  LspService.query({
    operation,
    filePath: "packages/lib/src/index.ts",
    position: { line, character },
    workspaceRoot: root
  })

const places = (root: string, result: LspResult.LspQueryResult) =>
  result.kind === "locations"
    ? result.locations.map((l) =>
      `${NodePath.relative(root, new URL(l.uri).pathname)}:${l.range.start.line}:${l.range.start.character}`
    ).sort()
    : []

const callers = (root: string, result: LspResult.LspQueryResult) =>
  result.kind === "calls"
    ? result.calls.map((c) =>
      `${c.name} ${NodePath.relative(root, new URL(c.uri).pathname)}:${c.selectionRange.start.line} from ${
        c.fromRanges.map((r) => `${r.start.line}:${r.start.character}`).join(",")
      }`
    ).sort()
    : []

// greet is declared at 4:16; each app imports it at 0:9 and calls it at 9:9.
const allReferences = [
  "packages/lib/src/index.ts:4:16",
  ...apps.flatMap((app) => [`packages/${app}/src/main.ts:0:9`, `packages/${app}/src/main.ts:9:9`])
].sort()

describe("several TypeScript projects in one workspace", () => {
  it.live(
    "every project is searched: references, implementations and callers from all of them",
    () =>
      Effect.gen(function*() {
        const root = makeMonorepo()
        const references = yield* at(root, "findReferences", 4, 16)
        assert.deepStrictEqual(places(root, references), allReferences)
        assert.isUndefined(references.incomplete)

        const implementations = yield* at(root, "goToImplementation", 1, 2)
        assert.deepStrictEqual(places(root, implementations), apps.map((app) => `packages/${app}/src/main.ts:3:2`))
        assert.isUndefined(implementations.incomplete)

        // Callers in other projects are derived from references: the import and the string "greet" are not calls.
        const calls = yield* at(root, "incomingCalls", 4, 16)
        assert.deepStrictEqual(callers(root, calls), apps.map((app) => `run packages/${app}/src/main.ts:8 from 9:9`))
        assert.isUndefined(calls.incomplete)
        NodeFs.rmSync(root, { recursive: true, force: true })
      }).pipe(Effect.provide(hostLayer({ maxProjects: 20, askEach: ["goToImplementation", "incomingCalls"] }))),
    120_000
  )

  it.live("past maxProjects the answer names the projects it did not search", () =>
    Effect.gen(function*() {
      const root = makeMonorepo()
      const references = yield* at(root, "findReferences", 4, 16)
      // The queried file's project and the first other one are loaded; app2 and app3 are not.
      const reasons = LspResult.incompleteReasonsOf(references)
      assert.deepStrictEqual(reasons.map((r) => r.reason), ["projects-not-searched"])
      assert.include(reasons[0]!.message, "packages/app2, packages/app3")
      const found = places(root, references)
      assert.isTrue(found.every((place) => allReferences.includes(place)))
      assert.includeMembers(found, ["packages/app1/src/main.ts:9:9"])
      NodeFs.rmSync(root, { recursive: true, force: true })
    }).pipe(Effect.provide(hostLayer({ maxProjects: 2, askEach: ["goToImplementation", "incomingCalls"] }))), 120_000)

  it.live(
    "without `projects`, tsserver alone misses the other projects (what the setting is for)",
    () =>
      Effect.gen(function*() {
        const root = makeMonorepo()
        const implementations = yield* at(root, "goToImplementation", 1, 2)
        assert.isBelow(places(root, implementations).length, apps.length)
        NodeFs.rmSync(root, { recursive: true, force: true })
      }).pipe(Effect.provide(hostLayer(null))),
    120_000
  )
})
