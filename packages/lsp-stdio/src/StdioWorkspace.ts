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
export type Target = WorkspaceFiles.Target

/**
 * What a walk found: the first file (relative to the root) per target id, how many directory entries it
 * looked at, and whether it stopped at the entry cap.
 *
 * @since 0.1.0
 * @category models
 */
export type FileSearch = WorkspaceFiles.FileSearch

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
  targets: ReadonlyArray<Target>,
  maxEntries: number = defaultMaxEntries
): Effect.Effect<FileSearch, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const services = { files: FileAccess.platform(yield* FileSystem.FileSystem), path: yield* Path.Path }
    const workspace = yield* Effect.option(resolveWorkspaceWith(services, root))
    const textTargets = workspace._tag === "None" ?
      targets :
      targets.map((target): Target =>
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
