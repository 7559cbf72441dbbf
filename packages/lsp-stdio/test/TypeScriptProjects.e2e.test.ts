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
        // As the preset: files outside every tsconfig are opened for a cross-file question.
        looseFiles: { maxFiles: 100, maxBytes: 2_000_000 },
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

        // A workspace search with no file named: every project's class, none flagged.
        const search = yield* LspService.query({ operation: "workspaceSymbol", query: "Person", workspaceRoot: root })
        const classes = search.kind === "symbols"
          ? search.symbols.filter((symbol) => symbol.name === "Person").map((symbol) =>
            NodePath.relative(root, new URL(symbol.uri).pathname)
          ).sort()
          : []
        assert.deepStrictEqual(classes, apps.map((app) => `packages/${app}/src/main.ts`))
        assert.isUndefined(search.incomplete, JSON.stringify(search.incompleteReasons))
        NodeFs.rmSync(root, { recursive: true, force: true })
      }).pipe(
        Effect.provide(
          hostLayer({ maxProjects: 20, askEach: ["goToImplementation", "incomingCalls", "workspaceSymbol"] })
        )
      ),
    120_000
  )

  it.live(
    "a derived caller is the innermost function around the call: overloads, nested, in a namespace, arrow",
    () =>
      Effect.gen(function*() {
        const root = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "lsp-seam-callers-")))
        const write = (file: string, text: string) => {
          NodeFs.mkdirSync(NodePath.dirname(NodePath.join(root, file)), { recursive: true })
          NodeFs.writeFileSync(NodePath.join(root, file), text)
        }
        const tsconfig = JSON.stringify({ compilerOptions: { strict: true, types: [] }, include: ["src"] })
        write("packages/lib/tsconfig.json", tsconfig)
        write("packages/lib/src/index.ts", "export function greet(who: string): string {\n  return who\n}\n")
        write("packages/app/tsconfig.json", tsconfig)
        write(
          "packages/app/src/main.ts",
          [
            "import { greet } from \"../../lib/src/index.js\"",
            "",
            "export function pick(who: string): string",
            "export function pick(who: number): number",
            "export function pick(who: unknown) {",
            "  greet(String(who))",
            "  return who as never",
            "}",
            "export function outer() {",
            "  function inner() {",
            "    return greet(\"inner\")",
            "  }",
            "  return inner()",
            "}",
            "export namespace Space {",
            "  export class Box {",
            "    open() {",
            "      return greet(\"box\")",
            "    }",
            "  }",
            "}",
            "export const arrow = () => greet(\"arrow\")",
            "greet(\"module\")",
            ""
          ].join("\n")
        )
        const calls = yield* at(root, "incomingCalls", 0, 16)
        assert.deepStrictEqual(callers(root, calls), [
          "arrow packages/app/src/main.ts:21 from 21:27",
          "inner packages/app/src/main.ts:9 from 10:11",
          "main.ts packages/app/src/main.ts:0 from 22:0",
          "open packages/app/src/main.ts:16 from 17:13",
          "pick packages/app/src/main.ts:4 from 5:2"
        ])
        NodeFs.rmSync(root, { recursive: true, force: true })
      }).pipe(Effect.provide(hostLayer({ maxProjects: 20, askEach: ["incomingCalls"] }))),
    120_000
  )

  it.live("past maxProjects the answer names the projects it did not search", () =>
    Effect.gen(function*() {
      const root = makeMonorepo()
      const references = yield* at(root, "findReferences", 4, 16)
      // The queried file's project and the first other one are loaded; app2 and app3 are not.
      const reasons = LspResult.incompleteReasonsOf(references)
      assert.deepStrictEqual(reasons.map((r) => r.reason), ["projects-not-searched"])
      assert.include(reasons[0]!.message, "packages/app2/tsconfig.json, packages/app3/tsconfig.json")
      const found = places(root, references)
      assert.isTrue(found.every((place) => allReferences.includes(place)))
      assert.includeMembers(found, ["packages/app1/src/main.ts:9:9"])
      NodeFs.rmSync(root, { recursive: true, force: true })
    }).pipe(
      Effect.provide(hostLayer({ maxProjects: 2, askEach: ["goToImplementation", "incomingCalls", "workspaceSymbol"] }))
    ), 120_000)

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

/** This repository, the way an agent runs the tool: from its root, with its five packages' project references. */
const repository = NodePath.resolve(import.meta.dirname, "../../..")

/** Every use of `name` as a call in the packages' sources and tests, by a text search (path:line, zero-based). */
const textualCalls = (name: string) => {
  const found: Array<string> = []
  const visit = (relative: string) => {
    for (const entry of NodeFs.readdirSync(NodePath.join(repository, relative), { withFileTypes: true })) {
      const child = NodePath.join(relative, entry.name)
      if (entry.isDirectory() && !["node_modules", "dist", "build", "fixtures"].includes(entry.name)) visit(child)
      else if (entry.isFile() && entry.name.endsWith(".ts")) {
        NodeFs.readFileSync(NodePath.join(repository, child), "utf8").split("\n").forEach((line, index) => {
          const comment = /^\s*(\/\/|\*|\/\*)/.test(line)
          if (!comment && new RegExp(`\\b${name}\\(`).test(line)) found.push(`${child}:${index}`)
        })
      }
    }
  }
  for (const pkg of NodeFs.readdirSync(NodePath.join(repository, "packages"))) {
    for (const part of ["src", "test"]) {
      if (NodeFs.existsSync(NodePath.join(repository, "packages", pkg, part))) {
        visit(NodePath.join("packages", pkg, part))
      }
    }
  }
  return found
}

describe("this repository, from its root", () => {
  it.live("findReferences of a seam function reaches every package's sources and tests", () =>
    Effect.gen(function*() {
      // Defined with the other answer annotations; LspResult re-exports it.
      const file = "packages/lsp/src/internal/result/annotations.ts"
      const lines = NodeFs.readFileSync(NodePath.join(repository, file), "utf8").split("\n")
      const line = lines.findIndex((text) => text.startsWith("export const markIncomplete"))
      const references = yield* LspService.query({
        operation: "findReferences",
        filePath: file,
        position: { line, character: "export const ".length },
        workspaceRoot: repository
      })
      const found = new Set(places(repository, references).map((place) => place.split(":").slice(0, 2).join(":")))
      // Through `LspResult.markIncomplete(` or an import of it: every such call is a reference.
      const calls = textualCalls("markIncomplete").filter((call) =>
        !call.startsWith("packages/lsp/src/internal/result/annotations.ts")
      )
      assert.isAbove(calls.length, 10)
      assert.deepStrictEqual(calls.filter((call) => !found.has(call)), [])
      assert.isUndefined(references.incomplete, JSON.stringify(references.incompleteReasons))
    }).pipe(
      // The repository holds more projects than the preset's 20 (seven packages' source and test projects, the
      // bench, docgen and the test fixtures' own): all of them, so that the answer is complete.
      Effect.provide(
        hostLayer({ maxProjects: 40, askEach: ["goToImplementation", "incomingCalls", "workspaceSymbol"] })
      )
    ), 240_000)
})
