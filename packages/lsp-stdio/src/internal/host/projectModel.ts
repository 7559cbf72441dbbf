/**
 * Whether a server answers a file with its project model: servers that need one (TypeScript's
 * tsconfig.json, clangd's compile_commands.json, gopls' go.mod, …) name its marker files in their config,
 * and a file is governed when a marker lies in its directory or in one above it, up to the workspace root.
 * An ungoverned file still gets answers, but cross-file ones may be partial, and the answer says so — unless
 * the server can be lent the workspace's files instead (`looseFiles`).
 */
import { type LspError, LspExtension, type LspResult } from "@lsp-seam/lsp"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as RetainedDocuments from "../documents/retainedDocuments.js"
import type { SourceLocation } from "../documents/source.js"
import type { FileServices } from "../files/fileAccess.js"
import { isInside, type Workspace } from "../files/workspace.js"
import * as WorkspaceFiles from "../files/workspaceFiles.js"
import * as ServerInstance from "../servers/serverInstance.js"

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

/** How long one listing of a workspace's files stands for a server before it is walked again. */
export const relistAfterMs = 30_000

// Per server: when its workspace was last listed, and what that gave. A walk per cross-file query would be work
// done again and again on the query path (up to 50,000 entries in a large workspace).
const lent = new WeakMap<ServerInstance.ServerInstance, {
  readonly at: number
  readonly partial: LspResult.IncompleteReason | undefined
}>()

/**
 * For a cross-file question about a file no project marker governs: open the workspace's files of this server
 * (within `looseFiles`, retained documents only) and keep them open, so the server sees them. The reason the
 * answer may still be partial, or undefined when it is not. The listing is redone at most every
 * `relistAfterMs`; in between, the files opened stay in step with the disk as every retained document does.
 */
export const lend = (
  services: FileServices,
  spec: ServerInstance.ServerSpec,
  instance: ServerInstance.ServerInstance,
  workspace: Workspace,
  location: SourceLocation
): Effect.Effect<LspResult.IncompleteReason | undefined, LspError.LspLocalError> =>
  Effect.gen(function*() {
    const markers = spec.config.projectMarkers
    const bound = spec.config.looseFiles
    if (bound === null || spec.config.documentSync !== "retained") return noProject(spec.providerId, markers)
    const now = yield* Clock.currentTimeMillis
    const previous = lent.get(instance)
    if (previous !== undefined && now - previous.at < relistAfterMs) return previous.partial
    const languages = ServerInstance.languagesOf(spec)
    const listed = yield* WorkspaceFiles.listFiles(services.files, services.path, workspace.path, [
      ...languages.keys()
    ], { maxFiles: bound.maxFiles, maxBytes: bound.maxBytes, maxEntries: 50_000 })
    const partial = listed.complete ? undefined : tooManyFiles(spec.providerId, markers, bound)
    if (listed.complete) {
      yield* RetainedDocuments.pin(services, instance.retained, instance.connection, {
        workspace,
        paths: listed.files.map((file) => services.path.join(workspace.path, file)).filter((path) =>
          path !== location.path
        ),
        languageOf: (path) => languages.get(LspExtension.finalExtension(path)) ?? "",
        maxDocumentBytes: spec.config.maxDocumentBytes,
        onSent: instance.diagnostics.markSent
      })
    }
    lent.set(instance, { at: now, partial })
    return partial
  })
