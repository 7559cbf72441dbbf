/**
 * The second half of `lsp-seam doctor`: it builds the real host (the pooled servers queries use), asks every
 * usable server one hover on a real file of the workspace, then reads the host's status view. The host's
 * scope closes before `inspect` returns, so no server outlives the doctor.
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import { LspError, LspExtension, LspService } from "@lsp-seam/lsp"
import type { StdioConfig } from "@lsp-seam/lsp-stdio"
import { StdioStatus, StdioWorkspace } from "@lsp-seam/lsp-stdio"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"

/** A server to probe: which files it handles (normalised extensions) and the largest one it opens. */
export interface Target {
  readonly providerId: string
  readonly extensions: ReadonlyArray<string>
  readonly maxBytes: number
}

export type FileSearch = StdioWorkspace.FileSearch

export const defaultMaxEntries = StdioWorkspace.defaultMaxEntries

/**
 * The first file each target handles, by the host's own bounded walk (`StdioWorkspace.findFiles`: sorted,
 * breadth first, dot-directories and node_modules skipped, links followed only within the workspace).
 */
export const findFiles = (
  root: string,
  targets: ReadonlyArray<Target>,
  maxEntries: number = defaultMaxEntries
): Effect.Effect<FileSearch, never, FileSystem.FileSystem | Path.Path> =>
  StdioWorkspace.findFiles(
    root,
    targets.map((target) => ({ id: target.providerId, extensions: target.extensions, maxBytes: target.maxBytes })),
    maxEntries
  )

/** What the one probe query of a server gave. */
export type ProbeOutcome =
  | { readonly _tag: "Answered"; readonly file: string; readonly ms: number; readonly empty: boolean }
  | { readonly _tag: "Failed"; readonly file: string; readonly error: LspError.LspError }
  | {
    readonly _tag: "NoFile"
    readonly extensions: ReadonlyArray<string>
    readonly visited: number
    readonly truncated: boolean
  }

export const defaultProbeTimeout: Duration.Duration = Duration.seconds(30)

/** One hover at the start of `file` (zero-based 0:0), timed, within `timeout`; never fails. */
export const probe = (
  workspace: string,
  providerId: string,
  file: string,
  timeout: Duration.DurationInput = defaultProbeTimeout
): Effect.Effect<ProbeOutcome, never, LspService.LspService> =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const answer = yield* LspService.query({
      operation: "hover",
      filePath: file,
      position: { line: 0, character: 0 },
      workspaceRoot: workspace
    }).pipe(
      Effect.timeoutFail({
        duration: timeout,
        onTimeout: () =>
          LspError.timeout(
            `${providerId} did not answer a hover on ${file} within ${Duration.format(timeout)}.`,
            { providerId, file }
          )
      }),
      Effect.either
    )
    const ms = (yield* Clock.currentTimeMillis) - started
    return Either.match(answer, {
      onLeft: (error): ProbeOutcome => ({ _tag: "Failed", file, error }),
      onRight: (result): ProbeOutcome => ({
        _tag: "Answered",
        file,
        ms,
        empty: result.kind === "hover" && result.hover === null
      })
    })
  })

export type Inspection =
  | {
    readonly _tag: "Ran"
    readonly probes: ReadonlyMap<string, ProbeOutcome>
    readonly status: ReadonlyArray<StdioStatus.ServerStatus>
    /** The memory budget's view, when the host has one. */
    readonly memory?: StdioStatus.MemoryStatus | undefined
  }
  | { readonly _tag: "HostFailed"; readonly error: LspError.LspError }

export interface InspectOptions {
  readonly timeout?: Duration.DurationInput
  readonly maxEntries?: number
}

/**
 * Builds `host`, probes every target in turn (the host serialises queries of one workspace anyway), reads
 * the status view while the servers still run, then closes the host. A host that cannot be built is
 * reported, not raised, so the diagnosis printed beside it is not lost.
 */
export const inspect = <R>(
  workspace: string,
  targets: ReadonlyArray<Target>,
  host: Layer.Layer<StdioStatus.StdioStatus | LspService.LspService, LspError.LspError, R>,
  options: InspectOptions = {}
): Effect.Effect<Inspection, never, R | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const search = yield* findFiles(workspace, targets, options.maxEntries)
    return yield* Effect.gen(function*() {
      const probes = new Map<string, ProbeOutcome>()
      for (const target of targets) {
        const file = search.found.get(target.providerId)
        probes.set(
          target.providerId,
          file === undefined
            ? { _tag: "NoFile", extensions: target.extensions, visited: search.visited, truncated: search.truncated }
            : yield* probe(workspace, target.providerId, file, options.timeout)
        )
      }
      const view = yield* StdioStatus.StdioStatus
      const status = yield* view.status
      const memory = view.memory === undefined ? undefined : yield* view.memory
      return { _tag: "Ran", probes, status, memory } satisfies Inspection
    }).pipe(
      Effect.provide(host),
      Effect.catchAll((error) => Effect.succeed<Inspection>({ _tag: "HostFailed", error }))
    )
  })

/** The probe targets for the servers the diagnosis found usable, in configuration order. */
export const targetsOf = (
  config: StdioConfig.StdioConfig,
  usable: ReadonlyArray<string>
): ReadonlyArray<Target> =>
  Object.entries(config.servers).filter(([id]) => usable.includes(id)).map(([providerId, server]) => ({
    providerId,
    extensions: Object.keys(server.extensionToLanguage).flatMap((key) =>
      Either.match(LspExtension.normalizeExtensionKey(key), { onLeft: () => [], onRight: (ext) => [ext] })
    ),
    maxBytes: server.maxDocumentBytes
  }))

/** The encoded configuration with only the given servers (the host refuses to start if one cannot run). */
export const restrictTo = (
  input: StdioConfig.StdioConfig.Encoded,
  ids: ReadonlyArray<string>
): StdioConfig.StdioConfig.Encoded => ({
  ...input,
  servers: Object.fromEntries(Object.entries(input.servers).filter(([id]) => ids.includes(id)))
})
