/**
 * The order in which a question's other TypeScript projects are loaded when there are more than `maxProjects`
 * (issue 41, relevant first). Seen in the real-repository record (babel): every project extends one shared paths
 * file that maps every package, so "maps the file" put all 152 projects first and the name order chose; the ten
 * packages that import the asked package were not among the twenty searched.
 */
import { Path } from "@effect/platform"
import { NodePath } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ProjectRelevance from "../src/internal/host/projectRelevance.js"
import type * as ProjectSurvey from "../src/internal/host/projectSurvey.js"

const project = (
  directory: string,
  options: { references?: ReadonlyArray<string>; mapped?: ReadonlyArray<string> } = {}
) =>
  ({
    config: `${directory}/tsconfig.json`,
    directory,
    includes: (relative: string) => relative.startsWith(`${directory}/`),
    file: `${directory}/src/index.ts`,
    references: (options.references ?? []).map((d) => `${d}/tsconfig.json`),
    mapped: options.mapped ?? [],
    generated: []
  }) satisfies ProjectSurvey.Project

/** Packages by directory: their name and what their package.json depends on. */
const packages: Record<string, ProjectRelevance.Package> = {
  "packages/pure": { name: "@x/pure", dependsOn: new Set() },
  "packages/aa-maps-only": { name: "@x/aa", dependsOn: new Set() },
  "packages/bb-transitive": { name: "@x/bb", dependsOn: new Set() },
  "packages/zz-imports": { name: "@x/zz", dependsOn: new Set(["@x/pure"]) },
  "packages/yy-references": { name: "@x/yy", dependsOn: new Set() },
  "examples/uses": { name: "example", dependsOn: new Set(["@x/pure"]) },
  "packages/unrelated": { name: "@x/unrelated", dependsOn: new Set() }
}
const nearest: ProjectRelevance.PackageFinder = (directory) =>
  Effect.succeed(
    packages[directory] ?? packages[directory.split("/").slice(0, 2).join("/")] ?? {
      name: undefined,
      dependsOn: new Set()
    }
  )

describe("projectRelevance.rank", () => {
  it.effect("direct users first (package dependency or reference), then transitive references, then paths alone", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      // Every project maps every package's src, as a monorepo's shared tsconfig.paths.json does.
      const everything = ["packages"]
      const own = project("packages/pure", { mapped: everything })
      const others = [
        project("packages/aa-maps-only", { mapped: everything }),
        project("packages/bb-transitive", { mapped: everything, references: ["packages/yy-references"] }),
        project("examples/uses", { mapped: everything }),
        project("packages/unrelated"),
        project("packages/yy-references", { mapped: everything, references: ["packages/pure"] }),
        project("packages/zz-imports", { mapped: everything })
      ]
      const links = new Map([own, ...others].map((p) => [p.config, p.references] as const))
      const survey: ProjectSurvey.Survey = { projects: [own, ...others], complete: true, links }
      const ranked = yield* ProjectRelevance.rank(nearest, path, survey, own, "packages/pure/src/index.ts", others)
      assert.deepStrictEqual(ranked.map((p) => p.directory), [
        "packages/yy-references",
        "packages/zz-imports",
        "examples/uses",
        "packages/bb-transitive",
        "packages/aa-maps-only",
        "packages/unrelated"
      ])
    }).pipe(Effect.provide(NodePath.layer)))
})
