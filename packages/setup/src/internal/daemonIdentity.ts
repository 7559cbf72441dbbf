/**
 * Which daemon a command may use: a fingerprint of everything that decides what the daemon's language servers
 * are — the version of the `@lsp-seam/cli` that serves it (`daemonProgram.ts`), the resolved configuration (the configuration file's content, or the active
 * presets with the executables they resolved to) and the environment parts that change how commands resolve
 * (`PATH`, the Node binary). Client and daemon compute it the same way, so two configurations never share a
 * daemon, and `Hello` confirms it. Cheap on purpose: it reads one file or stats a few `PATH` entries and loads
 * neither the stdio host nor its Schemas (the daemon validates the configuration when it starts).
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as LspPresets from "../LspPresets.js"
import * as DaemonProgram from "./daemonProgram.js"
import { findExecutableSync } from "./executables.js"

/** Where the configuration comes from, as the command resolves it. */
export type ConfigSource =
  | { readonly _tag: "File"; readonly path: string }
  | { readonly _tag: "Inline"; readonly config: unknown }
  | { readonly _tag: "Presets" }

export interface Identity {
  /** 16 hex digits of a SHA-256 over version, configuration and environment. */
  readonly fingerprint: string
  readonly version: string
  readonly source: ConfigSource
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** JSON with object keys sorted at every level, so equal configurations give equal text. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (isRecord(value)) {
    return `{${
      Object.keys(value).sort().filter((key) => value[key] !== undefined).map((key) =>
        `${JSON.stringify(key)}:${canonicalJson(value[key])}`
      ).join(",")
    }}`
  }
  return JSON.stringify(value) ?? "null"
}

/** The configuration file's content without its `$schema` key (which lsp-seam ignores). */
export const readConfigFile = (path: string): Effect.Effect<unknown, LspError.LspConfigurationError> =>
  Effect.gen(function*() {
    const text = yield* Effect.try({
      try: () => Fs.readFileSync(path, "utf8"),
      catch: (cause) =>
        LspError.invalidConfig(
          (cause as NodeJS.ErrnoException).code === "ENOENT"
            ? `The configuration file ${path} does not exist.`
            : `The configuration file ${path} cannot be read: ${String(cause)}`,
          { file: path }
        )
    })
    const json = yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: (error) =>
        LspError.invalidConfig(
          `The configuration file ${path} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
          { file: path }
        )
    })
    return withoutSchemaKey(json)
  })

const withoutSchemaKey = (json: unknown): unknown => {
  if (isRecord(json) && "$schema" in json) {
    const { $schema: _, ...rest } = json
    return rest
  }
  return json
}

/** `--config`, else `lsp-seam.json` in the workspace, else the presets: the same order as `LspConfigFile.load`. */
export const resolveSource = (options: {
  readonly configFile?: string | undefined
  readonly workingDirectory: string
}): ConfigSource => {
  if (options.configFile !== undefined) return { _tag: "File", path: NodePath.resolve(options.configFile) }
  const local = NodePath.join(NodePath.resolve(options.workingDirectory), "lsp-seam.json")
  return Fs.existsSync(local) ? { _tag: "File", path: local } : { _tag: "Presets" }
}

/** The file name of the daemon's socket (in `LspRemoteAddress.defaultSocketDirectory()`). */
export const socketName = (identity: Identity): string => `daemon-${identity.version}-${identity.fingerprint}.sock`

/** What the presets resolve to, as the fingerprint covers it: their configuration and the executables found. */
const presetsConfig = (detections: ReadonlyArray<LspPresets.Detection>) => ({
  ...LspPresets.toConfig(detections),
  executables: detections.flatMap((detection) => Option.toArray(detection.executable))
})

const identityOf = (
  version: string,
  source: ConfigSource,
  config: unknown,
  environment: Readonly<Record<string, string | undefined>>
): Identity => {
  const digest = Crypto.createHash("sha256").update(canonicalJson({
    version,
    node: process.execPath,
    path: environment.PATH ?? "",
    config
  })).digest("hex")
  return { fingerprint: digest.slice(0, 16), version, source }
}

/** The identity of the daemon for a configuration, in an environment (default `process.env`). */
export const identify = (
  source: ConfigSource,
  environment: Readonly<Record<string, string | undefined>> = process.env
): Effect.Effect<Identity, LspError.LspConfigurationError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const { version } = yield* DaemonProgram.find()
    const config = source._tag === "File"
      ? yield* readConfigFile(source.path)
      : source._tag === "Inline"
      ? source.config
      : yield* Effect.map(LspPresets.detect(environment), presetsConfig)
    return identityOf(version, source, config, environment)
  })

/**
 * `identify` with `node:fs` and no Effect runtime, for the remote query's edge (`quickQuery.ts`); `undefined`
 * when the configuration file cannot be read or parsed, or `@lsp-seam/cli` is not installed (`identify` reports
 * why).
 */
export const identifySync = (
  source: ConfigSource,
  environment: Readonly<Record<string, string | undefined>> = process.env
): Identity | undefined => {
  const program = DaemonProgram.findSync()
  if (program === undefined) return undefined
  let config: unknown
  if (source._tag === "File") {
    try {
      config = withoutSchemaKey(JSON.parse(Fs.readFileSync(source.path, "utf8")))
    } catch {
      return undefined
    }
  } else if (source._tag === "Inline") {
    config = source.config
  } else {
    config = presetsConfig(LspPresets.all.map((preset) => ({
      preset,
      executable: Option.fromNullable(findExecutableSync(preset.server.command, environment.PATH))
    })))
  }
  return identityOf(program.version, source, config, environment)
}
