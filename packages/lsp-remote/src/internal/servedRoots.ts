/**
 * The directories a host serves at all: a query's workspace, and its file, must lie inside one of them after
 * `..` and symbolic links are resolved, or it is refused with `LSP_REMOTE_FORBIDDEN` before the served
 * `LspService` sees it. The refusal reads the same whether the path exists or not.
 */
import { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"

/**
 * `path` made absolute with every symbolic link and `..` resolved as the kernel would, one component at a
 * time; from the first component that cannot be resolved (missing, not a directory, a loop, no permission)
 * the rest is taken lexically — nothing below such a component can exist, so it cannot be a link either.
 * When `leave` holds for a resolved prefix, resolving stops there and that prefix is returned: nothing
 * below it is looked at.
 */
export const canonicalPath = (path: string, leave?: (resolved: string) => boolean): string => {
  // Not `Path.resolve`: it would drop `link/..` lexically, where the kernel goes to the link target's parent.
  const absolute = Path.isAbsolute(path) ? path : `${process.cwd()}${Path.sep}${path}`
  let current = Path.parse(process.cwd()).root
  let resolving = true
  for (const part of absolute.split(Path.sep)) {
    if (part === "" || part === ".") continue
    if (part === "..") {
      current = Path.dirname(current)
      continue
    }
    const next = Path.join(current, part)
    if (resolving) {
      try {
        current = Fs.realpathSync.native(next)
        if (leave?.(current) === true) return current
        continue
      } catch {
        resolving = false
      }
    }
    current = next
  }
  return current
}

const isInside = (root: string, candidate: string): boolean => {
  const relative = Path.relative(root, candidate)
  return relative === "" || (!Path.isAbsolute(relative) && relative !== ".." && !relative.startsWith(`..${Path.sep}`))
}

/** Each root as an existing directory's canonical path; anything else is `LSP_INVALID_CONFIG`. */
export const resolveRoots = (
  roots: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<string>, LspError.LspConfigurationError> =>
  Effect.forEach(roots, (root) =>
    Effect.try({
      try: () => {
        const real = Fs.realpathSync.native(Path.resolve(root))
        if (!Fs.statSync(real).isDirectory()) throw new Error("it is not a directory")
        return real
      },
      catch: (cause) =>
        LspError.invalidConfig(
          `The served root "${root}" cannot be used: ${cause instanceof Error ? cause.message : String(cause)}.`,
          { root }
        )
    }))

/**
 * The canonical workspace of a query when it lies inside one of `roots`, else `LSP_REMOTE_FORBIDDEN`. The
 * message names the path as the client gave it and the roots, never what the path resolved to: it must
 * not tell whether anything exists there.
 */
export const admit = (
  roots: ReadonlyArray<string>,
  workspaceRoot: string
): Effect.Effect<string, LspError.LspRemoteError> =>
  Effect.suspend(() => {
    const canonical = workspaceRoot.length === 0 || workspaceRoot.includes("\0")
      ? undefined
      : canonicalPath(workspaceRoot)
    if (canonical !== undefined && roots.some((root) => isInside(root, canonical))) return Effect.succeed(canonical)
    return LspError.remoteForbidden(
      `This lsp-seam host does not serve the workspace ${JSON.stringify(workspaceRoot)}: after resolving ".." ` +
        `and symbolic links it is not inside a served root (${roots.join(", ")}). ` +
        "Query a workspace inside one, or start the host with --root for it.",
      { workspaceRoot, roots }
    )
  })

/**
 * Refuses a query's file (`LSP_REMOTE_FORBIDDEN`) unless it lies inside one of `roots`, written so and once
 * resolved: taken from the admitted `workspace` when relative, its path must be inside a root before anything
 * is looked at, and again after `..` and symbolic links are resolved (a link in a root may point out; the
 * resolution stops where it leaves the roots, so nothing below the link's target is looked at either).
 * Without this the stdio host's own refusals (not found, or outside the workspace at its real path) would
 * tell a client whether a path outside the roots exists and where a link there points.
 * A NUL or an empty path is left to the host's own checks, which refuse it without looking.
 */
export const admitFile = (
  roots: ReadonlyArray<string>,
  workspace: string,
  filePath: string
): Effect.Effect<void, LspError.LspRemoteError> =>
  Effect.suspend(() => {
    if (filePath.length === 0 || filePath.includes("\0")) return Effect.void
    const absolute = Path.isAbsolute(filePath) ? filePath : `${workspace}${Path.sep}${filePath}`
    const inside = (path: string) => roots.some((root) => isInside(root, path))
    // A prefix that is neither in a root nor above one (a link in a root pointing out) ends the resolution.
    const left = (path: string) => !inside(path) && !roots.some((root) => isInside(path, root))
    if (inside(Path.resolve(absolute)) && inside(canonicalPath(absolute, left))) return Effect.void
    return LspError.remoteForbidden(
      `This lsp-seam host does not serve the file ${JSON.stringify(filePath)}: after resolving ".." and ` +
        `symbolic links it is not inside a served root (${roots.join(", ")}). Query files inside one.`,
      { filePath, roots }
    )
  })
