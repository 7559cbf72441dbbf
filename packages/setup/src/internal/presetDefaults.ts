/**
 * A hand-written server that runs a preset's server by its usual command (`typescript-language-server`,
 * `pyright-langserver`, …) gets that preset's settings for what it does not set itself: without them it would
 * answer worse than the preset does (tsserver's syntax server answers definitions with the import line). Objects
 * are merged key by key, the configuration's own values winning; a value it gives (`null` too) is kept whole. The
 * command, its arguments and the extensions stay the configuration's.
 */
import * as Predicate from "effect/Predicate"
import type * as LspPresets from "../LspPresets.js"

/** The defaults one server received: from which preset, and which fields (dotted where merged into an object). */
export interface Applied {
  readonly serverId: string
  readonly presetId: string
  readonly fields: ReadonlyArray<string>
}

// How the server is started and what it serves are the configuration's alone.
const ownFields: ReadonlySet<string> = new Set(["command", "args", "extensionToLanguage"])

const slashes = (path: string): string => path.replaceAll("\\", "/")

/** The file name of a command, whatever the separator. */
const fileName = (command: string): string => command.slice(slashes(command).lastIndexOf("/") + 1)

/** Whether `path` is `name`, or ends with it as whole path segments (`name` may hold a `/`: `pkg/lib/cli.mjs`). */
const names = (path: string, name: string): boolean => {
  const normal = slashes(path)
  return normal === name || normal.endsWith(`/${name}`)
}

const isNode = (command: string): boolean => /^node(\.exe)?$/i.test(fileName(command))

/**
 * The preset whose server `command` runs, if any: by the command's file name, or a path suffix a preset lists
 * (`typescript-language-server/lib/cli.mjs`); for a command that is Node itself, by its first argument, the script.
 */
export const presetOf = (
  presets: ReadonlyArray<LspPresets.Preset>,
  command: string,
  args: ReadonlyArray<unknown> = []
): LspPresets.Preset | undefined => {
  const script = isNode(command) && typeof args[0] === "string" ? args[0] : command
  return presets.find((preset) =>
    (preset.commands ?? [fileName(preset.server.command)]).some((name) => names(script, name))
  )
}

/** `mine` with what `theirs` has and it lacks, recording each path added. */
const merge = (mine: unknown, theirs: unknown, path: string, added: Array<string>): unknown => {
  if (!Predicate.isRecord(mine) || !Predicate.isRecord(theirs)) return mine
  const merged: Record<string, unknown> = { ...mine }
  for (const [key, value] of Object.entries(theirs)) {
    const at = path === "" ? key : `${path}.${key}`
    if (!Object.hasOwn(mine, key)) {
      merged[key] = value
      added.push(at)
    } else {
      merged[key] = merge(mine[key], value, at, added)
    }
  }
  return merged
}

/**
 * `json` (a configuration as written, not yet validated) with the preset defaults of each server whose command
 * is a preset's, and what was applied. Anything that is not the expected shape is left for validation to name.
 */
export const apply = (
  presets: ReadonlyArray<LspPresets.Preset>,
  json: unknown
): { readonly json: unknown; readonly applied: ReadonlyArray<Applied> } => {
  if (!Predicate.isRecord(json) || !Predicate.isRecord(json.servers)) return { json, applied: [] }
  const applied: Array<Applied> = []
  const servers: Record<string, unknown> = {}
  for (const [serverId, server] of Object.entries(json.servers)) {
    const preset = Predicate.isRecord(server) && typeof server.command === "string"
      ? presetOf(presets, server.command, Array.isArray(server.args) ? server.args : [])
      : undefined
    if (preset === undefined) {
      servers[serverId] = server
      continue
    }
    const defaults = Object.fromEntries(Object.entries(preset.server).filter(([key]) => !ownFields.has(key)))
    const fields: Array<string> = []
    servers[serverId] = merge(server, defaults, "", fields)
    if (fields.length > 0) applied.push({ serverId, presetId: preset.id, fields })
  }
  return { json: { ...json, servers }, applied }
}
