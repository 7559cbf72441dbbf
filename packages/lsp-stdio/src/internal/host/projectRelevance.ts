/**
 * Which of a workspace's other projects a question about one file loads first, when there are more than
 * `maxProjects` (DESIGN §9, relevant first): those that can reach the file, most directly first — they reference its
 * project or sit in a package whose package.json depends on the file's package; then those that reference it
 * through other configs; then those that only map its directory with `compilerOptions.paths` — then the rest;
 * within each, packages before examples, fixtures, tests, benchmarks and docs; then the survey's own order
 * (breadth first, sorted), so the choice is the same every time.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { locateSourceWith, readLocatedWith } from "../documents/source.js"
import type { FileServices } from "../files/fileAccess.js"
import type { Workspace } from "../files/workspace.js"
import type * as ProjectSurvey from "./projectSurvey.js"

const PackageJson = Schema.Struct({
  name: Schema.optional(Schema.String),
  dependencies: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  devDependencies: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  peerDependencies: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})

export interface Package {
  readonly name: string | undefined
  readonly dependsOn: ReadonlySet<string>
}

const noPackage: Package = { name: undefined, dependsOn: new Set() }

/** Directory names whose projects are searched after the packages': samples and tests of the real code. */
const aside =
  /^(?:examples?|samples?|demos?|fixtures?|__fixtures__|tests?|__tests__|e2e|bench|benchmarks?|docs?|playground)$/i

/** Whether a project lies in an examples, fixtures, tests, … directory (or a hidden one). */
export const isAside = (directory: string): boolean =>
  directory.split(/[\\/]/).some((part) => aside.test(part) || (part.startsWith(".") && part.length > 1))

const maxPackageBytes = 1_000_000

/** Finds the package of a directory (relative to the workspace): its nearest package.json at or above it. */
export type PackageFinder = (directory: string) => Effect.Effect<Package>

/** The nearest package.json at or above a directory (relative to the workspace), each read once. */
export const packageFinder = (services: FileServices, workspace: Workspace): PackageFinder => {
  const { path } = services
  const known = new Map<string, Package>()
  const read = (directory: string): Effect.Effect<Package | undefined> =>
    Effect.map(
      Effect.option(Effect.flatMap(
        locateSourceWith(services, workspace, path.join(workspace.path, directory, "package.json"), maxPackageBytes),
        (located) => readLocatedWith(services, located, maxPackageBytes)
      )),
      Option.match({
        onNone: () => undefined,
        onSome: (source) => {
          const parsed = Either.try((): unknown => JSON.parse(source.text))
          const decoded = Either.isRight(parsed) ? Schema.decodeUnknownOption(PackageJson)(parsed.right) : Option.none()
          return Option.match(decoded, {
            onNone: () => noPackage,
            onSome: (pkg) => ({
              name: pkg.name,
              dependsOn: new Set([
                ...Object.keys(pkg.dependencies ?? {}),
                ...Object.keys(pkg.devDependencies ?? {}),
                ...Object.keys(pkg.peerDependencies ?? {})
              ])
            })
          })
        }
      })
    )
  const nearest = (directory: string): Effect.Effect<Package> =>
    Effect.gen(function*() {
      const cached = known.get(directory)
      if (cached !== undefined) return cached
      const own = yield* read(directory)
      const found = own ?? (directory === "" ? noPackage : yield* nearest(parentOf(path, directory)))
      known.set(directory, found)
      return found
    })
  return nearest
}

const parentOf = (path: FileServices["path"], directory: string) => {
  const parent = path.dirname(directory)
  return parent === "." ? "" : parent
}

const under = (path: FileServices["path"], prefix: string, relative: string) =>
  prefix === "" || prefix === "." || relative === prefix || relative.startsWith(`${prefix}${path.sep}`)

/** The configs that reach `target` through `references`, directly or through other configs. */
const referencing = (links: ReadonlyMap<string, ReadonlyArray<string>>, target: string): ReadonlySet<string> => {
  const reaching = new Set<string>([target])
  let grew = true
  while (grew) {
    grew = false
    for (const [config, references] of links) {
      if (!reaching.has(config) && references.some((reference) => reaching.has(reference))) {
        reaching.add(config)
        grew = true
      }
    }
  }
  reaching.delete(target)
  return reaching
}

/** `others` in the order they are loaded for a question about `asked` (a file relative to the workspace). */
export const rank = (
  nearest: PackageFinder,
  path: FileServices["path"],
  survey: ProjectSurvey.Survey,
  own: ProjectSurvey.Project | undefined,
  asked: string,
  others: ReadonlyArray<ProjectSurvey.Project>
): Effect.Effect<ReadonlyArray<ProjectSurvey.Project>> =>
  Effect.gen(function*() {
    const home = yield* nearest(parentOf(path, asked))
    const viaReferences = own === undefined ? new Set<string>() : referencing(survey.links, own.config)
    const scored = yield* Effect.forEach(others, (project, index) =>
      Effect.gen(function*() {
        const pkg = yield* nearest(project.directory)
        // Strongest first: a project that imports the file's package or references its project by name, then one
        // that reaches it through other projects' references, then one whose `paths` merely map it (a monorepo's
        // shared paths file maps every package for every project, so alone it says little).
        const direct = (own !== undefined && (survey.links.get(project.config) ?? []).includes(own.config)) ||
          (home.name !== undefined && pkg.name !== home.name && pkg.dependsOn.has(home.name))
        const reach = direct
          ? 0
          : viaReferences.has(project.config)
          ? 1
          : project.mapped.some((target) => under(path, target, asked))
          ? 2
          : 3
        return { project, index, tier: reach * 2 + (isAside(project.directory) ? 1 : 0) }
      }))
    return scored.sort((a, b) => a.tier - b.tier || a.index - b.index).map((entry) => entry.project)
  })
