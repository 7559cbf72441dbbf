/**
 * Looking into a workspace the way the host does: which files its servers would handle, found with a
 * bounded walk through the platform `FileSystem`.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import { readSourceWith } from "./internal/documents/source.js"
import * as FileAccess from "./internal/files/fileAccess.js"
import { resolveWorkspaceWith } from "./internal/files/workspace.js"
import * as WorkspaceFiles from "./internal/files/workspaceFiles.js"

/**
 * Who wants a file: an id (a provider id, say), the extensions it handles (lower-case, with the dot), and
 * the largest file it accepts in bytes.
 *
 * @since 0.1.0
 * @category models
 */
export type { Target } from "./internal/files/workspaceFiles.js"

/**
 * What a walk found: the first file (relative to the root) per target id, how many directory entries it
 * looked at, and whether it stopped at the entry cap.
 *
 * @since 0.1.0
 * @category models
 */
export type { FileSearch } from "./internal/files/workspaceFiles.js"

/**
 * How many directory entries a walk looks at, at most, by default.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxEntries = WorkspaceFiles.defaultMaxEntries

/**
 * Walks `root` breadth first, entries of each directory in sorted order, and records for each target the
 * first file it handles (no larger than it accepts) that the host could open: a file that looks binary or is
 * not UTF-8 is passed over, unless the target brings its own `accepts`. Dot-directories and node_modules are
 * skipped; the walk stops when every target has a file or after `maxEntries` entries; unreadable entries are
 * passed over. Links are followed only within the workspace, each directory entered once.
 *
 * @since 0.1.0
 * @category utils
 */
export const findFiles = (
  root: string,
  targets: ReadonlyArray<WorkspaceFiles.Target>,
  maxEntries: number = defaultMaxEntries
): Effect.Effect<WorkspaceFiles.FileSearch, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const services = { files: FileAccess.platform(yield* FileSystem.FileSystem), path: yield* Path.Path }
    const workspace = yield* Effect.option(resolveWorkspaceWith(services, root))
    const textTargets = workspace._tag === "None" ?
      targets :
      targets.map((target): WorkspaceFiles.Target =>
        target.accepts !== undefined ? target : {
          ...target,
          accepts: (relative) =>
            readSourceWith(services, workspace.value, relative, target.maxBytes).pipe(
              Effect.as(true),
              Effect.orElseSucceed(() => false)
            )
        }
      )
    return yield* WorkspaceFiles.findFiles(services.files, services.path, root, textTargets, maxEntries)
  })

/**
 * A server that is rooted per project (`rootMarkers`), looked for in a workspace: which roots hold its files.
 *
 * @since 0.1.0
 * @category models
 */
export interface RootedTarget extends WorkspaceFiles.Target {
  /** The server's root markers, names only (a nested list of the configuration flattened). */
  readonly rootMarkers: ReadonlyArray<string>
}

/**
 * One file per root of `target` in `root`, breadth first, at most `maxRoots`: the directories that hold one
 * of its markers and the workspace itself, each with the first file of the target's under it (nearer no other
 * marker) that the host could open. What a host warms so that the roots queries will likely name have their
 * servers started; the host still roots each query itself (marker priority included). Bounded like
 * `findFiles`; never fails.
 *
 * @since 0.1.0
 * @category utils
 */
export const findRootFiles = (
  root: string,
  target: RootedTarget,
  maxRoots: number,
  maxEntries: number = defaultMaxEntries
): Effect.Effect<
  ReadonlyArray<{ readonly root: string; readonly file: string }>,
  never,
  FileSystem.FileSystem | Path.Path
> =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const services = { files: FileAccess.platform(yield* FileSystem.FileSystem), path }
    const workspace = yield* Effect.option(resolveWorkspaceWith(services, root))
    if (workspace._tag === "None" || maxRoots <= 0) return []
    const survey = yield* WorkspaceFiles.findProjects(
      services.files,
      path,
      workspace.value.path,
      target.rootMarkers,
      target.extensions,
      maxEntries
    )
    const roots = new Set(survey.markers.map((marker) => path.dirname(marker)))
    /** The nearest directory at or above `relative`'s that holds a marker; "." for the workspace. */
    const rootOf = (relative: string) => {
      for (let at = path.dirname(relative); at !== "."; at = path.dirname(at)) if (roots.has(at)) return at
      return "."
    }
    const found = new Map<string, string>()
    for (const file of survey.files) {
      const at = rootOf(file)
      if (found.has(at)) continue
      const readable = yield* readSourceWith(services, workspace.value, file, target.maxBytes).pipe(
        Effect.as(true),
        Effect.orElseSucceed(() => false)
      )
      if (readable) found.set(at, file)
      if (found.size >= maxRoots) break
    }
    return [...found].map(([at, file]) => ({ root: at, file }))
  })
