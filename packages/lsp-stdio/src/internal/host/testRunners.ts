/**
 * The files a workspace's test runners collect by their own configuration, read at the workspace's root, for
 * `impact` to count as test code besides the conventions the seam knows (`LspProvider.testFiles`):
 *
 * - pytest: `testpaths` (every file below them) and `python_files` (the names it collects), from the first of
 *   pytest.ini `[pytest]`, pyproject.toml `[tool.pytest.ini_options]`, tox.ini `[pytest]`, setup.cfg
 *   `[tool:pytest]` that has a section, as pytest picks its configuration;
 * - jest: package.json's `jest.testRegex` and the plain globs of `jest.testMatch` (`**`, `*`, `?`, `{a,b}`).
 *
 * Configurations that are programs (vitest.config.ts, jest.config.js) are not run, so what they name is not
 * known here; the conventions still apply to those files.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Toml from "smol-toml"
import { locateSourceWith, readLocatedWith } from "../documents/source.js"
import type { FileServices } from "../files/fileAccess.js"
import { resolveWorkspaceWith } from "../files/workspace.js"
import { pathPattern } from "./configuredScope.js"

const maxConfigBytes = 1_000_000

/** An INI file's sections: name → key → value (continuation lines joined with a space). */
export const parseIni = (text: string): ReadonlyMap<string, ReadonlyMap<string, string>> => {
  const sections = new Map<string, Map<string, string>>()
  let section: Map<string, string> | undefined
  let key: string | undefined
  for (const raw of text.split(/\r?\n/)) {
    if (/^\s*([#;]|$)/.test(raw)) continue
    const header = /^\[([^\]]+)\]\s*$/.exec(raw)
    if (header !== null) {
      section = new Map()
      sections.set(header[1]!.trim(), section)
      key = undefined
      continue
    }
    if (section === undefined) continue
    if (/^\s/.test(raw) && key !== undefined) {
      section.set(key, `${section.get(key) ?? ""} ${raw.trim()}`.trim())
      continue
    }
    const entry = /^([^=:]+?)\s*[=:]\s*(.*)$/.exec(raw)
    if (entry === null) continue
    key = entry[1]!.trim()
    section.set(key, entry[2]!.trim())
  }
  return sections
}

/** One file name glob (`*`, `?`, `[…]`) as a test of a name. */
const nameGlob = (glob: string): (name: string) => boolean => {
  const body = glob.replace(/[.+^${}()|\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")
  const regex = new RegExp(`^${body}$`)
  return (name) => regex.test(name)
}

/**
 * A jest glob without extglobs (`?(…)`, `+(…)`, …) as a test of a relative path: `**` any directories, `*`
 * and `?` within a name, `[…]` a class, `{a,b}` either; undefined for a glob this cannot read.
 */
export const pathGlob = (glob: string): ((relative: string) => boolean) | undefined => {
  if (/[?*+@!]\(/.test(glob)) return undefined
  const alternatives = /\{([^{}]*)\}/.exec(glob)
  if (alternatives !== null) {
    const each = alternatives[1]!.split(",").map((choice) => pathGlob(glob.replace(alternatives[0], choice)))
    if (each.some((test) => test === undefined)) return undefined
    return (relative) => each.some((test) => test!(relative))
  }
  const source = glob.replace(/^<rootDir>\//, "")
  let body = ""
  for (let i = 0; i < source.length; i++) {
    if (source.startsWith("**/", i)) {
      body += "(?:[^/]+/)*"
      i += 2
    } else if (source.startsWith("**", i)) {
      body += ".*"
      i += 1
    } else if (source[i] === "*") body += "[^/]*"
    else if (source[i] === "?") body += "[^/]"
    else body += source[i]!.replace(/[.+^${}()|\\]/g, "\\$&")
  }
  const regex = new RegExp(`^${body}$`)
  return (relative) => regex.test(relative)
}

const words = (value: string | ReadonlyArray<string> | undefined): ReadonlyArray<string> =>
  value === undefined ? [] : typeof value === "string" ? value.split(/\s+/).filter((w) => w !== "") : value

const PytestOptions = Schema.Struct({
  testpaths: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
  python_files: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String)))
})
const PyprojectToml = Schema.Struct({
  tool: Schema.optional(Schema.Struct({
    pytest: Schema.optional(Schema.Struct({ ini_options: Schema.optional(PytestOptions) }))
  }))
})
const PackageJson = Schema.Struct({
  jest: Schema.optional(Schema.Struct({
    testMatch: Schema.optional(Schema.Array(Schema.String)),
    testRegex: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String)))
  }))
})

/** pytest's options, from the first configuration file that has a pytest section. */
const pytestOptions = (read: (name: string) => Effect.Effect<Option.Option<string>>) =>
  Effect.gen(function*() {
    for (
      const [file, section] of [["pytest.ini", "pytest"], ["pyproject.toml", ""], ["tox.ini", "pytest"], [
        "setup.cfg",
        "tool:pytest"
      ]] as const
    ) {
      const text = yield* read(file)
      if (Option.isNone(text)) continue
      if (file === "pyproject.toml") {
        const parsed = Either.try(() => Toml.parse(text.value) as unknown)
        const options = Either.isRight(parsed)
          ? Option.flatMap(
            Schema.decodeUnknownOption(PyprojectToml)(parsed.right),
            (document) => Option.fromNullable(document.tool?.pytest?.ini_options)
          )
          : Option.none()
        if (Option.isSome(options)) return options.value
        continue
      }
      const found = parseIni(text.value).get(section)
      if (found !== undefined) {
        return { testpaths: found.get("testpaths"), python_files: found.get("python_files") }
      }
    }
    return undefined
  })

/** The test files the runners' configuration at `workspaceRoot` names (see the module's header). */
export const read = (
  services: FileServices,
  workspaceRoot: string
): Effect.Effect<(relativePath: string) => boolean> =>
  Effect.gen(function*() {
    const workspace = yield* resolveWorkspaceWith(services, workspaceRoot)
    const readText = (name: string) =>
      Effect.option(Effect.flatMap(
        locateSourceWith(services, workspace, services.path.join(workspace.path, name), maxConfigBytes),
        (located) => Effect.map(readLocatedWith(services, located, maxConfigBytes), (source) => source.text)
      ))
    const tests: Array<(relative: string) => boolean> = []
    const pytest = yield* pytestOptions(readText)
    if (pytest !== undefined) {
      const under = words(pytest.testpaths).map(pathPattern)
      const names = words(pytest.python_files).map(nameGlob)
      tests.push((relative) =>
        relative.endsWith(".py") &&
        (under.some((test) => test(relative)) || names.some((test) => test(relative.split("/").at(-1) ?? "")))
      )
    }
    const packageJson = yield* readText("package.json")
    if (Option.isSome(packageJson)) {
      const parsed = Either.try(() => JSON.parse(packageJson.value) as unknown)
      const jest = Either.isRight(parsed)
        ? Option.flatMap(Schema.decodeUnknownOption(PackageJson)(parsed.right), (p) => Option.fromNullable(p.jest))
        : Option.none()
      if (Option.isSome(jest)) {
        const regexes = words(jest.value.testRegex === undefined ? undefined : [jest.value.testRegex].flat())
          .flatMap((source) => Either.getOrElse(Either.try(() => [new RegExp(source)]), () => []))
        const globs = (jest.value.testMatch ?? []).flatMap((glob) => pathGlob(glob) ?? [])
        tests.push((relative) => regexes.some((r) => r.test(relative)) || globs.some((test) => test(relative)))
      }
    }
    return (relative: string) => tests.some((test) => test(relative))
  }).pipe(Effect.orElseSucceed(() => () => false))
