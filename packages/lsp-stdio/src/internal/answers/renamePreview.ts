/**
 * A rename, previewed: `textDocument/prepareRename` where the server offers it, then `textDocument/rename`,
 * and its `WorkspaceEdit` listed as the seam's edits — each flagged when it falls outside the workspace, and
 * given the text it replaces as the disk holds it (read through the host's file access: inside the workspace,
 * checked on the opened file). The edit is never applied, and nothing is written: the host has no way to.
 */
import { LspError, type LspQuery, LspResult } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import { linesOf, readUriWith } from "../documents/source.js"
import type { FileServices } from "../files/fileAccess.js"
import { isInsideUri, type Workspace } from "../files/workspace.js"
import { isUnknownMethod } from "../servers/failures.js"
import type * as ServerInstance from "../servers/serverInstance.js"
import { methodOf, prepareRenameMethod, preparesRename } from "../wire/capabilities.js"
import { type FlatEdit, normalizePrepareRename, normalizeWorkspaceEdit } from "./normalizeEdits.js"

/** What a preview needs of the host beside the server: the files, the workspace, the size limit of a read. */
export interface PreviewContext {
  readonly services: FileServices
  readonly workspace: Workspace
  readonly maxDocumentBytes: number
}

const refused = (providerId: string, newName: string, why: string, detail: Record<string, unknown> = {}) =>
  LspError.cannotRename(
    `The "${providerId}" language server cannot rename the symbol at this position to ${JSON.stringify(newName)}: ` +
      `${why} Nothing was changed.`,
    { providerId, newName, ...detail }
  )

/** A request the server failed (not a missing method, not the wire): its refusal of this rename. */
const refusedByServer = (providerId: string, newName: string) => (error: LspError.LspLocalError) =>
  error.code === "LSP_SERVER_ERROR" && !isUnknownMethod(error)
    ? refused(
      providerId,
      newName,
      `it answered "${typeof error.detail?.message === "string" ? error.detail.message : error.message}".`,
      { serverError: error.detail ?? {} }
    )
    : error

/** The text `range` covers in `lines` (joined with `\n`), or undefined when the range is not in the text. */
const textIn = (lines: ReadonlyArray<string>, range: LspQuery.LspRange): string | undefined => {
  const { end, start } = range
  if (end.line >= lines.length || start.line > end.line) return undefined
  if (start.line === end.line) return lines[start.line]!.slice(start.character, end.character)
  return [
    lines[start.line]!.slice(start.character),
    ...lines.slice(start.line + 1, end.line),
    lines[end.line]!.slice(0, end.character)
  ].join("\n")
}

/** The flat edit as the seam's answer: flagged, with the replaced text where the file could be read. */
const toResult = (context: PreviewContext, flat: FlatEdit) =>
  Effect.gen(function*() {
    const inside = (uri: string) => isInsideUri(context.services.path, context.workspace, uri)
    const files = new Map<string, ReadonlyArray<string> | undefined>()
    for (const { uri } of flat.edits) {
      if (files.has(uri)) continue
      const source = yield* readUriWith(context.services, context.workspace, uri, context.maxDocumentBytes)
      files.set(uri, source === undefined ? undefined : linesOf(source))
    }
    const edits = flat.edits.map((edit): LspResult.LspTextEdit => {
      const lines = files.get(edit.uri)
      const oldText = lines === undefined ? undefined : textIn(lines, edit.range)
      return {
        ...edit,
        ...(oldText === undefined ? {} : { oldText }),
        ...(inside(edit.uri) ? {} : { outsideWorkspace: true as const })
      }
    })
    const resourceOperations = flat.resourceOperations.map((operation): LspResult.LspResourceOperation => {
      const outside = !inside(operation.uri) || (operation.newUri !== undefined && !inside(operation.newUri))
      return {
        kind: operation.kind,
        uri: operation.uri,
        ...(operation.newUri === undefined ? {} : { newUri: operation.newUri }),
        ...(outside ? { outsideWorkspace: true as const } : {})
      }
    })
    return LspResult.edits(edits, resourceOperations, context.workspace.uri)
  })

/**
 * Previews renaming the symbol at `position` of the document `uri` (which the server holds) to `newName`.
 * A position the server will not rename (prepareRename answers null, or either request is refused) is
 * `LSP_CANNOT_RENAME`, with the server's reason when it gave one.
 */
export const preview = (
  instance: ServerInstance.ServerInstance,
  providerId: string,
  request: { readonly uri: string; readonly position: LspQuery.LspPosition; readonly newName: string },
  context: PreviewContext
): Effect.Effect<LspResult.LspEditsResult, LspError.LspLocalError> =>
  Effect.gen(function*() {
    const { newName, position, uri } = request
    const refusal = refusedByServer(providerId, newName)
    if (preparesRename(instance.capabilities.renameProvider)) {
      const raw = yield* Effect.mapError(
        instance.connection.request(prepareRenameMethod, { textDocument: { uri }, position }),
        refusal
      )
      const renameable = yield* normalizePrepareRename(raw)
      if (!renameable) {
        return yield* refused(
          providerId,
          newName,
          "it says the position is not a symbol it can rename (a keyword, a literal, or a symbol declared " +
            "outside the project, such as in a library)."
        )
      }
    }
    const raw = yield* Effect.mapError(
      instance.connection.request(methodOf("renamePreview"), { textDocument: { uri }, position, newName }),
      refusal
    )
    const flat = yield* normalizeWorkspaceEdit(raw)
    return yield* toResult(context, flat)
  })
