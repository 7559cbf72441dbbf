/**
 * The text `lsp-seam doctor` prints: one block per configured server (with its probe query), the host's
 * status view, the presets that are not installed, then a summary line.
 */
import { LspQuery } from "@lsp-seam/lsp"
import type { LspStdio, StdioStatus } from "@lsp-seam/lsp-stdio"
import type { LspConfigFile } from "@lsp-seam/setup"
import * as Option from "effect/Option"
import type * as DoctorProbe from "./doctorProbe.js"
import * as MemoryReport from "./memoryReport.js"

const operations = LspQuery.LspProviderOperation.literals

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

const probeOf = (
  inspection: Option.Option<DoctorProbe.Inspection>,
  providerId: string
): DoctorProbe.ProbeOutcome | undefined =>
  Option.isSome(inspection) && inspection.value._tag === "Ran" ? inspection.value.probes.get(providerId) : undefined

/** Whether a server passed the diagnosis and, when it was probed, answered its probe. */
const isUsable = (report: LspStdio.ServerDiagnosis, inspection: Option.Option<DoctorProbe.Inspection>): boolean => {
  if (!report.usable) return false
  if (Option.isSome(inspection) && inspection.value._tag === "HostFailed") return false
  return probeOf(inspection, report.providerId)?._tag !== "Failed"
}

/**
 * The ids of the servers that cannot serve queries, in configuration order; `skipped` ones (presets that
 * failed but that nothing in the workspace needs) are not among them.
 */
export const unusable = (
  reports: ReadonlyArray<LspStdio.ServerDiagnosis>,
  inspection: Option.Option<DoctorProbe.Inspection>,
  skipped: ReadonlyArray<string> = []
): ReadonlyArray<string> =>
  reports.filter((report) => !isUsable(report, inspection) && !skipped.includes(report.providerId)).map((report) =>
    report.providerId
  )

const at = (file: string): string => `hover on ${file}:1:1`

const describeProbe = (outcome: DoctorProbe.ProbeOutcome): string => {
  switch (outcome._tag) {
    case "Answered":
      return `${at(outcome.file)} answered in ${outcome.ms} ms${outcome.empty ? " (no hover text there)" : ""}`
    case "Failed":
      return `${at(outcome.file)} failed: ${outcome.error.code}: ${clip(outcome.error.message.trim())}`
    case "NoFile":
      return `not run: no ${outcome.extensions.join(" ")} file in the workspace (looked at ${outcome.visited} ` +
        `entries${outcome.truncated ? ", the most it looks at" : ""}; dot-directories and node_modules skipped)`
  }
}

const megabytes = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`

const duration = (ms: number): string => ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`

const statusLine = (status: StdioStatus.ServerStatus): string => {
  const line = `  ${status.providerId}: pid ${status.pid ?? "-"}, ${status.state}, up ${duration(status.uptimeMs)}, ` +
    `queries served ${status.queriesServed}${status.queued === 0 ? "" : ` (${status.queued} waiting)`}, ` +
    `restarts ${status.restarts}, ` +
    `RSS ${status.rssBytes === null ? "unknown" : megabytes(status.rssBytes)}, workspace ${status.workspace}, ` +
    (status.root === status.workspace ? "" : `root ${status.root}, `)
  return status.lastError === null
    ? `${line}last error: none`
    : `${line}last error:\n      ${indent(clip(status.lastError.trim()), "      ")}`
}

const statusSection = (
  reports: ReadonlyArray<LspStdio.ServerDiagnosis>,
  inspection: Option.Option<DoctorProbe.Inspection>,
  maxServers: number
): string => {
  const title = "status (the host that serves queries, after one probe query per usable server):"
  if (Option.isNone(inspection)) return `${title}\n  no usable server, so no host was started.`
  if (inspection.value._tag === "HostFailed") {
    const error = inspection.value.error
    return `${title}\n  the host could not start: ${error.code}: ${indent(clip(error.message.trim()), "  ")}`
  }
  const status = inspection.value.status
  const lines = [title]
  for (const report of reports) {
    const probe = inspection.value.probes.get(report.providerId)
    if (probe === undefined) continue
    const running = status.filter((entry) => entry.providerId === report.providerId)
    if (running.length === 0) {
      lines.push(
        `  ${report.providerId}: no server running (${
          probe._tag === "NoFile"
            ? "nothing to probe, so never started"
            : probe._tag === "Failed"
            ? "none survived its probe"
            : status.length >= maxServers
            ? `it stopped after its probe: the host runs at most maxServers = ${maxServers} servers and replaced ` +
              "the least recently used"
            : "it stopped after its probe"
        })`
      )
    }
    lines.push(...running.map(statusLine))
  }
  if (inspection.value.memory !== undefined) lines.push(...MemoryReport.render(inspection.value.memory, "  "))
  return lines.join("\n")
}

const verdict = (
  report: LspStdio.ServerDiagnosis,
  inspection: Option.Option<DoctorProbe.Inspection>,
  skipped: boolean
) =>
  isUsable(report, inspection)
    ? "usable"
    : skipped
    ? "skipped (a preset whose command is on PATH but does not work; no file of the workspace needs it)"
    : "UNUSABLE"

const server = (
  report: LspStdio.ServerDiagnosis,
  args: ReadonlyArray<string>,
  fix: string | undefined,
  inspection: Option.Option<DoctorProbe.Inspection>,
  skipped: boolean,
  defaults: LspConfigFile.AppliedDefaults | undefined
): string => {
  const lines = [`${report.providerId}: ${verdict(report, inspection, skipped)}`]
  lines.push(field("command", [report.command, ...args].map(quoteArg).join(" ")))
  if (report.executable !== null) lines.push(field("executable", report.executable))
  else if (report.error?.code === "LSP_EXECUTABLE_NOT_FOUND") lines.push(field("executable", "not found"))
  if (defaults !== undefined) {
    lines.push(field("defaults", `from the ${defaults.presetId} preset: ${defaults.fields.join(", ")}`))
  }
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
  const probe = probeOf(inspection, report.providerId)
  if (probe !== undefined) lines.push(field("probe", describeProbe(probe)))
  if (!report.usable && fix !== undefined) lines.push(field("fix", fix))
  return lines.join("\n")
}

export const render = (
  workspace: string,
  loaded: LspConfigFile.Loaded,
  reports: ReadonlyArray<LspStdio.ServerDiagnosis>,
  inspection: Option.Option<DoctorProbe.Inspection>,
  skipped: ReadonlyArray<string> = []
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
    blocks.push(
      server(
        report,
        loaded.config.servers[report.providerId]?.args ?? [],
        preset?.install,
        inspection,
        skipped.includes(report.providerId),
        loaded.source._tag === "File"
          ? loaded.source.presetDefaults.find((applied) => applied.serverId === report.providerId)
          : undefined
      )
    )
  }
  blocks.push(statusSection(reports, inspection, loaded.config.maxServers))
  if (loaded.source._tag === "Presets") {
    const inactive = loaded.source.detections.filter((detection) => Option.isNone(detection.executable))
    if (inactive.length > 0) {
      blocks.push(
        [
          "inactive presets (command not found in the workspace's node_modules/.bin or on PATH):",
          ...inactive.map((detection) =>
            `  ${detection.preset.id} (${detection.preset.title}): ${detection.preset.server.command}; ` +
            `install: ${detection.preset.install}`
          )
        ].join("\n")
      )
    }
  }
  const failed = unusable(reports, inspection, skipped).length
  const total = reports.length
  const usable = total - failed - skipped.length
  blocks.push(
    `${total} server${total === 1 ? "" : "s"} configured: ${usable} usable` +
      (skipped.length === 0 ? "" : `, ${skipped.length} skipped`) +
      (failed === 0 ? "." : `, ${failed} unusable.`)
  )
  return blocks.join("\n\n") + "\n"
}
