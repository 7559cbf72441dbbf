/**
 * Prewarming: when a workspace is first seen, a bounded walk finds one file per configured server (for a server
 * rooted per project, one per root its markers find, up to `maxRootsPerServer`) and one hover at its start is
 * asked of each, on a fiber that no query waits for, so that the first real query of a session meets a started
 * server. Every outcome of a warm-up is ignored.
 *
 * A warm-up's hover is not cancelled when its server is up: the server then still loads its project
 * (tsserver does so on the first open), which the session's first query of that server would wait for anyway,
 * and a hover cancelled while the server is busy loading is settled only after the load, past the host's
 * grace for a cancellation, so the host retired the server and the session's query started another
 * (docs/decisions.md, "Many agents, one host"). It runs on, at most `maxWarmUpMs`, while the next server is
 * warmed: a server whose hover never answers holds up its own first query that long, not the others.
 *
 * Nor may warming slow a query down by taking the machine: servers are warmed one at a time (starting a
 * language server is CPU-heavy, and eight at once on two cores made the query that triggered them ~0.5–1 s
 * slower), and a host that learns of a workspace from a query warms it after that query has been answered
 * (`afterQueries`).
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { LspExtension, LspService } from "@lsp-seam/lsp"
import { LspRemoteClient } from "@lsp-seam/lsp-remote"
import { type StdioConfig, StdioStatus, StdioWorkspace } from "@lsp-seam/lsp-stdio"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Fs from "node:fs"

/** How many directory entries the walk looks at, at most. */
export const maxEntries = 2_000

export interface Prewarm {
  /** Starts warming `workspaceRoot` in the background the first time it is seen; returns at once. */
  readonly seen: (workspaceRoot: string) => Effect.Effect<void>
}

/**
 * Languages of data and markup, not source: a preset server for them (JSON, YAML, HTML, CSS, Markdown) is
 * rarely what an agent's next query needs, and each takes a process and tens of MB, so only a configuration
 * that names such a server gets it warmed.
 */
export const dataLanguages: ReadonlySet<string> = new Set([
  "json",
  "jsonc",
  "yaml",
  "html",
  "css",
  "scss",
  "less",
  "markdown"
])

const isDataServer = (server: StdioConfig.ServerConfig) =>
  Object.values(server.extensionToLanguage).every((language) => dataLanguages.has(language))

const targetsOf = (config: StdioConfig.StdioConfig, warmData: boolean): ReadonlyArray<StdioWorkspace.Target> =>
  Object.entries(config.servers).filter(([, server]) => warmData || !isDataServer(server)).map(([id, server]) => ({
    id,
    extensions: Object.keys(server.extensionToLanguage).flatMap((key) =>
      Either.match(LspExtension.normalizeExtensionKey(key), { onLeft: () => [], onRight: (ext) => [ext] })
    ),
    maxBytes: server.maxDocumentBytes
  }))

/**
 * What a warm-up needs of a status view: which servers run, for which workspace and root (the workspace when
 * the view gives none), in which state.
 */
export type Status = Effect.Effect<
  ReadonlyArray<{
    readonly providerId: string
    readonly workspace: string
    readonly root?: string | null | undefined
    readonly state: string
  }>,
  unknown
>

const realPath = (path: string) => {
  try {
    return Fs.realpathSync(path)
  } catch {
    return path
  }
}

/** How long a warm-up's hover may run before it is cancelled (the host's own deadlines then apply). */
export const maxWarmUpMs = 15_000

/** Completes once `providerId`'s server for `root` has started (polling the status view). */
const started = (status: Status, candidate: Candidate, workspace: string): Effect.Effect<void> =>
  Effect.gen(function*() {
    while (true) {
      const servers = yield* Effect.orElseSucceed(status, () => [])
      if (
        servers.some((server) =>
          server.providerId === candidate.providerId && server.workspace === workspace &&
          (server.root ?? workspace) === candidate.root && server.state !== "starting"
        )
      ) return
      yield* Effect.sleep("100 millis")
    }
  })

/** How many roots of one server (projects found by its `rootMarkers`) a workspace's warm-up starts, at most. */
export const maxRootsPerServer = 3

/** A server to warm: which, for which root (canonical), through which file (relative to the workspace). */
interface Candidate {
  readonly providerId: string
  readonly root: string
  readonly file: string
}

const markersOf = (server: StdioConfig.ServerConfig): ReadonlyArray<string> =>
  server.rootMarkers.flatMap((entry) => typeof entry === "string" ? [entry] : entry)

/**
 * What the walk found to warm: per server, a file of the workspace; for a server rooted per project, a file
 * of each root (up to `maxRootsPerServer`). Each server's first root comes before any server's second, so
 * that what the host has room for goes to the servers a query will most likely need.
 */
const candidatesOf = (
  config: StdioConfig.StdioConfig,
  workspaceRoot: string,
  canonical: string,
  warmData: boolean
): Effect.Effect<ReadonlyArray<Candidate>, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const targets = targetsOf(config, warmData)
    const rooted = (id: string) => markersOf(config.servers[id]!)
    const search = yield* StdioWorkspace.findFiles(
      workspaceRoot,
      targets.filter((target) => rooted(target.id).length === 0),
      maxEntries
    )
    const perServer = yield* Effect.forEach(targets, (target): Effect.Effect<
      ReadonlyArray<Candidate>,
      never,
      FileSystem.FileSystem | Path.Path
    > => {
      const markers = rooted(target.id)
      if (markers.length === 0) {
        const file = search.found.get(target.id)
        return Effect.succeed(file === undefined ? [] : [{ providerId: target.id, root: canonical, file }])
      }
      return Effect.map(
        StdioWorkspace.findRootFiles(workspaceRoot, { ...target, rootMarkers: markers }, maxRootsPerServer, maxEntries),
        (found) =>
          found.map(({ file, root }) => ({
            providerId: target.id,
            root: root === "." ? canonical : path.join(canonical, root),
            file
          }))
      )
    })
    const rounds = Math.max(0, ...perServer.map((found) => found.length))
    return Array.from({ length: rounds }, (_, round) => perServer.flatMap((found) => found.slice(round, round + 1)))
      .flat()
  })

/**
 * The candidates worth warming: not those whose server already runs for that root, and no more than the host
 * has room for (`maxServers` less the servers it runs, when `status` tells): a warm-up beyond that would only
 * evict a server, perhaps the very one the session is using.
 */
const worthWarming = (
  found: ReadonlyArray<Candidate>,
  maxServers: number,
  workspace: string,
  status: Option.Option<Status>
): Effect.Effect<ReadonlyArray<Candidate>> =>
  Effect.map(
    Option.match(status, { onNone: () => Effect.succeed([]), onSome: (view) => Effect.orElseSucceed(view, () => []) }),
    (running) => {
      const here = new Set(
        running.filter((server) => server.workspace === workspace).map((s) => `${s.providerId} ${s.root ?? workspace}`)
      )
      return found.filter((candidate) => !here.has(`${candidate.providerId} ${candidate.root}`))
        .slice(0, Math.max(0, maxServers - running.length))
    }
  )

/**
 * Warms `workspaceRoot` now (the walk, then one hover per server and root found that is worth warming, each
 * begun once the previous one's server has started, or has answered when `status` is not given); never fails.
 */
export const warm = (
  service: LspService.LspServiceShape,
  config: StdioConfig.StdioConfig,
  workspaceRoot: string,
  status: Option.Option<Status> = Option.none(),
  warmData = false
): Effect.Effect<void, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const canonical = realPath(workspaceRoot)
    const candidates = yield* candidatesOf(config, workspaceRoot, canonical, warmData)
    const targets = yield* worthWarming(candidates, config.maxServers, canonical, status)
    // One server starting at a time; each warm-up's hover runs on (bounded) while the next server starts.
    const running: Array<Fiber.RuntimeFiber<void>> = []
    for (const candidate of targets) {
      const hover = yield* Effect.fork(
        service.query({
          operation: "hover",
          filePath: path.join(workspaceRoot, candidate.file),
          position: { line: 0, character: 0 },
          workspaceRoot
        }).pipe(Effect.timeout(maxWarmUpMs), Effect.ignore)
      )
      running.push(hover)
      yield* Option.match(status, {
        onNone: () => Fiber.await(hover),
        onSome: (view) => Effect.raceFirst(Fiber.await(hover), started(view, candidate, canonical))
      })
    }
    yield* Fiber.joinAll(running)
  }).pipe(Effect.catchAllCause(() => Effect.void), Effect.withSpan("lsp-seam.prewarm"))

/**
 * A prewarmer whose warm-ups run on fibers of the scope (interrupted when it closes). When `enabled` is
 * false, `seen` does nothing. `warmData`: the configuration names its servers itself (a file, not the
 * presets), so data and markup servers are warmed too.
 */
export const make = (
  service: LspService.LspServiceShape,
  config: StdioConfig.StdioConfig,
  enabled: boolean,
  status: Option.Option<Status> = Option.none(),
  warmData = false
): Effect.Effect<Prewarm, never, Scope.Scope | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    if (!enabled) return { seen: () => Effect.void }
    const fibers = yield* FiberSet.make()
    const context = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
    const known = new Set<string>()
    return {
      seen: (workspaceRoot) =>
        Effect.suspend(() => {
          if (known.has(workspaceRoot)) return Effect.void
          known.add(workspaceRoot)
          // Interruptible whatever the caller's region (`afterQueries` calls this from a finalizer): a warm-up
          // must end when the scope closes, and the host's own deadlines work by interruption.
          return Effect.asVoid(
            FiberSet.run(
              fibers,
              Effect.interruptible(Effect.provide(warm(service, config, workspaceRoot, status, warmData), context))
            )
          )
        })
    }
  })

/**
 * `service` with `prewarm` told of each query's workspace once the query has ended (answered, failed or
 * interrupted), so that the query that first names a workspace runs before any warm-up and alone.
 */
export const afterQueries = (
  service: LspService.LspServiceShape,
  prewarm: Prewarm
): LspService.LspServiceShape =>
  LspService.LspService.of({
    registerProvider: service.registerProvider,
    query: (request) => Effect.ensuring(service.query(request), prewarm.seen(request.workspaceRoot))
  })

/**
 * Warms `workspaceRoot` in the background while the Layer lives (for `lsp-seam mcp`: the session's workspace,
 * when the session starts); building it waits for nothing.
 */
export const layer = (
  workspaceRoot: string,
  config: StdioConfig.StdioConfig,
  enabled: boolean,
  warmData = false
): Layer.Layer<never, never, LspService.LspService | FileSystem.FileSystem | Path.Path> =>
  enabled
    ? Layer.scopedDiscard(
      Effect.gen(function*() {
        const service = yield* LspService.LspService
        // The local host's status view, or the remote host's.
        const local = yield* Effect.serviceOption(StdioStatus.StdioStatus)
        const remote = yield* Effect.serviceOption(LspRemoteClient.LspRemoteClient)
        const status: Option.Option<Status> = Option.orElse(
          Option.map(local, (view) => view.status),
          () => Option.map(remote, (client) => client.status)
        )
        yield* Effect.forkScoped(warm(service, config, workspaceRoot, status, warmData))
      })
    )
    : Layer.empty
