/**
 * The scope of a cross-file answer (findReferences, renamePreview, goToImplementation, incomingCalls,
 * workspaceSymbol) is a function of the question and the workspace, never of what earlier questions opened:
 * every source file of the server's language under its root. Files the server's own configuration leaves out
 * (pyright's `include`/`exclude`: `excludedFiles`) are opened for the question, within a bound; what the bound
 * leaves out is named in the answer (excluded-by-config), and a location in a file outside the scope — one only
 * an earlier question opened — is dropped, so a busy host answers as a fresh one does.
 */
import * as Path from "@effect/platform/Path"
import { type LspError, LspExtension, type LspQuery, LspResult } from "@lsp-seam/lsp"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Requests from "../answers/requests.js"
import * as RetainedDocuments from "../documents/retainedDocuments.js"
import { linesOf, readUriWith } from "../documents/source.js"
import type { FileServices } from "../files/fileAccess.js"
import { uriToPath } from "../files/fileUri.js"
import { isInside, type Workspace } from "../files/workspace.js"
import * as WorkspaceFiles from "../files/workspaceFiles.js"
import * as ServerInstance from "../servers/serverInstance.js"
import * as ConfiguredScope from "./configuredScope.js"
import { relistAfterMs } from "./projectModel.js"

/** The operations whose answer is searched across files, and so has a defined scope. */
export const isScoped = (operation: LspQuery.LspProviderOperation): boolean =>
  operation === "findReferences" || operation === "renamePreview" || operation === "goToImplementation" ||
  operation === "incomingCalls" || operation === "workspaceSymbol"

/** How many directory entries under a root are looked at to list its files. */
export const maxEntries = 50_000

/** A question's scope on one server: whether a file (absolute) is in it, and what the answer must say it lacks. */
export interface Scope {
  readonly includes: (file: string) => boolean
  /** The files (absolute) the question opened because the server's configuration leaves them out. */
  readonly opened: ReadonlySet<string>
  readonly partial: LspResult.IncompleteReason | undefined
}

const listed = (names: ReadonlyArray<string>) =>
  names.length <= 5 ? names.join(", ") : `${names.slice(0, 5).join(", ")} and ${names.length - 5} more`

/** The reason for left-out files the bound kept from being opened, naming them and the setting that left them out. */
const excludedByConfig = (
  providerId: string,
  source: string,
  skipped: ReadonlyArray<{ readonly relative: string; readonly verdict: ConfiguredScope.Verdict }>,
  bound: { readonly maxFiles: number; readonly maxBytes: number }
): LspResult.IncompleteReason => {
  const setting = skipped.some((file) => file.verdict === "not-included") ? "include" : "exclude"
  return {
    reason: "excluded-by-config",
    message: `${skipped.length} file(s) under the "${providerId}" server's root that ${source} leaves out (its ` +
      `${setting}) were not searched: ${listed(skipped.map((file) => file.relative))}; at most ` +
      `${bound.maxFiles} such files (${bound.maxBytes} bytes) are opened for a question (excludedFiles). Uses in ` +
      "them may be missing; widen the configuration's include, or confirm with a text search."
  }
}

/** The reason for a root too large to be listed whole. */
const notListed = (providerId: string, source: string): LspResult.IncompleteReason => ({
  reason: "excluded-by-config",
  message: `The "${providerId}" server's root has more than ${maxEntries} entries, so files that ${source} leaves ` +
    "out further in were not looked for and uses in them may be missing. Run the query from the project's " +
    "directory, or confirm with a text search."
})

// Per server: when its root was last listed, and the scope that gave. Listing walks the whole root (up to
// `maxEntries`): once per `relistAfterMs`, not per question.
const scopes = new WeakMap<ServerInstance.ServerInstance, { readonly at: number; readonly scope: Scope }>()

/**
 * Before a cross-file question on a server with `excludedFiles`: the files under its root that its configuration
 * leaves out are opened (retained and pinned, so they stay in step with the disk), up to the bound, in the walk's
 * order (breadth first, sorted: the same files every time). The question's scope: the files the configuration
 * includes, and those opened.
 */
export const open = (
  services: FileServices,
  spec: ServerInstance.ServerSpec,
  instance: ServerInstance.ServerInstance,
  root: Workspace,
  asked: string
): Effect.Effect<Scope | undefined, LspError.LspLocalError> =>
  Effect.gen(function*() {
    const bound = spec.config.excludedFiles
    if (bound === null || spec.config.documentSync !== "retained") return undefined
    const now = yield* Clock.currentTimeMillis
    const previous = scopes.get(instance)
    if (previous !== undefined && now - previous.at < relistAfterMs) return previous.scope
    const { path } = services
    const configured = yield* ConfiguredScope.read(services, root, bound.reader)
    const languages = ServerInstance.languagesOf(spec)
    const sources = yield* WorkspaceFiles.listSources(
      services.files,
      path,
      root.path,
      [...languages.keys()],
      maxEntries
    )
    const leftOut: Array<
      { readonly relative: string; readonly size: number; readonly verdict: ConfiguredScope.Verdict }
    > = []
    for (const file of sources.files) {
      const verdict = configured.verdict(file.relative)
      if (verdict === "included" || (yield* ConfiguredScope.inEnvironment(services, configured, file.relative))) {
        continue
      }
      leftOut.push({ ...file, verdict })
    }
    const opened: Array<string> = []
    let bytes = 0
    for (const file of leftOut) {
      if (opened.length >= bound.maxFiles || bytes + file.size > bound.maxBytes) break
      opened.push(file.relative)
      bytes += file.size
    }
    const skipped = leftOut.slice(opened.length)
    yield* RetainedDocuments.pin(services, instance.retained, instance.connection, {
      workspace: root,
      paths: opened.map((relative) => path.join(root.path, relative)).filter((file) => file !== asked),
      languageOf: (file) => languages.get(LspExtension.finalExtension(file)) ?? "",
      maxDocumentBytes: spec.config.maxDocumentBytes,
      onSent: instance.diagnostics.markSent
    })
    const searched = new Set(opened)
    const scope: Scope = {
      opened: new Set(opened.map((relative) => path.join(root.path, relative))),
      includes: (file) => {
        if (!isInside(path, root.path, file)) return true
        const relative = path.relative(root.path, file)
        return searched.has(relative) || configured.verdict(relative) === "included"
      },
      partial: skipped.length > 0
        ? excludedByConfig(spec.providerId, configured.source, skipped, bound)
        : sources.complete
        ? undefined
        : notListed(spec.providerId, configured.source)
    }
    scopes.set(instance, { at: now, scope })
    return scope
  })

/**
 * The answer without what lies outside the question's scope (files under the root that neither the server's
 * configuration nor the question opened: only an earlier question's open document put them in the program).
 */
export const confine = (
  path: Path.Path,
  scope: Scope,
  result: LspResult.LspQueryResult,
  /** The asked file (absolute): always searched, the server holds it for the question whatever the bound. */
  asked?: string
): Effect.Effect<LspResult.LspQueryResult> =>
  Effect.gen(function*() {
    const inScope = (uri: string) =>
      Effect.map(
        Effect.option(uriToPath(uri).pipe(Effect.provideService(Path.Path, path))),
        (file) => Option.isNone(file) || file.value === asked || scope.includes(file.value)
      )
    const keep = <A>(items: ReadonlyArray<A>, uriOf: (item: A) => string) =>
      Effect.filter(items, (item) => inScope(uriOf(item)))
    const confined: LspResult.LspQueryResult = result.kind === "locations"
      ? { ...result, locations: yield* keep(result.locations, (location) => location.uri) }
      : result.kind === "calls" && result.direction === "incoming"
      ? { ...result, calls: yield* keep(result.calls, (call) => call.uri) }
      : result.kind === "symbols"
      ? { ...result, symbols: yield* keep(result.symbols, (symbol) => symbol.uri) }
      : result.kind === "edits"
      ? { ...result, edits: yield* keep(result.edits, (edit) => edit.uri) }
      : result
    return scope.partial === undefined ? confined : LspResult.markIncomplete(confined, scope.partial)
  })

/**
 * A rename preview completed in the files the question opened: a server may rename only in the files its
 * configuration makes its own (pyright renames in tracked files, not in open ones), though it finds the
 * references in them. Each reference there that the rename left without an edit gets one: the reference's range,
 * which names the symbol, replaced by the new name.
 */
export const completeRename = (
  asking: {
    readonly services: FileServices
    readonly instance: ServerInstance.ServerInstance
    readonly workspace: Workspace
    readonly maxDocumentBytes: number
  },
  query: Extract<LspQuery.LspProviderQuery, { readonly operation: "renamePreview" }>,
  uri: string,
  scope: Scope,
  result: LspResult.LspEditsResult
): Effect.Effect<LspResult.LspEditsResult, LspError.LspLocalError> =>
  Effect.gen(function*() {
    if (scope.opened.size === 0) return result
    const { services, workspace } = asking
    const references = yield* Requests.ask(
      asking.instance,
      {
        operation: "findReferences",
        filePath: query.filePath,
        position: query.position,
        workspaceRoot: query.workspaceRoot,
        languageId: query.languageId
      },
      uri,
      workspace.uri
    )
    if (references.kind !== "locations") return result
    const edited = new Set(result.edits.map((edit) => edit.uri))
    const added: Array<LspResult.LspTextEdit> = []
    const lines = new Map<string, ReadonlyArray<string> | undefined>()
    for (const reference of references.locations) {
      if (edited.has(reference.uri)) continue
      const file = yield* Effect.option(uriToPath(reference.uri).pipe(Effect.provideService(Path.Path, services.path)))
      if (Option.isNone(file) || !scope.opened.has(file.value)) continue
      if (!lines.has(reference.uri)) {
        const source = yield* readUriWith(services, workspace, reference.uri, asking.maxDocumentBytes)
        lines.set(reference.uri, source === undefined ? undefined : linesOf(source))
      }
      const { end, start } = reference.range
      const line = lines.get(reference.uri)?.[start.line]
      const oldText = line !== undefined && start.line === end.line
        ? line.slice(start.character, end.character)
        : undefined
      added.push({
        uri: reference.uri,
        range: reference.range,
        newText: query.newName,
        ...(oldText === undefined ? {} : { oldText })
      })
    }
    return added.length === 0 ? result : {
      ...result,
      ...LspResult.edits([...result.edits, ...added], result.resourceOperations, result.resolvedWorkspaceUri)
    }
  })
