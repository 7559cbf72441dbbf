/**
 * Which language servers the command uses: the file given with `--config`, else `lsp-seam.json` in the
 * working directory, else the active presets. The file is the stdio host's configuration
 * (`{ "servers": { "<id>": { "command": …, "extensionToLanguage": … } } }`), validated by `StdioConfig`;
 * a `"$schema"` key is allowed (for editors) and ignored. A file replaces the presets, it does not extend
 * them; but a server whose command is a preset's (`typescript-language-server`, `pyright-langserver`, …) gets that
 * preset's settings for the fields it does not set (objects merged key by key, its own values winning), unless
 * the file says `"presetDefaults": false`.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { LspError } from "@lsp-seam/lsp"
import { StdioConfig } from "@lsp-seam/lsp-stdio"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Executables from "./internal/executables.js"
import * as PresetDefaults from "./internal/presetDefaults.js"
import * as LspPresets from "./LspPresets.js"

/**
 * The configuration file looked for in the working directory.
 *
 * @since 0.1.0
 * @category constants
 */
export const fileName = "lsp-seam.json"

/**
 * Where the configuration came from.
 *
 * @since 0.1.0
 * @category models
 */
export type Source =
  | {
    readonly _tag: "File"
    readonly path: string
    /** The preset settings given to servers whose command is a preset's, one entry per such server. */
    readonly presetDefaults: ReadonlyArray<AppliedDefaults>
  }
  | { readonly _tag: "Presets"; readonly detections: ReadonlyArray<LspPresets.Detection> }

/**
 * The preset settings one server of a configuration file received: from which preset, and which fields (dotted
 * where they were merged into an object the server sets, such as `initializationOptions.tsserver`).
 *
 * @since 0.1.0
 * @category models
 */
export interface AppliedDefaults {
  readonly serverId: string
  readonly presetId: string
  readonly fields: ReadonlyArray<string>
}

/**
 * A validated configuration and its origin.
 *
 * @since 0.1.0
 * @category models
 */
export interface Loaded {
  readonly source: Source
  /** Decoded, every default filled in. */
  readonly config: StdioConfig.StdioConfig
  /** The same configuration encoded again: what `LspStdio.layer` takes. */
  readonly input: typeof StdioConfig.StdioConfig.Encoded
}

const withFile = (path: string, error: LspError.LspConfigurationError): LspError.LspConfigurationError =>
  LspError.make(error.code, `${path}: ${error.message}`, { ...error.detail, file: path })

const parseJson = (text: string, path: string): Effect.Effect<unknown, LspError.LspConfigurationError> =>
  Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: (error) =>
      LspError.invalidConfig(
        `The configuration file ${path} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
        { file: path }
      )
  })

/**
 * The environment variable that sets `maxMemory` where the configuration does not: for the presets, and for
 * a configuration file without a `maxMemory` of its own.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxMemoryVariable = "LSP_SEAM_MAX_MEMORY"

type Environment = Readonly<Record<string, string | undefined>> | undefined

/** `json` with `maxMemory` from the environment when it has none of its own. */
const withMaxMemory = (json: unknown, environment: Environment): unknown => {
  const value = environment?.[maxMemoryVariable]?.trim()
  if (value === undefined || value === "" || !Predicate.isRecord(json) || "maxMemory" in json) return json
  return { ...json, maxMemory: /^\d+$/.test(value) ? Number(value) : value }
}

/** Whether one of the decode issues `StdioConfig` lists in the error's detail is about `maxMemory`. */
const aboutMaxMemory = (error: LspError.LspConfigurationError): boolean => {
  const issues = error.detail?.issues
  return Array.isArray(issues) &&
    issues.some((issue) => Predicate.isRecord(issue) && Array.isArray(issue.path) && issue.path[0] === "maxMemory")
}

/** Decodes `json`, naming the variable when the budget it gave is what was wrong. */
const decodeWith = (json: unknown, environment: Environment) => {
  const given = withMaxMemory(json, environment)
  return Effect.mapError(StdioConfig.decode(given), (error) =>
    given !== json && aboutMaxMemory(error)
      ? LspError.invalidConfig(
        `${maxMemoryVariable}=${JSON.stringify(environment?.[maxMemoryVariable])} is not a memory budget: ` +
          error.message,
        { ...error.detail, variable: maxMemoryVariable }
      )
      : error)
}

/** The file's own keys, `$schema` and `presetDefaults`, checked and taken out: what is left is `StdioConfig`'s. */
const fileKeys = (json: unknown, path: string) =>
  Effect.gen(function*() {
    if (!Predicate.isRecord(json)) return { rest: json, presetDefaults: true }
    const { $schema, presetDefaults, ...rest } = json
    if ("$schema" in json && typeof $schema !== "string") {
      return yield* LspError.invalidConfig(
        `${path}: "$schema" must be a string (the URL or path of a JSON Schema).`,
        { file: path }
      )
    }
    if ("presetDefaults" in json && typeof presetDefaults !== "boolean") {
      return yield* LspError.invalidConfig(
        `${path}: "presetDefaults" must be true or false (whether servers run by a preset's command get its settings).`,
        { file: path }
      )
    }
    return { rest, presetDefaults: presetDefaults !== false }
  })

const parseFile = (text: string, path: string, environment: Environment) =>
  Effect.gen(function*() {
    const { presetDefaults, rest } = yield* fileKeys(yield* parseJson(text, path), path)
    const { applied, json } = presetDefaults
      ? PresetDefaults.apply(LspPresets.all, rest)
      : { json: rest, applied: [] }
    const config = yield* Effect.mapError(decodeWith(json, environment), (error) => withFile(path, error))
    return { config, applied }
  })

/**
 * Validates the text of a configuration file, giving servers run by a preset's command that preset's settings
 * for the fields they do not set; `path` names it in messages. Fails with `LSP_INVALID_CONFIG`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const parse = (
  text: string,
  path: string,
  /** Where `LSP_SEAM_MAX_MEMORY` is read, for a file without `maxMemory` (none: not read). */
  environment?: Environment
): Effect.Effect<StdioConfig.StdioConfig, LspError.LspConfigurationError> =>
  Effect.map(parseFile(text, path, environment), ({ config }) => config)

const readFile = (path: string): Effect.Effect<string, LspError.LspConfigurationError, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) =>
    fs.readFileString(path).pipe(
      Effect.mapError((error) =>
        LspError.invalidConfig(
          error._tag === "SystemError" && error.reason === "NotFound"
            ? `The configuration file ${path} does not exist.`
            : `The configuration file ${path} cannot be read: ${error.message}`,
          { file: path }
        )
      )
    ))

const fromFile = (path: string, environment: Environment) =>
  Effect.flatMap(readFile(path), (text) => parseFile(text, path, environment)).pipe(
    Effect.map(({ applied, config }): Loaded => ({
      source: { _tag: "File", path, presetDefaults: applied },
      config,
      input: StdioConfig.encode(config)
    }))
  )

/**
 * `loaded` with every bare command found in one of `bins` run by that file: the host looks bare names up on PATH
 * only, and a project's own server wins over one there.
 */
const withProjectExecutables = (
  loaded: Loaded,
  bins: ReadonlyArray<string>
): Effect.Effect<Loaded, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const servers = { ...loaded.config.servers }
    let changed = false
    for (const [id, server] of Object.entries(servers)) {
      if (!Executables.isBareName(server.command)) continue
      const found = yield* Executables.findExecutable(server.command, undefined, bins)
      if (Option.isNone(found)) continue
      servers[id] = { ...server, command: found.value }
      changed = true
    }
    if (!changed) return loaded
    const config = { ...loaded.config, servers }
    return { ...loaded, config, input: StdioConfig.encode(config) }
  })

/**
 * The presets as a loaded configuration. Fails with `LSP_EXECUTABLE_NOT_FOUND` if none is active.
 *
 * @since 0.1.0
 * @category loading
 */
export const presets = (
  environment?: Readonly<Record<string, string | undefined>>,
  /** Where a preset's server is looked for in `node_modules/.bin` before PATH (`LspPresets.detect`). */
  workspace?: string | undefined
): Effect.Effect<Loaded, LspError.LspConfigurationError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const detections = yield* LspPresets.detect(environment, workspace)
    const found = LspPresets.toConfig(detections)
    if (Object.keys(found.servers).length === 0) {
      return yield* LspError.executableNotFound(
        "No preset language server is installed (not even TypeScript's: install typescript and " +
          "typescript-language-server, or @lsp-seam/cli which depends on them), or write an lsp-seam.json."
      )
    }
    const config = yield* decodeWith(found, environment ?? process.env)
    return { source: { _tag: "Presets", detections }, config, input: StdioConfig.encode(config) }
  })

/**
 * @since 0.1.0
 * @category models
 */
export interface LoadOptions {
  /** `--config`: a file, relative to the process's working directory or absolute. */
  readonly configFile?: string | undefined
  /** The workspace, where `lsp-seam.json` is looked for. */
  readonly workingDirectory: string
  /** For preset detection (`PATH`) and `LSP_SEAM_MAX_MEMORY`; default `process.env`. */
  readonly environment?: Readonly<Record<string, string | undefined>> | undefined
  /**
   * Whether a bare command (a preset's, or one in the file) is looked for in the `node_modules/.bin` of the
   * working directory and its ancestors, up to the top of its project, before PATH (`LspPresets.detect`); found
   * there, the server runs that file. Default true; a host that serves many workspaces (the daemon) says false,
   * so that no one workspace's servers serve the others.
   */
  readonly projectExecutables?: boolean | undefined
}

/**
 * `--config`, else `lsp-seam.json` in the working directory, else the presets; a bare command found in the
 * project's `node_modules/.bin` (see `projectExecutables`) runs that file. A file that is missing
 * (when named), unreadable, not JSON or not a valid configuration is `LSP_INVALID_CONFIG`.
 *
 * @since 0.1.0
 * @category loading
 */
export const load = (
  options: LoadOptions
): Effect.Effect<Loaded, LspError.LspConfigurationError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const fs = yield* FileSystem.FileSystem
    const environment = options.environment ?? process.env
    const project = options.projectExecutables !== false
    const bins = project ? yield* Executables.projectBins(options.workingDirectory) : []
    if (options.configFile !== undefined) {
      return yield* withProjectExecutables(yield* fromFile(path.resolve(options.configFile), environment), bins)
    }
    const local = path.join(path.resolve(options.workingDirectory), fileName)
    const exists = yield* fs.exists(local).pipe(Effect.orElseSucceed(() => false))
    return exists
      ? yield* withProjectExecutables(yield* fromFile(local, environment), bins)
      : yield* presets(environment, project ? options.workingDirectory : undefined)
  })

const addSchemaProperty = (root: Record<string, unknown>): Record<string, unknown> => {
  const fileProperties = {
    $schema: { type: "string", description: "The JSON Schema of this file, for editors; lsp-seam ignores it." },
    presetDefaults: {
      type: "boolean",
      default: true,
      description: "Whether a server whose command is a preset's (typescript-language-server, pyright-langserver, " +
        "…) gets that preset's settings for the fields it does not set, objects merged key by key (its own values " +
        "win). false: every server is exactly as written."
    }
  }
  const ref = root.$ref
  const defs = root.$defs
  if (typeof ref === "string" && ref.startsWith("#/$defs/") && Predicate.isRecord(defs)) {
    const name = ref.slice("#/$defs/".length)
    const target = defs[name]
    if (Predicate.isRecord(target) && Predicate.isRecord(target.properties)) {
      return {
        ...root,
        $defs: { ...defs, [name]: { ...target, properties: { ...fileProperties, ...target.properties } } }
      }
    }
  }
  return Predicate.isRecord(root.properties)
    ? { ...root, properties: { ...fileProperties, ...root.properties } }
    : root
}

/**
 * The JSON Schema of `lsp-seam.json` (draft 7), generated from `StdioConfig` and allowing `"$schema"` and
 * `"presetDefaults"`.
 * Published as `@lsp-seam/cli/lsp-seam.schema.json`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const jsonSchema: Readonly<Record<string, unknown>> = addSchemaProperty({ ...StdioConfig.jsonSchema })
