/**
 * Where a server is rooted for a file: the nearest directory at or above the file, within the workspace,
 * that holds one of the server's root markers (pyproject.toml, go.mod, compile_commands.json, …), so that a
 * project nested in a repository gets a server that sees its own configuration. Never above the workspace:
 * the workspace stays the boundary of what may be read.
 */
import * as Effect from "effect/Effect"
import type { FileServices } from "./fileAccess.js"
import { fileUriWith } from "./fileUri.js"
import { isInside, type Workspace } from "./workspace.js"

/** Markers in priority order: each entry a name, or names of equal priority. */
export type RootMarkers = ReadonlyArray<string | ReadonlyArray<string>>

/** Whether `directory` holds one of `names` (a file or a directory: `.clangd` may be either). */
const holdsAny = (services: FileServices, directory: string, names: ReadonlyArray<string>) =>
  Effect.reduce(names, false, (found, name) =>
    found
      ? Effect.succeed(true)
      : Effect.map(Effect.option(services.files.stat(services.path.join(directory, name))), (info) =>
        info._tag === "Some"))

/** The directories from `start` up to `workspace`, nearest first; empty when `start` is outside it. */
const ancestors = (services: FileServices, workspace: Workspace, start: string): Array<string> => {
  const { path } = services
  const found: Array<string> = []
  let directory = start
  while (isInside(path, workspace.path, directory)) {
    found.push(directory)
    if (directory === workspace.path) break
    const parent = path.dirname(directory)
    if (parent === directory) break
    directory = parent
  }
  return found
}

/**
 * The root for `filePath` (absolute, or relative to the workspace): the first marker entry, in order, that
 * some directory from the file's own up to the workspace holds, at its nearest such directory; the
 * workspace when none does, when `markers` is empty, or when the file's directory cannot be resolved (the
 * query's own checks then say why).
 */
export const rootFor = (
  services: FileServices,
  workspace: Workspace,
  filePath: string,
  markers: RootMarkers
): Effect.Effect<Workspace> =>
  markers.length === 0 ? Effect.succeed(workspace) : findRoot(services, workspace, filePath, markers)

const findRoot = (
  services: FileServices,
  workspace: Workspace,
  filePath: string,
  markers: RootMarkers
): Effect.Effect<Workspace> =>
  Effect.gen(function*() {
    const { path } = services
    const resolved = yield* Effect.option(
      services.files.realPath(path.dirname(path.resolve(workspace.path, filePath)))
    )
    if (resolved._tag === "None") return workspace
    const directories = ancestors(services, workspace, resolved.value)
    for (const entry of markers) {
      const names = typeof entry === "string" ? [entry] : entry
      for (const directory of directories) {
        if (!(yield* holdsAny(services, directory, names))) continue
        if (directory === workspace.path) return workspace
        const uri = yield* Effect.option(fileUriWith(path, directory))
        return uri._tag === "Some" ? { path: directory, uri: uri.value } : workspace
      }
    }
    return workspace
  })
