/**
 * The answers of a rename: `textDocument/prepareRename` (whether, and where, the position can be renamed) and
 * `textDocument/rename` (a `WorkspaceEdit`), validated and flattened into the seam's text edits and file
 * operations. Nothing here applies an edit: lsp-seam never writes.
 */
import { type LspError, LspQuery, type LspResult } from "@lsp-seam/lsp"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { decodeAt, describe, isRecord, malformed, unwrap, Uri } from "./normalize.js"

const TextEdit = Schema.Struct({
  range: LspQuery.LspRange,
  newText: Schema.String
})

const TextDocumentEdit = Schema.Struct({
  textDocument: Schema.Struct({ uri: Uri }),
  edits: Schema.Array(TextEdit)
})

const CreateOrDeleteFile = Schema.Struct({ kind: Schema.Literal("create", "delete"), uri: Uri })
const RenameFile = Schema.Struct({ kind: Schema.Literal("rename"), oldUri: Uri, newUri: Uri })

const Changes = Schema.Record({ key: Schema.String, value: Schema.Array(TextEdit) })

/** What the host makes of a `WorkspaceEdit`: its text edits and file operations, in the server's order. */
export interface FlatEdit {
  readonly edits: ReadonlyArray<Pick<LspResult.LspTextEdit, "uri" | "range" | "newText">>
  readonly resourceOperations: ReadonlyArray<Pick<LspResult.LspResourceOperation, "kind" | "uri" | "newUri">>
}

const documentChange = (
  entry: unknown,
  where: string
): Either.Either<FlatEdit, LspError.LspLocalError> => {
  const kind = isRecord(entry) ? entry.kind : undefined
  switch (kind) {
    case "create":
    case "delete":
      return Either.map(
        decodeAt(CreateOrDeleteFile, "renamePreview", `expected a ${kind} file operation`, where, entry),
        (operation) => ({ edits: [], resourceOperations: [{ kind: operation.kind, uri: operation.uri }] })
      )
    case "rename":
      return Either.map(
        decodeAt(RenameFile, "renamePreview", "expected a RenameFile", where, entry),
        ({ newUri, oldUri }) => ({ edits: [], resourceOperations: [{ kind: "rename", uri: oldUri, newUri }] })
      )
    default:
      return Either.map(
        decodeAt(TextDocumentEdit, "renamePreview", "expected a TextDocumentEdit", where, entry),
        ({ edits, textDocument }) => ({
          edits: edits.map(({ newText, range }) => ({ uri: textDocument.uri, range, newText })),
          resourceOperations: []
        })
      )
  }
}

/**
 * Normalises the answer to `textDocument/rename`: `null` (nothing to change) gives nothing; a `WorkspaceEdit`
 * gives its `documentChanges` when it has them (text document edits and file operations, as the protocol
 * says they take precedence), else its `changes`. Annotated edits count as plain ones (their annotations are
 * not kept). Anything else is `LSP_MALFORMED_RESPONSE`.
 */
export const normalizeWorkspaceEdit = (raw: unknown): Either.Either<FlatEdit, LspError.LspLocalError> => {
  const result = unwrap(raw)
  if (Option.isNone(result)) return Either.left(malformed("renamePreview", "the response has no result"))
  const value = result.value
  if (value === null) return Either.right({ edits: [], resourceOperations: [] })
  if (!isRecord(value)) {
    return Either.left(malformed("renamePreview", `expected null or a WorkspaceEdit, got ${describe(value)}`))
  }
  if (value.documentChanges !== undefined && value.documentChanges !== null) {
    if (!Array.isArray(value.documentChanges)) {
      return Either.left(
        malformed("renamePreview", `result.documentChanges must be an array, got ${describe(value.documentChanges)}`)
      )
    }
    const entries: ReadonlyArray<unknown> = value.documentChanges
    const edits: Array<FlatEdit["edits"][number]> = []
    const resourceOperations: Array<FlatEdit["resourceOperations"][number]> = []
    for (let i = 0; i < entries.length; i++) {
      const change = documentChange(entries[i], `.documentChanges[${i}]`)
      if (Either.isLeft(change)) return Either.left(change.left)
      edits.push(...change.right.edits)
      resourceOperations.push(...change.right.resourceOperations)
    }
    return Either.right({ edits, resourceOperations })
  }
  if (value.changes === undefined || value.changes === null) return Either.right({ edits: [], resourceOperations: [] })
  return Either.map(
    decodeAt(Changes, "renamePreview", "expected changes: { [uri]: TextEdit[] }", ".changes", value.changes),
    (changes) => ({
      edits: Object.entries(changes).flatMap(([uri, edits]) =>
        edits.map(({ newText, range }) => ({ uri, range, newText }))
      ),
      resourceOperations: []
    })
  )
}

const PrepareRange = Schema.Struct({ range: LspQuery.LspRange, placeholder: Schema.optional(Schema.String) })
const PrepareDefault = Schema.Struct({ defaultBehavior: Schema.Boolean })

/**
 * What `textDocument/prepareRename` said: `true` when the position can be renamed (a range, a range with a
 * placeholder, or `{ defaultBehavior: true }`), `false` when it cannot (`null`, or `defaultBehavior: false`).
 */
export const normalizePrepareRename = (raw: unknown): Either.Either<boolean, LspError.LspLocalError> => {
  const result = unwrap(raw)
  const problem = (text: string) =>
    malformed("renamePreview", `textDocument/prepareRename answered ${text}`, "prepareRename")
  if (Option.isNone(result)) return Either.left(problem("without a result"))
  const value = result.value
  if (value === null) return Either.right(false)
  if (isRecord(value) && "defaultBehavior" in value) {
    return Either.mapBoth(decodeAt(PrepareDefault, "renamePreview", "expected { defaultBehavior }", "", value), {
      onLeft: () => problem("a malformed { defaultBehavior }"),
      onRight: ({ defaultBehavior }) => defaultBehavior
    })
  }
  const range: Either.Either<unknown, LspError.LspLocalError> = isRecord(value) && "range" in value
    ? decodeAt(PrepareRange, "renamePreview", "expected { range, placeholder }", "", value)
    : decodeAt(LspQuery.LspRange, "renamePreview", "expected a Range", "", value)
  return Either.mapBoth(range, {
    onLeft: () => problem(`${describe(value)} that is not a range`),
    onRight: () => true
  })
}
