/**
 * The report of benchmark 15 (bench/cluster.ts): queries per second and latency through the cluster against
 * one host in the same run, and the memory of each runner against the host's.
 */
import { ms, type Options, ratio, ratioSummary, type Section, type Table, type Target } from "./support/report.js"
import { median, pairedRatio, round, rounded, summarize, type Summary } from "./support/stats.js"

/** `single`: one host; `cluster`: `serve --cluster` in front of the runners; `direct`: `LspClusterClient`. */
export type Contender = "single" | "cluster" | "direct"

/** One round of one contender: every answer's time (ms), the failures, the round's wall time. */
export interface Run {
  readonly samples: ReadonlyArray<number>
  readonly failures: ReadonlyArray<string>
  readonly elapsedMs: number
  /** CPU time (ms) the answering processes used during the round: the host or front host and runners, with servers. */
  readonly hostCpuMs: number
  /** CPU time (ms) the bench process used during the round: the agents' clients. */
  readonly clientCpuMs: number
}

export interface ProcessMemory {
  readonly label: string
  /** The workspaces it serves (a runner: those placed on it); null for the front host, which serves none. */
  readonly workspaces: number | null
  /** Its own resident memory, bytes, before anything was asked. */
  readonly idleOwn: number
  /** Its own resident memory, bytes, after the load (every workspace's servers running). */
  readonly activeOwn: number
  /** Its process tree's resident memory (with its language servers), bytes, after the load. */
  readonly activeTree: number
  /** The processes below it after the load. */
  readonly processes: number
}

export interface ClusterPart {
  readonly runners: number
  readonly workspaces: number
  readonly rounds: number
  readonly levels: ReadonlyArray<number>
  readonly placement: ReadonlyArray<{ readonly workspace: string; readonly runner: string }>
  readonly sets: ReadonlyArray<{
    readonly label: string
    /** The (workspace, query) pairs the agents go round. */
    readonly requests: number
    readonly levels: ReadonlyArray<
      { readonly agents: number; readonly runs: Readonly<Record<Contender, ReadonlyArray<Run>>> }
    >
  }>
  /** CPU time (ms per second) of the cluster's processes and of one host's, every server up and nothing asked. */
  readonly idleCpu: {
    readonly windowMs: number
    readonly clusterMsPerSecond: number
    readonly singleMsPerSecond: number
  }
  readonly memory: {
    readonly runners: ReadonlyArray<ProcessMemory>
    readonly front: ProcessMemory
    readonly single: ProcessMemory
  }
  /** Processes of the runners' and hosts' trees still alive after they were stopped (then killed). */
  readonly leftAfterStop: ReadonlyArray<number>
}

const contenders: ReadonlyArray<Contender> = ["single", "cluster", "direct"]

const contenderLabel: Record<Contender, string> = {
  single: "one host (`serve`), the reference",
  cluster: "the cluster (`serve --cluster` → runner)",
  direct: "the cluster's client in the bench (`LspClusterClient` → runner)"
}

const MiB = (bytes: number) => (bytes / 2 ** 20).toFixed(1)

const perSecond = (run: Run) => run.samples.length / (run.elapsedMs / 1000)

interface Figures {
  readonly contender: Contender
  readonly queries: number
  readonly failures: number
  readonly firstFailures: ReadonlyArray<string>
  readonly qps: Summary
  readonly latency: Summary
  /** Round by round against the reference's round of the same index. */
  readonly qpsRatio: Summary
  readonly p50Ratio: Summary
  /** Pooled p99 over the reference's. */
  readonly p99Ratio: number
  /** CPU time per answer, ms: the answering processes', and the bench's (the clients). */
  readonly hostCpu: number
  readonly clientCpu: number
  /** Both, over the reference's. */
  readonly cpuRatio: number
}

const answers = (runs: ReadonlyArray<Run>) => runs.reduce((sum, run) => sum + run.samples.length, 0)

const cpuPerAnswer = (runs: ReadonlyArray<Run>, side: "hostCpuMs" | "clientCpuMs") =>
  runs.reduce((sum, run) => sum + run[side], 0) / answers(runs)

const figuresOf = (runs: Readonly<Record<Contender, ReadonlyArray<Run>>>): ReadonlyArray<Figures> => {
  const reference = runs.single
  const referenceCpu = cpuPerAnswer(reference, "hostCpuMs") + cpuPerAnswer(reference, "clientCpuMs")
  return contenders.map((contender) => {
    const own = runs[contender]
    const latency = summarize(own.flatMap((run) => run.samples))
    const referenceLatency = summarize(reference.flatMap((run) => run.samples))
    const hostCpu = cpuPerAnswer(own, "hostCpuMs")
    const clientCpu = cpuPerAnswer(own, "clientCpuMs")
    return {
      contender,
      hostCpu,
      clientCpu,
      cpuRatio: (hostCpu + clientCpu) / referenceCpu,
      queries: answers(own),
      failures: own.reduce((sum, run) => sum + run.failures.length, 0),
      firstFailures: own.flatMap((run) => run.failures).slice(0, 3),
      qps: summarize(own.map(perSecond)),
      latency,
      qpsRatio: pairedRatio(own.map(perSecond), reference.map(perSecond)),
      p50Ratio: pairedRatio(own.map((run) => median(run.samples)), reference.map((run) => median(run.samples))),
      p99Ratio: latency.p99 / referenceLatency.p99
    }
  })
}

export const clusterSection = (part: ClusterPart, options: Options): Section => {
  const judged = options.quick ? null : undefined
  const figures = part.sets.map((set) => ({
    label: set.label,
    requests: set.requests,
    levels: set.levels.map((level) => ({ agents: level.agents, figures: figuresOf(level.runs) }))
  }))
  const tables: Array<Table> = figures.map((set): Table => ({
    caption: `${set.label}: ${part.workspaces} workspaces over ${part.runners} runners, ${part.rounds} rounds ` +
      `per contender and number of agents, in alternating order`,
    columns: [
      "contender",
      "agents",
      "queries",
      "queries/s (median of rounds)",
      "p50 ms",
      "p99 ms",
      "queries/s ÷ one host (paired)",
      "p50 ÷ one host (paired)",
      "p99 ÷ one host",
      "CPU ms per answer (hosts + bench)",
      "CPU ÷ one host",
      "failed"
    ],
    rows: set.levels.flatMap((level) =>
      level.figures.map((f) => [
        contenderLabel[f.contender],
        String(level.agents),
        String(f.queries),
        f.qps.median.toFixed(0),
        ms(f.latency.median),
        ms(f.latency.p99),
        f.contender === "single" ? "" : ratioSummary(f.qpsRatio),
        f.contender === "single" ? "" : ratioSummary(f.p50Ratio),
        f.contender === "single" ? "" : ratio(f.p99Ratio),
        `${f.hostCpu.toFixed(2)} + ${f.clientCpu.toFixed(2)}`,
        f.contender === "single" ? "" : ratio(f.cpuRatio),
        String(f.failures)
      ])
    )
  }))
  const { memory } = part
  const clusterTree = memory.runners.reduce((sum, r) => sum + r.activeTree, 0) + memory.front.activeTree
  const clusterIdle = memory.runners.reduce((sum, r) => sum + r.idleOwn, 0) + memory.front.idleOwn
  const memoryRow = (m: ProcessMemory) => [
    m.label,
    m.workspaces === null ? "" : String(m.workspaces),
    MiB(m.idleOwn),
    MiB(m.activeOwn),
    MiB(m.activeTree),
    String(m.processes)
  ]
  tables.push({
    caption: "memory (resident, MiB): each process alone, idle (joined, nothing asked) and after the load; its " +
      "process tree (with its language servers) after the load",
    columns: ["process", "workspaces", "own, idle", "own, active", "tree, active", "processes below it"],
    rows: [
      ...memory.runners.map(memoryRow),
      memoryRow(memory.front),
      [
        "the cluster in all (runners + front host)",
        String(part.workspaces),
        MiB(clusterIdle),
        MiB(memory.runners.reduce((sum, r) => sum + r.activeOwn, 0) + memory.front.activeOwn),
        MiB(clusterTree),
        String(memory.runners.reduce((sum, r) => sum + r.processes, 0) + memory.front.processes)
      ],
      memoryRow(memory.single)
    ]
  })
  tables.push({
    caption: "placement: where the cluster put each workspace's entity (its `Hello` answer)",
    columns: ["runner", "workspaces"],
    rows: [...new Set(part.placement.map((p) => p.runner))].map((runner) => [
      runner,
      part.placement.filter((p) => p.runner === runner).map((p) => p.workspace).join(", ")
    ])
  })

  const fake = figures[0]!
  const find = (set: typeof fake, agents: number, contender: Contender) =>
    set.levels.find((level) => level.agents === agents)!.figures.find((f) => f.contender === contender)!
  const oneAgent = Math.min(...part.levels)
  const manyAgents = Math.max(...part.levels)
  const fakeSingle1 = find(fake, oneAgent, "single")
  const fakeCluster1 = find(fake, oneAgent, "cluster")
  const fakeSingleN = find(fake, manyAgents, "single")
  const fakeClusterN = find(fake, manyAgents, "cluster")
  const routingCost = fakeCluster1.latency.median - fakeSingle1.latency.median
  const failed = figures.flatMap((set) =>
    set.levels.flatMap((level) => level.figures.filter((f) => f.contender !== "single"))
  )
  const failures = failed.reduce((sum, f) => sum + f.failures, 0)
  const queries = failed.reduce((sum, f) => sum + f.queries, 0)
  const runnerIdle = median(memory.runners.map((r) => r.idleOwn))
  const runnerActive = median(memory.runners.map((r) => r.activeOwn))
  const targets: Array<Target> = [
    {
      name: "every query through the cluster answered",
      goal: "no failure and no answer later than 30 s",
      measured: `${failures} of ${queries} failed`,
      pass: judged === null ? null : failures === 0,
      ...(failures === 0 ? {} : { note: failed.flatMap((f) => f.firstFailures).slice(0, 2).join("; ") })
    },
    {
      name: "the routing cost (fake server, one agent)",
      goal: "measured against one host in the same run (issue 34 sets no bound)",
      measured: `+${ms(routingCost)} ms at p50 (${ms(fakeCluster1.latency.median)} vs ${
        ms(fakeSingle1.latency.median)
      } ms, paired ${ratioSummary(fakeCluster1.p50Ratio)}); ${manyAgents} agents: ${
        ratioSummary(fakeClusterN.qpsRatio)
      } the queries/s; CPU per answer ${fakeCluster1.cpuRatio.toFixed(2)}× one host's`,
      pass: null,
      note: "a figure to read, not a verdict"
    },
    {
      name: "no runner or host leaves a process behind",
      goal: "every process of their trees gone once they are stopped",
      measured: `${part.leftAfterStop.length} left`,
      pass: judged === null ? null : part.leftAfterStop.length === 0
    }
  ]
  const forUsers = [
    {
      figure: "a warm answer through the cluster, one agent (fake server: the routing cost)",
      ours: `${ms(fakeCluster1.latency.median)} ms`,
      reference: `${ms(fakeSingle1.latency.median)} ms (one host)`,
      ratio: `${ratioSummary(fakeCluster1.p50Ratio)} (paired)`
    },
    {
      figure: `queries/s through the cluster, ${manyAgents} agents over ${part.workspaces} workspaces (fake server)`,
      ours: fakeClusterN.qps.median.toFixed(0),
      reference: `${fakeSingleN.qps.median.toFixed(0)} (one host)`,
      ratio: `${ratioSummary(fakeClusterN.qpsRatio)} (paired)`
    },
    {
      figure: "CPU time per answer through the cluster, one agent (fake server; the hosts' processes and the bench's)",
      ours: `${ms(fakeCluster1.hostCpu + fakeCluster1.clientCpu)} ms`,
      reference: `${ms(fakeSingle1.hostCpu + fakeSingle1.clientCpu)} ms (one host)`,
      ratio: ratio(fakeCluster1.cpuRatio)
    },
    {
      figure: "a runner's own memory with nothing asked",
      ours: `${MiB(runnerIdle)} MiB`,
      reference: `${MiB(memory.single.idleOwn)} MiB (one host, idle)`,
      ratio: ratio(runnerIdle / memory.single.idleOwn)
    }
  ]
  const typescript = figures[1]
  const notes: Array<string> = [
    `The routing cost: through the cluster a query costs +${ms(routingCost)} ms at p50 with one agent on the ` +
    "fake server; directly from `LspClusterClient` (no front host) " +
    `${ms(find(fake, oneAgent, "direct").latency.median)} ms against ${ms(fakeSingle1.latency.median)} ms. ` +
    "On a shared machine a wait also holds the time each process of the path waits for a core, and the cluster's " +
    "path has one process more (bench → front host → runner → server, against bench → host → server): the " +
    "CPU time per answer does not count those waits. Through the cluster it is " +
    `${ms(fakeCluster1.hostCpu)} ms in the front host and runners and ${ms(fakeCluster1.clientCpu)} ms in the ` +
    `bench, against ${ms(fakeSingle1.hostCpu)} + ${ms(fakeSingle1.clientCpu)} ms for one host ` +
    `(${ratio(fakeCluster1.cpuRatio)}); ${manyAgents} agents: ${ratio(fakeClusterN.cpuRatio)}. With nothing ` +
    `asked (every server up, ${part.idleCpu.windowMs / 1000} s), the front host and runners use ` +
    `${part.idleCpu.clusterMsPerSecond.toFixed(0)} ms of CPU per second (heartbeats, storage reads), one host ` +
    `${part.idleCpu.singleMsPerSecond.toFixed(0)} ms: the rounds' figures include that upkeep.`,
    ...(typescript === undefined ? [] : [
      `On typescript-language-server, one agent: ${ms(find(typescript, oneAgent, "cluster").latency.median)} ms ` +
      `through the cluster against ${ms(find(typescript, oneAgent, "single").latency.median)} ms on one host ` +
      `(paired ${ratioSummary(find(typescript, oneAgent, "cluster").p50Ratio)}).`
    ]),
    `Memory: a runner holds ${MiB(runnerIdle)} MiB on its own idle and ${MiB(runnerActive)} MiB with its ` +
    `workspaces active (median of ${part.runners}); one host ${MiB(memory.single.idleOwn)} MiB idle and ` +
    `${MiB(memory.single.activeOwn)} MiB serving all ${part.workspaces}. The cluster's trees hold ` +
    `${MiB(clusterTree)} MiB in all against ${MiB(memory.single.activeTree)} MiB for one host ` +
    `(${ratio(clusterTree / memory.single.activeTree)}): the same language servers, plus a Node process per ` +
    "runner and the front host. Tree figures add each process's resident memory, so pages shared between " +
    "processes (Node's code) count once per process."
  ]
  return {
    id: "cluster",
    title: "15. The cluster: routing cost and memory per runner",
    method: `On this machine: ${part.runners} runners (\`lsp-seam runner\`, the compiled command) over one SQLite ` +
      "storage file in a temporary directory, each on its own loopback port, and `lsp-seam serve --cluster` in " +
      "front of them on a Unix socket; the reference is one host, `lsp-seam serve --no-prewarm` on its own " +
      "socket, with the same configuration file (the fake server and typescript-language-server). " +
      `${part.workspaces} workspaces (copies of the TypeScript fixture with a fake-server file) are served by ` +
      "every contender; the cluster places each workspace's entity on a runner (the table below), and the bench " +
      "waits until two rounds of greetings agree. The agents are closed loops (ask, wait, ask the next) going " +
      "round every (workspace, query) pair, agent n starting at pair n, each with its own `LspRemoteClient` " +
      "connection to its host's socket; the third contender is the cluster's own client (`LspClusterClient`, " +
      "one per bench, shared by its agents) reaching the runners without the front host. Each contender is " +
      "warmed first (every pair once, then every agent for a few seconds), then measured in rounds of " +
      `${part.levels.join(" and ")} agents, the contenders in a rotating order each round; queries/s is the ` +
      "answers of a round over its wall time, p50 and p99 pool the rounds' answers, and the ratios pair each " +
      "round with the reference's round of the same index. CPU time is /proc's utime + stime of every " +
      "process of the answering trees (the host, or the front host and the runners, with their servers) and " +
      "the bench's own (`process.cpuUsage`, the clients), read before and after each round, over its answers. " +
      "Memory is /proc's VmRSS (median of 5 readings " +
      "100 ms apart) of each process alone and of its process tree, after every process started and before " +
      "anything was asked (idle), and after the load. At the end every runner and host is stopped (SIGTERM, " +
      "then SIGKILL) and what its tree held is checked gone.",
    tables,
    targets,
    forUsers,
    notes,
    data: {
      runners: part.runners,
      workspaces: part.workspaces,
      rounds: part.rounds,
      levels: part.levels,
      placement: part.placement,
      routingCostMs: round(routingCost),
      sets: figures.map((set) => ({
        label: set.label,
        requests: set.requests,
        levels: set.levels.map((level) => ({
          agents: level.agents,
          contenders: level.figures.map((f) => ({
            contender: f.contender,
            queries: f.queries,
            failures: f.failures,
            firstFailures: f.firstFailures,
            qps: rounded(f.qps, 1),
            latency: rounded(f.latency),
            qpsRatio: rounded(f.qpsRatio),
            p50Ratio: rounded(f.p50Ratio),
            p99Ratio: round(f.p99Ratio),
            hostCpuMsPerAnswer: round(f.hostCpu),
            clientCpuMsPerAnswer: round(f.clientCpu),
            cpuRatio: round(f.cpuRatio)
          }))
        }))
      })),
      idleCpu: {
        windowMs: part.idleCpu.windowMs,
        clusterMsPerSecond: round(part.idleCpu.clusterMsPerSecond, 1),
        singleMsPerSecond: round(part.idleCpu.singleMsPerSecond, 1)
      },
      memory: part.memory,
      leftAfterStop: part.leftAfterStop
    }
  }
}
