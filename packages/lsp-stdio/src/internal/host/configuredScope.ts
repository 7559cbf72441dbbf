/**
 * Which files under a server's root its own configuration makes part of its program, as the server reads it:
 * for pyright, `include` and `exclude` of pyrightconfig.json, else of pyproject.toml's `[tool.pyright]` table,
 * relative to the root, with pyright's defaults (the root; `**\/node_modules`, `**\/__pycache__`, `**\/.*`) and
 * its rule that a virtual environment (a directory with `pyvenv.cfg` or `conda-meta`) is no source.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Toml from "smol-toml"
import { locateSourceWith, readLocatedWith } from "../documents/source.js"
import type { FileServices } from "../files/fileAccess.js"
import type { Workspace } from "../files/workspace.js"
import { plainJson } from "./projectSurvey.js"

/** What a configuration says of a file under the root. */
export type Verdict = "included" | "not-included" | "excluded"

/** A server's own view of its root: where it was read, and the verdict on each file (relative to the root). */
export interface ConfiguredScope {
  /** Where the settings come from, for messages: "pyproject.toml [tool.pyright]", or a default. */
  readonly source: string
  readonly verdict: (relative: string) => Verdict
  /** Whether a directory (relative to the root) is a virtual environment's: its files are nobody's source. */
  readonly isEnvironment: (directory: string) => Effect.Effect<boolean>
}

const Patterns = Schema.Struct({
  include: Schema.optional(Schema.Array(Schema.String)),
  exclude: Schema.optional(Schema.Array(Schema.String))
})

const PyprojectToml = Schema.Struct({
  tool: Schema.optional(Schema.Struct({ pyright: Schema.optional(Patterns) }))
})

const maxConfigBytes = 1_000_000

const defaultExcludes = ["**/node_modules", "**/__pycache__", "**/.*"]

const escape = (text: string) => text.replace(/[.+^${}()|[\]\\]/g, "\\$&")

/**
 * A pyright path pattern as a test of a relative path: the pattern names the path itself or a directory above
 * it; `**` stands for any number of directories, `*` for any characters within one name, `?` for one.
 */
export const pathPattern = (pattern: string): (relative: string) => boolean => {
  const parts = pattern.replace(/\\/g, "/").split("/").filter((part) => part !== "" && part !== ".")
  // A trailing `**` adds nothing to "this path or anything below it".
  while (parts.at(-1) === "**") parts.pop()
  if (parts.length === 0) return () => true
  const body = parts.map((part, index) => {
    const last = index === parts.length - 1
    if (part === "**") return "(?:[^/]+/)*"
    const name = part.split("").map((c) => c === "*" ? "[^/]*" : c === "?" ? "[^/]" : escape(c)).join("")
    return last ? name : `${name}/`
  }).join("")
  const regex = new RegExp(`^${body}(?:/.*)?$`)
  return (relative) => regex.test(relative.replace(/\\/g, "/"))
}

const readText = (services: FileServices, root: Workspace, name: string) =>
  Effect.option(Effect.flatMap(
    locateSourceWith(services, root, services.path.join(root.path, name), maxConfigBytes),
    (located) => readLocatedWith(services, located, maxConfigBytes)
  ))

/** pyright's settings at `root`: pyrightconfig.json wins over pyproject.toml, as pyright has it. */
const pyrightSettings = (
  services: FileServices,
  root: Workspace
): Effect.Effect<{ readonly source: string; readonly patterns: typeof Patterns.Type }> =>
  Effect.gen(function*() {
    const json = yield* readText(services, root, "pyrightconfig.json")
    if (Option.isSome(json)) {
      const parsed = Either.try(() => JSON.parse(plainJson(json.value.text)) as unknown)
      const patterns = Either.isRight(parsed) ? Schema.decodeUnknownOption(Patterns)(parsed.right) : Option.none()
      return { source: "pyrightconfig.json", patterns: Option.getOrElse(patterns, () => ({})) }
    }
    const toml = yield* readText(services, root, "pyproject.toml")
    if (Option.isSome(toml)) {
      const parsed = Either.try(() => Toml.parse(toml.value.text) as unknown)
      const patterns = Either.isRight(parsed)
        ? Option.flatMap(
          Schema.decodeUnknownOption(PyprojectToml)(parsed.right),
          (document) => Option.fromNullable(document.tool?.pyright)
        )
        : Option.none()
      if (Option.isSome(patterns)) return { source: "pyproject.toml [tool.pyright]", patterns: patterns.value }
    }
    return { source: "pyright's defaults", patterns: {} }
  })

/** Reads the configuration at `root` as `reader` says. */
export const read = (
  services: FileServices,
  root: Workspace,
  reader: "pyright"
): Effect.Effect<ConfiguredScope> =>
  Effect.gen(function*() {
    const { patterns, source } = yield* pyrightSettings(services, root)
    void reader
    const include = (patterns.include ?? [""]).map(pathPattern)
    const exclude = (patterns.exclude ?? defaultExcludes).map(pathPattern)
    const environments = new Map<string, boolean>()
    const isEnvironment = (directory: string): Effect.Effect<boolean> => {
      const known = environments.get(directory)
      if (known !== undefined) return Effect.succeed(known)
      return Effect.map(
        Effect.forEach(["pyvenv.cfg", "conda-meta"], (marker) =>
          Effect.option(services.files.stat(services.path.join(root.path, directory, marker)))),
        (found) => {
          const answer = found.some(Option.isSome)
          environments.set(directory, answer)
          return answer
        }
      )
    }
    return {
      source,
      verdict: (relative) =>
        !include.some((matches) =>
            matches(relative)
          )
          ? "not-included"
          : exclude.some((matches) => matches(relative))
          ? "excluded"
          : "included",
      isEnvironment
    }
  })

/** Whether any directory between the root and `relative` (a file) is a virtual environment. */
export const inEnvironment = (
  services: FileServices,
  scope: ConfiguredScope,
  relative: string
): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    const { path } = services
    for (let at = path.dirname(relative); at !== "." && at !== ""; at = path.dirname(at)) {
      if (yield* scope.isEnvironment(at)) return true
    }
    return false
  })
