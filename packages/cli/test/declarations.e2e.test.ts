/**
 * A library built on lsp-seam: the six library packages packed (`npm pack`), installed from their tarballs into
 * a fresh project beside the pinned `effect` and `@effect/*` peers, then `test/fixtures/declarations/index.ts`
 * compiled with `strict` and `declaration: true`. Its exports have inferred types from each package, so tsc can
 * write their declarations only if every module those types live in can be named by a package path
 * (`@lsp-seam/lsp/LspError`), as Effect's packages export theirs; otherwise it fails with TS2742. Each public
 * module (a file at the top of a package's `src`) is imported by its path, checked to be the very module the
 * index re-exports, and `internal/*` stays closed. The application brings its own TypeScript (another version than
 * this repository's): it is the only copy installed, none nested under a library. No skip: an unreachable registry
 * fails the test.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { scopedTempDir } from "./support/cli.js"
import { install, installed, pack, pinnedPeers, root, run, tsc } from "./support/packed.js"

const libraries = ["lsp", "lsp-stdio", "lsp-remote", "lsp-cluster", "tool-lsp", "setup"] as const
// Outside the ~5.9 this repository pins: a library that pinned TypeScript would bring a second copy beside it.
const appTypeScript = "5.8.3"
const fixture = NodePath.join(import.meta.dirname, "fixtures", "declarations")

interface PublicModule {
  /** The path a user imports, `@lsp-seam/lsp/LspService`. */
  readonly specifier: string
  /** The package's index, when it re-exports the module as a namespace of the module's name. */
  readonly index: string | undefined
  readonly name: string
}

// A package's public modules: the files at the top of its src, the index excepted.
const publicModules = (library: string): ReadonlyArray<PublicModule> => {
  const src = NodePath.join(root, "packages", library, "src")
  const index = NodeFs.readFileSync(NodePath.join(src, "index.ts"), "utf8")
  return NodeFs.readdirSync(src).filter((file) => file.endsWith(".ts") && file !== "index.ts").map((file) => {
    const name = file.slice(0, -".ts".length)
    return {
      specifier: `@lsp-seam/${library}/${name}`,
      index: index.includes(`export * as ${name} from "./${name}.js"`) ? `@lsp-seam/${library}` : undefined,
      name
    }
  })
}

// A program that imports every public module by its path and prints, for each, whether it is the module the
// package's index re-exports (true), or not re-exported there (null). It also exports a copy of each module's
// values, whose declaration spells out every value's type: a type a public value borrows from an internal
// module cannot be named there (TS2742).
const pathsProgram = (modules: ReadonlyArray<PublicModule>): string =>
  [
    ...modules.flatMap((module, i) => [
      `import * as m${i} from "${module.specifier}"`,
      ...(module.index === undefined ? [] : [`import { ${module.name} as i${i} } from "${module.index}"`]),
      `export const values${i} = { ...m${i} }`
    ]),
    "console.log(JSON.stringify({",
    ...modules.map((module, i) =>
      `  "${module.specifier}": ${module.index === undefined ? "null" : `m${i} === i${i}`},`
    ),
    "}))",
    ""
  ].join("\n")

const Same = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.NullOr(Schema.Boolean) }))

describe("a library built on the packed libraries, with declaration: true", () => {
  it.scopedLive(
    "compiles: every type it exports is named by a public module path; each module imports by its path",
    () =>
      Effect.gen(function*() {
        const dir = yield* scopedTempDir("declarations")
        const app = NodePath.join(dir, "app")
        NodeFs.mkdirSync(app)

        const packed = yield* pack(libraries, dir)
        assert.strictEqual(packed.length, libraries.length)
        NodeFs.writeFileSync(
          NodePath.join(app, "package.json"),
          JSON.stringify({ name: "declarations-app", private: true, type: "module" })
        )
        // Only compiled and loaded, never run against a database: no native builds (better-sqlite3).
        yield* install(app, [
          ...packed,
          ...pinnedPeers(libraries),
          `@types/node@${installed("@types/node").version}`,
          // The application's own TypeScript, not the one this repository runs: it must be the only copy.
          `typescript@${appTypeScript}`
        ], { ignoreScripts: true })
        const modulesDir = NodePath.join(app, "node_modules")
        const typescriptVersion = NodeFs.readFileSync(NodePath.join(modulesDir, "typescript", "package.json"), "utf8")
        assert.include(typescriptVersion, `"version": "${appTypeScript}"`)
        const nested = libraries.filter((name) =>
          NodeFs.existsSync(NodePath.join(modulesDir, "@lsp-seam", name, "node_modules", "typescript"))
        )
        assert.deepStrictEqual(nested, [])

        const modules = libraries.flatMap(publicModules)
        assert.includeMembers(modules.map((module) => module.specifier), [
          "@lsp-seam/lsp/LspService",
          "@lsp-seam/lsp/LspError",
          "@lsp-seam/lsp/testing",
          "@lsp-seam/lsp-stdio/StdioConfig",
          "@lsp-seam/tool-lsp/LspToolHandler",
          "@lsp-seam/setup/LspSeam",
          "@lsp-seam/setup/remote"
        ])
        for (const file of ["index.ts", "tsconfig.json"]) {
          NodeFs.copyFileSync(NodePath.join(fixture, file), NodePath.join(app, file))
        }
        NodeFs.writeFileSync(NodePath.join(app, "paths.ts"), pathsProgram(modules))
        yield* run(process.execPath, [tsc, "-p", NodePath.join(app, "tsconfig.json")], app)

        // The declarations name lsp-seam's types by module path (the host's status tag, which index.ts never
        // imports), never by a file inside a package.
        const declarations = NodeFs.readFileSync(NodePath.join(app, "dist", "index.d.ts"), "utf8")
        assert.include(declarations, `import("@lsp-seam/lsp-stdio/StdioStatus").StdioStatus`)
        assert.notMatch(declarations, /@lsp-seam\/[a-z-]+\/(dist|src)\//)

        const same = Schema.decodeUnknownSync(Same)(
          yield* run(process.execPath, [NodePath.join(app, "dist", "paths.js")], app)
        )
        assert.deepStrictEqual(
          same,
          Object.fromEntries(modules.map((module) => [module.specifier, module.index === undefined ? null : true]))
        )

        const internal = yield* Effect.flip(run(process.execPath, [
          "--input-type=module",
          "--eval",
          `await import("@lsp-seam/lsp-stdio/internal/host/host.js")`
        ], app))
        assert.include(internal.message, "ERR_PACKAGE_PATH_NOT_EXPORTED")
      }),
    { timeout: 600_000 }
  )
})
