/**
 * The text `lsp-seam doctor` prints: one block per configured server, then the presets that are not
 * installed, then a summary line.
 */
import type { LspStdio } from "@lsp-seam/lsp-stdio"
import * as Option from "effect/Option"
import type * as LspConfigFile from "../LspConfigFile.js"

const operations = ["goToDefinition", "findReferences", "goToImplementation", "hover"] as const

const syncKinds: Record<number, string> = { 0: "none (0)", 1: "full (1)", 2: "incremental (2)" }

const describeSync = (sync: unknown): string => {
  if (sync === null || sync === undefined) return "not advertised"
  if (typeof sync === "number") return syncKinds[sync] ?? `unknown (${sync})`
  return JSON.stringify(sync)
}

const indent = (text: string, by: string): string => text.split("\n").join(`\n${by}`)

const quoteArg = (arg: string): string => /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg)

const field = (name: string, value: string): string => `  ${`${name}:`.padEnd(12)} ${indent(value, " ".repeat(15))}`

const maxErrorLines = 8

// A crashing server's stderr tail can be a long stack trace; the first lines say what is wrong.
const clip = (message: string): string => {
  const lines = message.split("\n")
  return lines.length <= maxErrorLines
    ? message
    : [...lines.slice(0, maxErrorLines), `… (${lines.length - maxErrorLines} more lines)`].join("\n")
}

const server = (
  report: LspStdio.ServerDiagnosis,
  args: ReadonlyArray<string>,
  fix: string | undefined
): string => {
  const lines = [`${report.providerId}: ${report.usable ? "usable" : "UNUSABLE"}`]
  lines.push(field("command", [report.command, ...args].map(quoteArg).join(" ")))
  if (report.executable !== null) lines.push(field("executable", report.executable))
  else if (report.error?.code === "LSP_EXECUTABLE_NOT_FOUND") lines.push(field("executable", "not found"))
  lines.push(field("extensions", report.extensions.join(" ")))
  if (report.serverInfo !== null) {
    lines.push(
      field(
        "server",
        report.serverInfo.version === undefined
          ? report.serverInfo.name
          : `${report.serverInfo.name} ${report.serverInfo.version}`
      )
    )
  }
  if (report.startMs !== null) {
    lines.push(field("started in", `${report.startMs} ms`))
    lines.push(field("encoding", report.positionEncoding ?? "utf-16"))
    lines.push(
      field(
        "sync",
        `${describeSync(report.textDocumentSync)}; opens documents per query: ${report.transientOpen ? "yes" : "no"}`
      )
    )
    lines.push(field("operations", operations.map((op) => `${op} ${report.operations[op] ? "yes" : "no"}`).join(", ")))
  }
  if (report.error !== null) lines.push(field("error", `${report.error.code}: ${clip(report.error.message.trim())}`))
  if (!report.usable && fix !== undefined) lines.push(field("fix", fix))
  return lines.join("\n")
}

export const render = (
  workspace: string,
  loaded: LspConfigFile.Loaded,
  reports: ReadonlyArray<LspStdio.ServerDiagnosis>
): string => {
  const blocks: Array<string> = []
  blocks.push(
    [
      `workspace:     ${workspace}`,
      `configuration: ${
        loaded.source._tag === "File"
          ? loaded.source.path
          : "presets (no --config and no lsp-seam.json in the workspace)"
      }`
    ].join("\n")
  )
  for (const report of reports) {
    const preset = loaded.source._tag === "Presets"
      ? loaded.source.detections.find((detection) => detection.preset.id === report.providerId)?.preset
      : undefined
    blocks.push(server(report, loaded.config.servers[report.providerId]?.args ?? [], preset?.install))
  }
  if (loaded.source._tag === "Presets") {
    const inactive = loaded.source.detections.filter((detection) => Option.isNone(detection.executable))
    if (inactive.length > 0) {
      blocks.push(
        [
          "inactive presets (command not found on PATH):",
          ...inactive.map((detection) =>
            `  ${detection.preset.id} (${detection.preset.title}): ${detection.preset.server.command}; ` +
            `install: ${detection.preset.install}`
          )
        ].join("\n")
      )
    }
  }
  const usable = reports.filter((report) => report.usable).length
  const total = reports.length
  blocks.push(
    `${total} server${total === 1 ? "" : "s"} configured: ${usable} usable` +
      (usable === total ? "." : `, ${total - usable} unusable.`)
  )
  return blocks.join("\n\n") + "\n"
}
