/**
 * An open-source TypeScript monorepo for the counts of bench/monorepoCounts.ts, assembled in a temporary
 * directory from packages this repository already installs: seven packages of the Effect monorepo
 * (github.com/Effect-TS/effect, MIT), whose npm releases ship their TypeScript sources in `src/`. Nothing is
 * downloaded and nothing of theirs is committed here. The published packages carry no tsconfig files, so the
 * monorepo's layout is rebuilt the way such repositories are set up: one tsconfig project per package, and
 * `paths` in a shared base that map each package's name to its sources, so a use in one package of another's
 * export is a use in source, across projects.
 */
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"

const require = createRequire(import.meta.url)

/** The packages, by their npm name, and the directory each gets under `packages/`. */
const packages: ReadonlyArray<{ readonly name: string; readonly directory: string }> = [
  { name: "effect", directory: "effect" },
  { name: "@effect/platform", directory: "platform" },
  { name: "@effect/experimental", directory: "experimental" },
  { name: "@effect/rpc", directory: "rpc" },
  { name: "@effect/sql", directory: "sql" },
  { name: "@effect/workflow", directory: "workflow" },
  { name: "@effect/cluster", directory: "cluster" }
]

/** Where an installed package lives (its package.json's directory). */
const installed = (name: string): string => Path.dirname(require.resolve(`${name}/package.json`))

export interface EffectMonorepo {
  /** The repository's root, to query from. */
  readonly root: string
  /** Each package with the version its sources come from, e.g. `effect 3.22.4`. */
  readonly versions: ReadonlyArray<string>
  /** Removes the directory. */
  readonly remove: () => void
}

/** Builds the monorepo in a fresh temporary directory. */
export const make = (): EffectMonorepo => {
  const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "lsp-seam-effect-monorepo-"))
  const versions: Array<string> = []
  const paths: Record<string, Array<string>> = {}
  for (const { directory, name } of packages) {
    const from = installed(name)
    const manifest: unknown = JSON.parse(Fs.readFileSync(Path.join(from, "package.json"), "utf8"))
    const version = typeof manifest === "object" && manifest !== null && "version" in manifest
      ? String(manifest.version)
      : "?"
    versions.push(`${name} ${version}`)
    const to = Path.join(root, "packages", directory)
    Fs.cpSync(Path.join(from, "src"), Path.join(to, "src"), {
      recursive: true,
      filter: (source) => Fs.statSync(source).isDirectory() || source.endsWith(".ts")
    })
    Fs.writeFileSync(Path.join(to, "package.json"), JSON.stringify({ name, version, private: true }, null, 2))
    Fs.writeFileSync(
      Path.join(to, "tsconfig.json"),
      JSON.stringify({ extends: "../../tsconfig.base.json", include: ["src"] }, null, 2)
    )
    paths[name] = [`./packages/${directory}/src/index.ts`]
    paths[`${name}/*`] = [`./packages/${directory}/src/*.ts`]
  }
  Fs.writeFileSync(
    Path.join(root, "tsconfig.base.json"),
    JSON.stringify(
      {
        compilerOptions: {
          strict: true,
          exactOptionalPropertyTypes: true,
          target: "ES2022",
          module: "ESNext",
          moduleResolution: "Bundler",
          lib: ["ES2022", "DOM", "DOM.Iterable"],
          types: [],
          noEmit: true,
          skipLibCheck: true,
          paths
        }
      },
      null,
      2
    )
  )
  Fs.writeFileSync(
    Path.join(root, "package.json"),
    JSON.stringify({ name: "effect-monorepo", private: true, workspaces: ["packages/*"] }, null, 2)
  )
  return { root, versions, remove: () => Fs.rmSync(root, { recursive: true, force: true }) }
}
