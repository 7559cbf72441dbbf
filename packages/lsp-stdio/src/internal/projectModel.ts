/**
 * Whether a server answers a file with its project model: servers that need one (TypeScript's
 * tsconfig.json, clangd's compile_commands.json, gopls' go.mod, …) name its marker files in their config,
 * and a file is governed when a marker lies in its directory or in one above it, up to the workspace root.
 * An ungoverned file still gets answers, but cross-file ones may be partial, and the answer says so.
 */
import type { LspResult } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import type { FileServices } from "./fileAccess.js"
import { isInside, type Workspace } from "./workspace.js"

/** Whether a marker file lies in `filePath`'s directory or above it, within `workspace`. */
export const isGoverned = (
  services: FileServices,
  workspace: Workspace,
  filePath: string,
  markers: ReadonlyArray<string>
): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    const { path } = services
    let directory = path.dirname(filePath)
    while (true) {
      for (const marker of markers) {
        const found = yield* Effect.option(services.files.stat(path.join(directory, marker)))
        if (found._tag === "Some" && found.value.type === "File") return true
      }
      if (directory === workspace.path || !isInside(path, workspace.path, directory)) return false
      const parent = path.dirname(directory)
      if (parent === directory) return false
      directory = parent
    }
  })

/** The reason an answer about an ungoverned file is flagged, with what would make it complete. */
export const noProject = (providerId: string, markers: ReadonlyArray<string>): LspResult.IncompleteReason => ({
  reason: "no-project",
  message: `No ${markers.join(" or ")} governs this file, so the "${providerId}" server answered without its ` +
    "project model and uses in other files may be missing. For a complete answer add a " +
    `${markers[0]} at the project root, or confirm with a text search.`
})

/** The reason for a workspace too large to lend the server its files (see `looseFiles`). */
export const tooManyFiles = (
  providerId: string,
  markers: ReadonlyArray<string>,
  bound: { readonly maxFiles: number; readonly maxBytes: number }
): LspResult.IncompleteReason => ({
  reason: "no-project",
  message: `No ${markers.join(" or ")} governs this file, and the workspace has more than ${bound.maxFiles} of ` +
    `the "${providerId}" server's files (or more than ${bound.maxBytes} bytes) to open instead, so uses in other ` +
    `files may be missing. For a complete answer add a ${markers[0]} at the project root, or confirm with a ` +
    "text search."
})
