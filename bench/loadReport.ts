/**
 * The report of benchmark 14 (bench/load.ts): latency by operation against the single client, fairness
 * between workspaces, queueing per (server, root) and the daemon's memory over time.
 */
import { ms, type Options, type Section, type Target } from "./support/report.js"
import { median, percentile, round } from "./support/stats.js"

/** One answered (or failed) call. */
export interface Sample {
  readonly client: "mcp" | "cli"
  /** The MCP session's workspace (index); -1 for the command stream, which goes round them. */
  readonly workspace: number
  readonly phase: "solo" | "load"
  readonly language: string
  readonly operation: string
  readonly ms: number
  readonly ok: boolean
  /** For a single MCP session's call: the same call to the MCP floor, asked right after it (when it answered). */
  readonly floorMs?: number
}

export interface LoadPart {
  readonly size: {
    readonly workspaces: number
    readonly sessionsPerWorkspace: number
    readonly sessions: number
    readonly soloMs: number
    readonly loadMs: number
    readonly languages: ReadonlyArray<string>
  }
  readonly samples: ReadonlyArray<Sample>
  /** The warm-up's failed calls, and the servers started again during it (before any measurement). */
  readonly warmUp: { readonly failed: number; readonly restarts: number }
  /** The commands SIGKILLed mid-query during the load: how many were killed, how many answered first. */
  readonly churn: { readonly killed: number; readonly answered: number }
  /** Every 250 ms during the load: ms since it began, the daemon's RSS, the servers' total, each queue. */
  readonly status: ReadonlyArray<{
    readonly t: number
    readonly daemonRss: number
    readonly serversRss: number
    readonly queued: ReadonlyArray<{ readonly key: string; readonly queued: number }>
  }>
  /** Each language's servers once the load ended: how many, and the median of their trees' RSS (status). */
  readonly serverMemory: ReadonlyArray<{ readonly language: string; readonly servers: number; readonly rss: number }>
  /** The daemon's RSS after the warm-up and the single clients, and after the load and the second round. */
  readonly daemonRss: { readonly before: number; readonly after: number }
  /** The host's status once the load ended (waited for up to 15 s to drain). */
  readonly after: {
    readonly queued: number
    readonly busy: number
    readonly servers: number
    /** Servers started again since the warm-up. */
    readonly restarts: number
    /** The last error of each server that has one (a restart's reason). */
    readonly lastErrors: ReadonlyArray<string>
  }
}

const MiB = 2 ** 20
const mib = (bytes: number) => (bytes / MiB).toFixed(1)

const sorted = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)
const p50 = (values: ReadonlyArray<number>) => median(values)
const p99 = (values: ReadonlyArray<number>) => percentile(sorted(values), 99)

const times = (samples: ReadonlyArray<Sample>) => samples.filter((s) => s.ok).map((s) => s.ms)

/** Rows of load against solo for each (language, operation) of the MCP sessions, then the command stream. */
const latencyRows = (part: LoadPart) => {
  const of = (client: Sample["client"], phase: Sample["phase"], language?: string, operation?: string) =>
    part.samples.filter((s) =>
      s.client === client && s.phase === phase && (language === undefined || s.language === language) &&
      (operation === undefined || s.operation === operation)
    )
  const row = (label: string, solo: ReadonlyArray<Sample>, load: ReadonlyArray<Sample>) => {
    const [a, b] = [times(solo), times(load)]
    if (a.length === 0 || b.length === 0) return [label, String(a.length), "", "", String(b.length), "", "", "", ""]
    return [
      label,
      String(a.length),
      ms(p50(a)),
      ms(p99(a)),
      String(b.length),
      ms(p50(b)),
      ms(p99(b)),
      `${(p50(b) / p50(a)).toFixed(2)}×`,
      `${(p99(b) / p99(a)).toFixed(2)}×`
    ]
  }
  const keys = [...new Set(part.samples.filter((s) => s.client === "mcp").map((s) => `${s.language} ${s.operation}`))]
  return [
    ...keys.map((key) => {
      const [language = "", operation = ""] = key.split(" ")
      return row(`MCP ${key}`, of("mcp", "solo", language, operation), of("mcp", "load", language, operation))
    }),
    row("MCP, every call", of("mcp", "solo"), of("mcp", "load")),
    row("lsp-seam query --remote (spawn → exit), every call", of("cli", "solo"), of("cli", "load"))
  ]
}

/** Each workspace's MCP calls under load: p50 and p99, and p50 against the median of the workspaces' p50s. */
const fairness = (part: LoadPart) => {
  const perWorkspace = Array.from(
    { length: part.size.workspaces },
    (_, w) => times(part.samples.filter((s) => s.client === "mcp" && s.phase === "load" && s.workspace === w))
  )
  const p50s = perWorkspace.map((values) => values.length === 0 ? Number.NaN : p50(values))
  const middle = median(p50s)
  return {
    rows: perWorkspace.map((values, w) => [
      `w${w}`,
      String(values.length),
      ms(p50s[w]!),
      values.length === 0 ? "" : ms(p99(values)),
      `${(p50s[w]! / middle).toFixed(2)}×`
    ]),
    spread: Math.max(...p50s) / Math.min(...p50s)
  }
}

/** Per (server, root): the most queries seen waiting, the mean, and how often any waited. */
const queueing = (part: LoadPart) => {
  const keys = [...new Set(part.status.flatMap((s) => s.queued.map((q) => q.key)))].sort()
  return keys.map((key) => {
    const seen = part.status.map((s) => s.queued.find((q) => q.key === key)?.queued ?? 0)
    const mean = seen.reduce((a, b) => a + b, 0) / Math.max(1, seen.length)
    const waiting = seen.filter((q) => q > 0).length / Math.max(1, seen.length)
    return [key, String(Math.max(0, ...seen)), mean.toFixed(2), `${(waiting * 100).toFixed(0)} %`]
  })
}

export const loadSection = (part: LoadPart, options: Options): Section => {
  const judged = (pass: boolean) => options.quick ? null : pass
  const { size } = part
  const load = part.samples.filter((s) => s.phase === "load")
  const failed = part.samples.filter((s) => !s.ok)
  const fair = fairness(part)
  const daemon = part.status.map((s) => s.daemonRss)
  const servers = part.status.map((s) => s.serversRss)
  const growth = part.daemonRss.after / part.daemonRss.before
  const clients = size.sessions + 2
  const targets: Array<Target> = [
    {
      name: "every call of every client answered",
      goal: "no failed call (the killed commands aside)",
      measured: `${failed.length} failed of ${part.samples.length}` +
        (failed.length === 0
          ? ""
          : ` (${[...new Set(failed.map((s) => `${s.client} ${s.language} ${s.operation}`))].join(", ")})`),
      pass: judged(failed.length === 0)
    },
    {
      name: "nothing left behind after the load and its killed clients",
      goal: "0 queued, 0 busy, 0 restarts",
      measured: `${part.after.queued} queued, ${part.after.busy} busy, ${part.after.restarts} restarts ` +
        `(${part.churn.killed} commands killed mid-query)`,
      pass: judged(part.after.queued === 0 && part.after.busy === 0 && part.after.restarts === 0)
    },
    {
      name: "the sessions' start: each server started once",
      goal: "0 servers started again while the MCP sessions warm up and ask their first calls",
      measured: `${part.warmUp.restarts} started again, ${part.warmUp.failed} calls failed`,
      pass: judged(part.warmUp.restarts === 0 && part.warmUp.failed === 0),
      note: "a warm-up cancelled while tsserver loads its project used to retire the server (docs/decisions.md)"
    },
    {
      name: "fairness between workspaces",
      goal: "slowest workspace's p50 ≤ 1.5× the fastest's",
      measured: `${fair.spread.toFixed(2)}×`,
      pass: judged(fair.spread <= 1.5)
    },
    {
      name: "the daemon's own memory across the load",
      goal: "after ≤ 1.25× before",
      measured: `${mib(part.daemonRss.before)} → ${mib(part.daemonRss.after)} MiB (${growth.toFixed(2)}×)`,
      pass: judged(growth <= 1.25)
    }
  ]
  const every = Math.max(1, Math.round(part.status.length / 12))
  const soloMcp = part.samples.filter((s) => s.client === "mcp" && s.phase === "solo" && s.ok)
  const paired = soloMcp.flatMap((s) => s.floorMs === undefined ? [] : [s])
  const loadMcp = times(part.samples.filter((s) => s.client === "mcp" && s.phase === "load"))
  const forUsers = [
    ...(paired.length === 0 ? [] : [{
      figure: "an MCP call (one session, warm; hover, definition, references) vs the MCP floor",
      ours: `${ms(p50(paired.map((s) => s.ms)))} ms`,
      reference: `${ms(p50(paired.map((s) => s.floorMs!)))} ms (the SDK's server answering at once)`,
      ratio: `${p50(paired.map((s) => s.ms / s.floorMs!)).toFixed(2)}× (paired)`
    }]),
    ...(soloMcp.length === 0 || loadMcp.length === 0 ? [] : [{
      figure: `an MCP call with ${clients} agents on one host (${size.workspaces} workspaces), p50 / p99`,
      ours: `${ms(p50(loadMcp))} / ${ms(p99(loadMcp))} ms`,
      reference: `${ms(p50(times(soloMcp)))} / ${ms(p99(times(soloMcp)))} ms (one agent alone)`,
      ratio: `${(p50(loadMcp) / p50(times(soloMcp))).toFixed(2)}× / ${(p99(loadMcp) / p99(times(soloMcp))).toFixed(2)}×`
    }]),
    ...part.serverMemory.map((m) => ({
      figure: `memory of one ${m.language} server (its process tree, median of ${m.servers})`,
      ours: `${mib(m.rss)} MiB`,
      reference: `${mib(part.daemonRss.after)} MiB (the daemon itself)`,
      ratio: `${(m.rss / part.daemonRss.after).toFixed(2)}×`
    }))
  ]
  return {
    id: "load",
    title: "14. Many agents, one host",
    method: `One daemon (\`lsp-seam serve --socket … --no-prewarm\`, compiled) and ${size.workspaces} workspaces, ` +
      `each a copy of the TypeScript fixture with a fake-server file${
        size.languages.includes("python") ? " and the Python fixture" : ""
      }: ` +
      `a server per (language, workspace), languages ${size.languages.join(", ")}. Clients as users run them: ` +
      `${size.sessions} \`lsp-seam mcp --remote\` sessions (${size.sessionsPerWorkspace} per workspace, driven by the ` +
      "MCP SDK client), one stream of `lsp-seam query … --remote` commands going round the workspaces, and one " +
      "stream of commands each SIGKILLed 50–400 ms after its spawn; each client asks, waits and asks again, going " +
      "round the same calls (hover, goToDefinition, findReferences per language). After a warm-up (every session " +
      `asks every call twice), the reference: one MCP session alone, then the command stream alone, ${
        size.soloMs / 1000
      } s ` +
      `each, before and after the load; the load: all ${clients} clients at once for ${
        size.loadMs / 1000
      } s. The host's ` +
      "status (the RPC Status call) and the daemon's /proc VmRSS are sampled every 250 ms during the load.",
    tables: [
      {
        caption: `latency, ms: one client alone (solo) against ${clients} clients at once (load)`,
        columns: [
          "calls",
          "solo n",
          "solo p50",
          "solo p99",
          "load n",
          "load p50",
          "load p99",
          "p50 load/solo",
          "p99 load/solo"
        ],
        rows: latencyRows(part)
      },
      {
        caption: "fairness: each workspace's MCP calls under load, ms",
        columns: ["workspace", "calls", "p50", "p99", "p50 / median of workspaces"],
        rows: fair.rows
      },
      {
        caption: `queries waiting per (server, root), ${part.status.length} samples 250 ms apart`,
        columns: ["server root", "max waiting", "mean waiting", "samples with any waiting"],
        rows: queueing(part)
      },
      {
        caption: "memory, MiB",
        columns: ["", "before the load", "during: min", "median", "max", "after"],
        rows: [
          [
            "the daemon's own RSS",
            mib(part.daemonRss.before),
            mib(Math.min(...daemon)),
            mib(median(daemon)),
            mib(Math.max(...daemon)),
            mib(part.daemonRss.after)
          ],
          [
            "the servers' trees (status)",
            "",
            mib(Math.min(...servers)),
            mib(median(servers)),
            mib(Math.max(...servers)),
            ""
          ]
        ]
      }
    ],
    targets,
    forUsers,
    notes: [
      `${load.length} calls under load; ${part.churn.killed} commands killed mid-query, ${part.churn.answered} answered before their kill; ${part.after.servers} servers at the end.`,
      `warm-up: ${part.warmUp.failed} failed calls; ${part.warmUp.restarts} servers started a second time.`,
      ...part.after.lastErrors.map((line) => `last error: ${line}`),
      `daemon RSS over the load (s: MiB): ${
        part.status.filter((_, i) => i % every === 0).map((s) => `${(s.t / 1000).toFixed(0)}: ${mib(s.daemonRss)}`)
          .join(", ")
      }`,
      "The bench process itself drives the MCP sessions (the SDK client) and spawns the commands, on the same cores."
    ],
    data: {
      ...part,
      samples: undefined,
      // One sample a second (of four): the figures above are from all of them.
      status: part.status.filter((_, i) => i % 4 === 0).map((s) => ({
        t: round(s.t, 0),
        daemonRss: s.daemonRss,
        serversRss: s.serversRss,
        queued: Object.fromEntries(s.queued.map((q) => [q.key, q.queued]))
      })),
      calls: Object.fromEntries(
        latencyRows(part).map((row) => [row[0], { soloP50: row[2], soloP99: row[3], loadP50: row[5], loadP99: row[6] }])
      )
    }
  }
}
