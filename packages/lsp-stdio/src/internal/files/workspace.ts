/**
 * The workspace a query runs in, resolved to its canonical directory. Servers are pooled by this path, and
 * sources must stay inside it.
 */
import type * as Path from "@effect/platform/Path"
import { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as NodeUrl from "node:url"
import { type FileError, type Files, type FileServices, fileServices } from "./fileAccess.js"
import { fileUriWith } from "./fileUri.js"

/** A workspace root after `realpath`: an existing directory, and its `file:` URI. */
export interface Workspace {
  readonly path: string
  readonly uri: string
}

/** Why `realpath` failed, in words; `missing` when there is simply nothing at the path. */
export const describeRealPathFailure = (error: FileError): { readonly missing: boolean; readonly reason: string } => {
  switch (error.code) {
    case "ENOENT":
      return { missing: true, reason: "does not exist" }
    case "ENOTDIR":
      return { missing: true, reason: "does not exist (a parent is not a directory)" }
    case "ELOOP":
      return { missing: true, reason: "cannot be resolved: it is a loop of symbolic links" }
    case "EACCES":
    case "EPERM":
      return { missing: false, reason: "cannot be resolved: permission denied" }
    default:
      return { missing: false, reason: `cannot be resolved (${error.message})` }
  }
}

/**
 * Resolves a workspace root with `realpath`; it must be an existing directory. An empty root, a NUL
 * character, a missing path or anything but a directory is `LSP_INVALID_WORKSPACE`. A relative root is
 * resolved against the host's working directory.
 */
export const resolveWorkspace = (
  root: string
): Effect.Effect<Workspace, LspError.LspSourceError, Files | Path.Path> =>
  Effect.flatMap(fileServices, (services) => resolveWorkspaceWith(services, root))

/** `resolveWorkspace` with the file services given. */
export const resolveWorkspaceWith = (
  { files: fs, path }: FileServices,
  root: string
): Effect.Effect<Workspace, LspError.LspSourceError> =>
  Effect.gen(function*() {
    const shown = JSON.stringify(root)
    const invalid = (reason: string) =>
      LspError.invalidWorkspace(`The workspace root ${shown} ${reason}. Use an existing directory.`, {
        workspaceRoot: root
      })
    if (root.length === 0) return yield* invalid("is empty")
    if (root.includes("\0")) return yield* invalid("contains a NUL character")
    const canonical = yield* fs.realPath(root).pipe(
      Effect.mapError((error) => invalid(describeRealPathFailure(error).reason))
    )
    const info = yield* fs.stat(canonical).pipe(
      Effect.mapError((error) => invalid(`cannot be inspected (${error.message})`))
    )
    if (info.type !== "Directory") return yield* invalid(`is not a directory (it resolves to ${canonical})`)
    const uri = yield* fileUriWith(path, canonical).pipe(Effect.mapError((error) => invalid(error.message)))
    return { path: canonical, uri }
  })

/**
 * True when the canonical `candidate` is `root` or lies beneath it, by whole path segments: `/ws2` is not
 * inside `/ws`. Both paths must already be canonical (absolute, `realpath`'d).
 */
export const isInside = (path: Path.Path, root: string, candidate: string): boolean => {
  const relative = path.relative(root, candidate)
  if (relative === "") return true
  if (path.isAbsolute(relative)) return false
  return relative !== ".." && !relative.startsWith(`..${path.sep}`)
}

/** Whether a `file:` URI names a path inside the workspace `root` (other URIs never do). */
export const isInsideUri = (path: Path.Path, root: Workspace, uri: string): boolean => {
  if (!uri.startsWith("file:")) return false
  try {
    return isInside(path, root.path, NodeUrl.fileURLToPath(uri))
  } catch {
    return false
  }
}
