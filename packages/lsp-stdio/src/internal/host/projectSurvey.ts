/**
 * The projects of a workspace as a server that hosts them all sees them (tsserver): every project config
 * (tsconfig.json, jsconfig.json, and the configs their `references` name, such as tsconfig.src.json), which
 * files each includes, and one file of each to open so that the server loads it. A solution-style config
 * (`"files": []` or `"include": []`) has no files of its own; the configs it references do.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { locateSourceWith, readLocatedWith } from "../documents/source.js"
import type { FileServices } from "../files/fileAccess.js"
import type { Workspace } from "../files/workspace.js"
import * as WorkspaceFiles from "../files/workspaceFiles.js"

/** One project: its config, relative to the workspace, which files it includes, and one to open. */
export interface Project {
  /** The config file, relative to the workspace. */
  readonly config: string
  /** Its directory, relative to the workspace ("" for the workspace itself). */
  readonly directory: string
  /** Whether a file (relative to the workspace, under `directory`) is one of the project's own. */
  readonly includes: (relative: string) => boolean
  /** A file it includes, to open so the server loads it; undefined when none was found. */
  readonly file: string | undefined
  /** The configs its `references` name, relative to the workspace. */
  readonly references: ReadonlyArray<string>
  /** The directories its `compilerOptions.paths` map to (their fixed parts), relative to the workspace. */
  readonly mapped: ReadonlyArray<string>
  /** Its outDir and declarationDir, relative to the workspace: generated files, no project's source. */
  readonly generated: ReadonlyArray<string>
}

export interface Survey {
  /** The projects with files of their own. */
  readonly projects: ReadonlyArray<Project>
  /** Whether the walk saw the whole workspace (and every referenced config was read). */
  readonly complete: boolean
  /** Every config read (solution-style ones too) and the configs its `references` name. */
  readonly links: ReadonlyMap<string, ReadonlyArray<string>>
}

/** How many directory entries a survey looks at, and how many configs it reads, at most. */
export const maxEntries = 50_000
const maxConfigs = 500

/** A config larger than this is not read (it still counts as a project that includes everything below it). */
const maxConfigBytes = 1_000_000

/** The parts of a project config that say which files are its own and which configs it builds on. */
const ConfigFiles = Schema.Struct({
  files: Schema.optional(Schema.Array(Schema.String)),
  include: Schema.optional(Schema.Array(Schema.String)),
  exclude: Schema.optional(Schema.Array(Schema.String)),
  references: Schema.optional(Schema.Array(Schema.Struct({ path: Schema.String }))),
  extends: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
  compilerOptions: Schema.optional(Schema.Struct({
    baseUrl: Schema.optional(Schema.String),
    paths: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) })),
    outDir: Schema.optional(Schema.String),
    declarationDir: Schema.optional(Schema.String)
  }))
})

/** JSON with comments and trailing commas (as tsconfig.json allows) to plain JSON; strings are kept as they are. */
export const plainJson = (text: string): string =>
  text
    .replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_match, string: string | undefined) => string ?? "")
    .replace(/("(?:[^"\\]|\\.)*")|,(\s*[}\]])/g, (match, string: string | undefined, close: string | undefined) =>
      string ?? close ?? match)

const readConfig = (services: FileServices, workspace: Workspace, config: string) =>
  Effect.map(
    Effect.option(Effect.flatMap(
      locateSourceWith(services, workspace, services.path.join(workspace.path, config), maxConfigBytes),
      (located) => readLocatedWith(services, located, maxConfigBytes)
    )),
    (text) =>
      Option.flatMap(text, (source) =>
        Either.getRight(Either.try((): unknown =>
          JSON.parse(plainJson(source.text))
        )).pipe(
          Option.flatMap(Schema.decodeUnknownOption(ConfigFiles))
        ))
  )

/** The directories a pattern names before its first wildcard: "src/**\/*.ts" → "src", "**\/*" → "". */
const fixedPrefix = (path: FileServices["path"], pattern: string) => {
  const parts: Array<string> = []
  for (const part of path.normalize(pattern).split(path.sep)) {
    if (/[*?{[]/.test(part)) break
    if (part !== "." && part !== "") parts.push(part)
  }
  return parts.join(path.sep)
}

const under = (path: FileServices["path"], prefix: string, relative: string) =>
  prefix === "" || relative === prefix || relative.startsWith(`${prefix}${path.sep}`)

/**
 * Which files a config includes, by its `files` and the fixed parts of its `include` and `exclude` patterns
 * (an approximation: wildcards within a directory are not matched); undefined for a config with no files of
 * its own. Without either field a config includes everything below it, as tsserver's default does.
 */
const includesOf = (
  path: FileServices["path"],
  directory: string,
  parsed: Option.Option<typeof ConfigFiles.Type>
): ((relative: string) => boolean) | undefined => {
  const own = (relative: string) => path.relative(directory, relative)
  if (Option.isNone(parsed)) return (relative) => !own(relative).startsWith("..")
  const { exclude, files, include } = parsed.value
  const listed = new Set((files ?? []).map((file) => path.normalize(file)))
  const included = include === undefined && files === undefined
    ? [""]
    : (include ?? []).map((p) => fixedPrefix(path, p))
  if (listed.size === 0 && included.length === 0) return undefined
  const excluded = (exclude ?? []).map((pattern) => fixedPrefix(path, pattern)).filter((prefix) => prefix !== "")
  return (relative) => {
    const mine = own(relative)
    if (mine.startsWith("..")) return false
    if (listed.has(mine)) return true
    return included.some((prefix) => under(path, prefix, mine)) && !excluded.some((prefix) => under(path, prefix, mine))
  }
}

/** A referenced config's path: a directory means its tsconfig.json. */
const referenced = (services: FileServices, workspace: Workspace, directory: string, reference: string) =>
  Effect.map(
    Effect.option(services.files.stat(services.path.join(workspace.path, directory, reference))),
    (info) => {
      const target = services.path.normalize(services.path.join(directory, reference))
      return Option.isSome(info) && info.value.type === "Directory"
        ? services.path.join(target, "tsconfig.json")
        : target
    }
  )

/**
 * The directories a config's `compilerOptions.paths` map to (their fixed parts, relative to the workspace), its
 * own or, when it sets none, those of the configs it `extends` inside the workspace (a shared base is where
 * monorepos keep them); each relative to the `baseUrl` of the config that sets it, or to that config's directory.
 */
const mappedDirectories = (
  services: FileServices,
  workspace: Workspace,
  config: string,
  parsed: Option.Option<typeof ConfigFiles.Type>,
  depth = 0
): Effect.Effect<ReadonlyArray<string>> =>
  Effect.gen(function*() {
    const { path } = services
    if (Option.isNone(parsed)) return []
    const directory = path.dirname(config) === "." ? "" : path.dirname(config)
    const options = parsed.value.compilerOptions
    if (options?.paths !== undefined) {
      const base = path.join(directory, options.baseUrl ?? ".")
      return Object.values(options.paths).flat().map((target) =>
        path.normalize(path.join(base, fixedPrefix(path, target)))
      )
    }
    const bases = parsed.value.extends === undefined ? [] : [parsed.value.extends].flat()
    for (const base of bases) {
      // Only a relative base inside the workspace: a package's (`@tsconfig/node20`) maps nothing of this workspace.
      if (!base.startsWith(".") || depth >= 5) continue
      const target = path.normalize(path.join(directory, base.endsWith(".json") ? base : `${base}.json`))
      if (target.startsWith("..")) continue
      const found = yield* mappedDirectories(
        services,
        workspace,
        target,
        yield* readConfig(services, workspace, target),
        depth + 1
      )
      if (found.length > 0) return found
    }
    return []
  })

/** Surveys the workspace: its project configs (found by `markers`, then by references), each with a file to open. */
export const survey = (
  services: FileServices,
  workspace: Workspace,
  markers: ReadonlyArray<string>,
  extensions: ReadonlyArray<string>,
  maxDocumentBytes: number
): Effect.Effect<Survey> =>
  Effect.gen(function*() {
    const { path } = services
    const walked = yield* WorkspaceFiles.findProjects(
      services.files,
      path,
      workspace.path,
      markers,
      extensions,
      maxEntries
    )
    const queue = [...walked.markers]
    const seen = new Set<string>()
    const projects: Array<Project> = []
    const links = new Map<string, ReadonlyArray<string>>()
    while (queue.length > 0 && seen.size < maxConfigs) {
      const config = queue.shift()!
      // Only configs inside the workspace: a reference out of it is not the host's to read.
      if (seen.has(config) || config.startsWith("..") || path.isAbsolute(config)) continue
      seen.add(config)
      const directory = path.dirname(config) === "." ? "" : path.dirname(config)
      const parsed = yield* readConfig(services, workspace, config)
      const references: Array<string> = []
      for (const reference of Option.match(parsed, { onNone: () => [], onSome: (c) => c.references ?? [] })) {
        references.push(yield* referenced(services, workspace, directory, reference.path))
      }
      queue.push(...references)
      links.set(config, references)
      const includes = includesOf(path, directory, parsed)
      if (includes === undefined) continue
      const options = Option.getOrUndefined(parsed)?.compilerOptions
      const mapped = yield* mappedDirectories(services, workspace, config, parsed)
      const generated = [options?.outDir, options?.declarationDir].flatMap((dir) =>
        dir === undefined ? [] : [path.normalize(path.join(directory, dir))]
      )
      projects.push({ config, directory, includes, file: undefined, references, mapped, generated })
    }
    const found = { projects, complete: walked.complete && queue.length === 0, links }
    // A file loads the project the server finds for it (the nearest config that includes it), so each project is
    // given a file that is its own by that rule, and one the host can open (text, UTF-8, within the size limit).
    const opens = (candidate: string) =>
      Effect.isSuccess(Effect.flatMap(
        locateSourceWith(services, workspace, path.join(workspace.path, candidate), maxDocumentBytes),
        (located) => readLocatedWith(services, located, maxDocumentBytes)
      ))
    // Each candidate's project found once (not once per project: on 150 projects that was minutes of work).
    const candidates = new Map<Project, Array<string>>()
    for (const candidate of walked.files) {
      const project = projectOf(found, path, candidate)
      if (project === undefined) continue
      const own = candidates.get(project)
      if (own === undefined) candidates.set(project, [candidate])
      else own.push(candidate)
    }
    const withFiles = yield* Effect.forEach(projects, (project) =>
      Effect.map(
        Effect.findFirst(candidates.get(project) ?? [], opens),
        (file) => ({ ...project, file: Option.getOrUndefined(file) })
      ))
    return { ...found, projects: withFiles }
  })

// Per survey: its projects by directory, in survey order, so that finding a file's project costs a lookup per
// directory above it rather than a pass over every project.
const directories = new WeakMap<Survey, ReadonlyMap<string, ReadonlyArray<Project>>>()

const directoriesOf = (survey: Survey): ReadonlyMap<string, ReadonlyArray<Project>> => {
  const known = directories.get(survey)
  if (known !== undefined) return known
  const byDirectory = new Map<string, Array<Project>>()
  for (const project of survey.projects) {
    byDirectory.set(project.directory, [...(byDirectory.get(project.directory) ?? []), project])
  }
  directories.set(survey, byDirectory)
  return byDirectory
}

/**
 * The project of a file (relative to the workspace): of the projects in the nearest directory above it that
 * has any, the first that includes it; undefined when none does (the server gives such a file a project of its
 * own).
 */
export const projectOf = (survey: Survey, path: FileServices["path"], relative: string): Project | undefined => {
  const byDirectory = directoriesOf(survey)
  for (let at = path.dirname(relative);; at = path.dirname(at)) {
    const directory = at === "." ? "" : at
    const found = byDirectory.get(directory)?.find((project) => project.includes(relative))
    if (found !== undefined) return found
    if (directory === "") return undefined
  }
}
