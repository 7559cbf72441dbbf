/**
 * The directories a host serves at all: a query's workspace must lie inside one of them after `..` and
 * symbolic links are resolved, or it is refused with `LSP_REMOTE_FORBIDDEN` before the served `LspService`
 * sees it. The refusal reads the same whether the path exists or not.
 */
import { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"

/**
 * `path` made absolute with every symbolic link and `..` resolved as the kernel would, one component at a
 * time; from the first component that cannot be resolved (missing, not a directory, a loop, no permission)
 * the rest is taken lexically — nothing below such a component can exist, so it cannot be a link either.
 */
export const canonicalPath = (path: string): string => {
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
): Effect.Effect<ReadonlyArray<string>, LspError.LspError> =>
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
): Effect.Effect<string, LspError.LspError> =>
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
