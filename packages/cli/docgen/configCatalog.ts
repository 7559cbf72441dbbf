/**
 * docs/config-catalog.md: every setting of lsp-seam.json and of a server, with its type, default and meaning, and
 * the presets as they are wired.
 */
import { StdioConfig } from "@lsp-seam/lsp-stdio"
import { LspConfigFile, LspPresets } from "@lsp-seam/setup"
import * as Predicate from "effect/Predicate"
import { cell, fieldTable, header, record, resolve, rows } from "./markdown.js"

// Preset paths depend on the machine (the Node binary, where node_modules is): show them portably.
const portable = (value: unknown): unknown => {
  if (typeof value === "string") {
    if (value === process.execPath) return "node"
    const at = value.lastIndexOf("/node_modules/")
    return at < 0 ? value : `…${value.slice(at)}`
  }
  if (Array.isArray(value)) return value.map(portable)
  if (Predicate.isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, portable(v)]))
  return value
}

const commandLine = (server: LspPresets.ServerInput): string =>
  [server.command, ...(server.args ?? [])].map((part) => String(portable(part))).join(" ")

/** What the table already shows of a preset's server. */
const shownInTable = new Set(["command", "args", "extensionToLanguage"])

const presetSettings = (server: LspPresets.ServerInput): string => {
  const settings = Object.fromEntries(
    Object.entries(server).flatMap(([key, value]) =>
      shownInTable.has(key) || value === undefined ? [] : [[key, portable(value)]]
    )
  )
  return Object.keys(settings).length === 0 ? "" : "\n```json\n" + JSON.stringify(settings, null, 2) + "\n```\n"
}

// A server's fields (`servers.<id>`) from StdioConfig's JSON Schema: their rows, and the object-valued ones.
const serverFields = () => {
  const root = record(StdioConfig.jsonSchema)
  const top = resolve(root, root)
  const servers = record(record(top.properties).servers)
  const server = resolve(root, record(record(servers.patternProperties)[""]))
  const serverRows = rows(root, server)
  const nested = serverRows.flatMap((row) => {
    const property = record(record(server.properties)[row.key])
    const target = resolve(root, record(Array.isArray(property.allOf) ? property.allOf[0] : property))
    return target.type === "object" && Object.keys(record(target.properties)).length > 0
      ? [[row.key, target] as const]
      : []
  })
  return { root, serverRows, nested, top }
}

const serversDescription = "At least one server, keyed by provider id (not blank, not trimmed). An extension may " +
  "belong to one server only."

/** The table of the stdio host's own fields (beside `servers`) for packages/lsp-stdio/README.md. */
export const hostFieldTable = (): string => {
  const { root, top } = serverFields()
  return fieldTable(
    rows(root, top).map((row) =>
      row.key === "servers"
        ? {
          ...row,
          type: "object of servers (above)",
          description: row.description !== "" ? row.description : serversDescription
        }
        : row
    )
  )
}

/**
 * The table of a server's fields for packages/lsp-stdio/README.md: the catalog's, its object-valued fields
 * linked to their tables in the catalog.
 */
export const serverFieldTable = (): string => {
  const { nested, serverRows } = serverFields()
  const objects = new Set(nested.map(([key]) => key))
  return fieldTable(serverRows.map((row) =>
    objects.has(row.key)
      ? { ...row, type: `object ([fields](../../docs/config-catalog.md#${row.key.toLowerCase()}))` }
      : row
  ))
}

export const configCatalog = (): string => {
  const fileRoot = record(LspConfigFile.jsonSchema)
  const { nested, root, serverRows } = serverFields()
  const exampleFile = {
    $schema: "./node_modules/@lsp-seam/cli/lsp-seam.schema.json",
    servers: {
      python: { command: "pyright-langserver", args: ["--stdio"], extensionToLanguage: { ".py": "python" } }
    }
  }
  return [
    header("StdioConfig, the presets and LspToolConfig"),
    "# Configuration catalog",
    "",
    "## Where the configuration comes from",
    "",
    "`lsp-seam query`, `lsp-seam mcp` and `lsp-seam doctor` take their language servers from the first of:",
    "",
    "1. the file named by `--config FILE` (relative to the current directory, or absolute);",
    `2. \`${LspConfigFile.fileName}\` in the workspace (\`--cwd DIR\`, default the current directory);`,
    "3. the [presets](#presets): every preset whose command is installed.",
    "",
    "A file replaces the presets; it does not extend them. The same object configures the library " +
    "(`LspSeam.layer({ config })`, `LspSeam.makeClient({ config })` from `@lsp-seam/cli`, " +
    "`LspStdio.layer(config)` from `@lsp-seam/lsp-stdio`). Every failure to read or validate it is " +
    "`LSP_INVALID_CONFIG`, naming the file, the server and the field; unknown keys are errors, so a typo " +
    "never silently becomes a default.",
    "",
    `Editors complete and check the file with its JSON Schema, generated from \`StdioConfig\`: ` +
    "[`packages/cli/lsp-seam.schema.json`](../packages/cli/lsp-seam.schema.json), published as " +
    "`@lsp-seam/cli/lsp-seam.schema.json`.",
    "",
    "```json",
    JSON.stringify(exampleFile, null, 2),
    "```",
    "",
    "## The file",
    "",
    fieldTable(
      rows(fileRoot, resolve(fileRoot, fileRoot)).map((row) =>
        row.key === "servers"
          ? {
            ...row,
            type: "object of servers (below)",
            description: row.description !== "" ? row.description : serversDescription
          }
          : row
      )
    ),
    "",
    "## A server: `servers.<id>`",
    "",
    fieldTable(serverRows),
    ...nested.flatMap(([key, target]) => ["", `### \`${key}\``, "", fieldTable(rows(root, target))]),
    "",
    "## Presets",
    "",
    "Used when there is no configuration file. A preset is active when its command resolves to an executable: " +
    "first in the project's `node_modules/.bin` (the workspace's, or a directory's above it up to the nearest one " +
    "holding `.git`, `pnpm-workspace.yaml` or a `package.json` with `workspaces`), whether or not it is on `PATH`, " +
    "then on `PATH`; a bare command in a configuration file is looked for the same way. `lsp-seam doctor` lists " +
    "the active and the inactive ones. TypeScript/JavaScript is always active: `typescript-language-server` and " +
    "`typescript` are dependencies of `@lsp-seam/cli`, and the workspace's own `typescript` wins when it has one. " +
    "No preset reaches the network.",
    "",
    "A server of a configuration file whose command is a preset's (by its file name: `typescript-language-server`, " +
    "`pyright-langserver`, `gopls`, …; or the package's script, also as `node`'s first argument: " +
    "`typescript-language-server/lib/cli.mjs`) gets that preset's settings below for every field it does not set, objects " +
    "merged key by key (its own values win, `null` too; `command`, `args` and `extensionToLanguage` are always its " +
    "own); `lsp-seam doctor` prints which, per server. `\"presetDefaults\": false` turns this off.",
    "",
    "| id | languages | extensions | command | to activate |",
    "|---|---|---|---|---|",
    ...LspPresets.all.map((preset) =>
      `| \`${preset.id}\` | ${preset.title} | ${
        Object.keys(preset.server.extensionToLanguage).map((ext) => `\`${ext}\``).join(" ")
      } | \`${cell(commandLine(preset.server))}\` | ${cell(preset.install)} |`
    ),
    "",
    "Settings that differ from the defaults:",
    ...LspPresets.all.flatMap((preset) => {
      const settings = presetSettings(preset.server)
      return settings === "" ? [] : ["", `### \`${preset.id}\``, settings.trimEnd()]
    }),
    "",
    "## Tool limits",
    "",
    "The `lsp` tool's own limits (`maxLocations`, `maxResultChars`, `timeoutMs`, `maxBodyLines`, `maxBodyBytes`) " +
    "are not part of this file: " +
    "see the [tool catalog](tool-catalog.md#limits).",
    ""
  ].join("\n")
}
