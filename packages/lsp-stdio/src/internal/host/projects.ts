/**
 * Several projects of one server in one workspace (`projects` in its configuration: tsserver and its
 * tsconfig.json files). tsserver answers findReferences from the projects it has loaded, and goToImplementation
 * and incomingCalls from the queried file's own project only. So before a cross-file question the host opens
 * one file of each project, which makes the server load it (`load`), and asks those two operations again from
 * each other project that references the symbol (`acrossProjects`): implementations from a reference in that
 * project, callers from the references in it that are calls. What a bound left out is named in the answer.
 */
import * as Path from "@effect/platform/Path"
import { type LspError, LspExtension, LspQuery, LspResult } from "@lsp-seam/lsp"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Requests from "../answers/requests.js"
import * as BatchedPins from "../documents/batchedPins.js"
import * as RetainedDocuments from "../documents/retainedDocuments.js"
import { linesOf, readLocatedWith, type SourceLocation } from "../documents/source.js"
import type { FileServices } from "../files/fileAccess.js"
import { uriToPath } from "../files/fileUri.js"
import { isInsideUri, type Workspace } from "../files/workspace.js"
import * as ServerInstance from "../servers/serverInstance.js"
import { methodOf } from "../wire/capabilities.js"
import { callersOf } from "./projectCallers.js"
import { relistAfterMs } from "./projectModel.js"
import * as ProjectRelevance from "./projectRelevance.js"
import * as ProjectScope from "./projectScope.js"
import * as ProjectSurvey from "./projectSurvey.js"

// Per server: when the workspace was last surveyed, what that found (with the package.json files read to rank
// its projects, and the files in no project).
const surveys = new WeakMap<ServerInstance.ServerInstance, {
  readonly at: number
  readonly survey: ProjectSurvey.Survey
  readonly nearest: ProjectRelevance.PackageFinder
  readonly loose: ProjectScope.Loose | undefined
}>()

// Per server: what its current question loaded and searches (a server answers one question at a time).
const questions = new WeakMap<ServerInstance.ServerInstance, {
  readonly survey: ProjectSurvey.Survey
  /** The projects a file was opened for (the queried file's own first, when it has one). */
  readonly loaded: ReadonlyArray<ProjectSurvey.Project>
  readonly scope: ProjectScope.Scope
}>()

const listed = (names: ReadonlyArray<string>) =>
  names.length <= 5 ? names.join(", ") : `${names.slice(0, 5).join(", ")} and ${names.length - 5} more`

/** The reason for projects that were not searched, naming them. */
const notSearched = (providerId: string, skipped: ReadonlyArray<string>, why: string): LspResult.IncompleteReason => ({
  reason: "projects-not-searched",
  message: `The "${providerId}" server did not search ${skipped.length} project(s) of this workspace (${
    listed(skipped)
  }): ${why}. Uses in them may be missing; query a file inside one of them, or confirm with a text search.`
})

/**
 * `result` flagged with `reason`; a projects-not-searched reason it already has gets this one's message added
 * (an answer says each kind of reason once, and both name projects the answer lacks).
 */
export const flag = <A extends LspResult.LspQueryResult>(result: A, reason: LspResult.IncompleteReason): A => {
  const reasons = LspResult.incompleteReasonsOf(result)
  const existing = reasons.find((known) => known.reason === reason.reason)
  return existing === undefined || existing.message === reason.message ? LspResult.markIncomplete(result, reason) : {
    ...result,
    incompleteReasons: reasons.map((known) =>
      known === existing ? { reason: known.reason, message: `${known.message} ${reason.message}` } : known
    )
  }
}

/** The reason for a survey cut short: projects further in were not looked for. */
const notSurveyed = (providerId: string): LspResult.IncompleteReason => ({
  reason: "projects-not-searched",
  message:
    `The workspace has more than ${ProjectSurvey.maxEntries} entries, so the "${providerId}" server's projects further ` +
    "in were not looked for and uses in them may be missing. Run the query from the project's directory, or " +
    "confirm with a text search."
})

/** What `load` did, or left for later: the projects whose files it has still to open, with their opening. */
export interface Loading {
  /** The reason the answer may still miss projects, or undefined. */
  readonly partial: LspResult.IncompleteReason | undefined
  /**
   * When some projects the question searches are not held yet (queued to be opened a batch at a time, see
   * `documents/batchedPins`, or opened and still loading): those projects, and their files.
   */
  readonly deferred: {
    readonly projects: ReadonlyArray<string>
    readonly paths: ReadonlyArray<string>
    /** The scope of an answer given before they are loaded: the projects the server held already. */
    readonly early: ProjectScope.Scope
  } | undefined
}

/**
 * Before a cross-file question: every project of the workspace (up to `maxProjects`, those that can reach the
 * queried file first, its own first of all) gets one file opened and kept open, so the server loads it; so do
 * the files in no project (within `looseFiles`). Surveyed again at most every `relistAfterMs`. The files of the
 * projects the server does not hold yet are queued, to be opened a batch at a time (`documents/batchedPins`), and
 * handed back with the scope an answer has before they are loaded.
 */
export const load = (
  services: FileServices,
  spec: ServerInstance.ServerSpec,
  instance: ServerInstance.ServerInstance,
  workspace: Workspace,
  location: SourceLocation
): Effect.Effect<Loading, LspError.LspLocalError> =>
  Effect.gen(function*() {
    const config = spec.config.projects
    if (config === null) return { partial: undefined, deferred: undefined }
    const now = yield* Clock.currentTimeMillis
    const { path } = services
    const languages = ServerInstance.languagesOf(spec)
    // The walk is kept for `relistAfterMs`; which projects a question loads is decided anew for each question.
    const previous = surveys.get(instance)
    const surveyed = previous !== undefined && now - previous.at < relistAfterMs ? previous : {
      at: now,
      survey: yield* ProjectSurvey.survey(
        services,
        workspace,
        spec.config.projectMarkers,
        [...languages.keys()],
        spec.config.maxDocumentBytes
      ),
      nearest: ProjectRelevance.packageFinder(services, workspace),
      loose: undefined as ProjectScope.Loose | undefined
    }
    const { survey } = surveyed
    const loose = surveyed.loose ?? (yield* ProjectScope.listLoose(services, spec, workspace, survey))
    const asked = path.relative(workspace.path, location.path)
    const own = ProjectSurvey.projectOf(survey, path, asked)
    // The queried file's project first; then the others, each loaded by a file it includes, those that can reach
    // the queried file first.
    const others = survey.projects.filter((project) => project !== own && project.file !== undefined)
    const loadable = yield* ProjectRelevance.rank(surveyed.nearest, path, survey, own, asked, others)
    // The queried file's own project is one of the `maxProjects`; a file in none (a loose script at the root, the
    // file a workspace search opens) leaves every place to the others.
    const places = config.maxProjects - (own === undefined ? 0 : 1)
    const retained = spec.config.documentSync === "retained"
    const kept = retained ? loadable.slice(0, places) : []
    const over = loadable.slice(kept.length).map((project) => project.config)

    let partial: LspResult.IncompleteReason | undefined = survey.complete ? undefined : notSurveyed(spec.providerId)
    const opened = retained ? ProjectScope.looseToOpen(spec, loose) : { files: [], partial: undefined }
    const fileOf = (project: ProjectSurvey.Project) => path.join(workspace.path, project.file!)
    // Held: open, and not still waiting in the queue or loading (a batch opened and not answered yet).
    const loading = BatchedPins.unloaded(instance.retained)
    const held = new Set(
      [...(yield* Ref.get(instance.retained)).values()].map((document) => document.path).filter((file) =>
        !loading.has(file)
      )
    )
    const pending = kept.filter((project) => !held.has(fileOf(project)) && fileOf(project) !== location.path)
    if (retained) {
      // The files in no project are opened at once; the projects' files are queued, this question's first.
      yield* RetainedDocuments.pin(services, instance.retained, instance.connection, {
        workspace,
        paths: opened.files.map((file) => path.join(workspace.path, file)).filter((file) => file !== location.path),
        languageOf: (file) => languages.get(LspExtension.finalExtension(file)) ?? "",
        maxDocumentBytes: spec.config.maxDocumentBytes,
        onSent: instance.diagnostics.markSent
      })
      yield* BatchedPins.enqueue(
        instance.retained,
        pending.map((project) => ({ label: project.config, path: fileOf(project) }))
      )
    }
    // A project with no file of its own (none the walk saw that it is the nearest project of) has nothing to search.
    if (over.length > 0) {
      partial = notSearched(
        spec.providerId,
        over,
        retained
          ? `at most ${config.maxProjects} projects are loaded (projects.maxProjects)`
          : "documentSync is \"transient\", so no other project is kept loaded"
      )
    }
    const searched = [...(own === undefined ? [] : [own]), ...kept]
    surveys.set(instance, { ...surveyed, loose })
    questions.set(instance, {
      survey,
      loaded: [...(own?.file === undefined ? [] : [own]), ...kept],
      scope: ProjectScope.make(path, workspace, survey, searched, [asked, ...opened.files])
    })
    return {
      partial: partial === undefined ? opened.partial : partial,
      deferred: !retained || pending.length === 0 ? undefined : {
        projects: pending.map((project) => project.config),
        paths: pending.map(fileOf),
        early: ProjectScope.make(
          path,
          workspace,
          survey,
          searched.filter((project) => !pending.includes(project)),
          [asked, ...opened.files]
        )
      }
    }
  })

/** The answer without the places outside `scope` (an early answer's, see `Loading`). */
export const confineTo = (
  services: FileServices,
  scope: ProjectScope.Scope,
  result: LspResult.LspQueryResult
): Effect.Effect<LspResult.LspQueryResult> => ProjectScope.confine(services.path, scope, result)

/** The reason for an answer given at the deadline, before the server had loaded `projects`. */
export const deadline = (providerId: string, projects: ReadonlyArray<string>): LspResult.IncompleteReason => ({
  reason: "deadline",
  message: `The answer was due before the "${providerId}" server had loaded ${projects.length} more project(s) of ` +
    `this workspace (${listed(projects)}), so uses in them are missing. They go on loading: ask again in a few ` +
    "seconds for a complete answer."
})

/**
 * The answer without the places in files this question did not search: a project it did not load, or a file in
 * no project it did not open, is searched only when an earlier question left a file of it open — so a busy host
 * answers as a fresh one does (DESIGN §9).
 */
export const confine = (
  services: FileServices,
  instance: ServerInstance.ServerInstance,
  result: LspResult.LspQueryResult
): Effect.Effect<LspResult.LspQueryResult> => {
  const question = questions.get(instance)
  return question === undefined ? Effect.succeed(result) : ProjectScope.confine(services.path, question.scope, result)
}

const sameRange = (a: LspQuery.LspRange, b: LspQuery.LspRange) =>
  a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line &&
  a.end.character === b.end.character

const byPlace = (a: LspResult.LspLocation, b: LspResult.LspLocation) =>
  a.uri.localeCompare(b.uri) || a.range.start.line - b.range.start.line ||
  a.range.start.character - b.range.start.character

/** A reference in another project: where it is, and the file's path. */
interface Elsewhere {
  readonly reference: LspResult.LspLocation
  readonly file: string
}

/** How many files of other projects are searched for callers, at most (each costs a documentSymbol and an open). */
const maxCallerFiles = 100

/** What the host lends `acrossProjects` for one query. */
export interface Asking {
  readonly services: FileServices
  readonly spec: ServerInstance.ServerSpec
  readonly instance: ServerInstance.ServerInstance
  readonly workspace: Workspace
  /** Puts another file of the workspace on the server for the rest of the query's scope. */
  readonly open: (filePath: string) => Effect.Effect<SourceLocation, LspError.LspLocalError>
}

const sameLocation = (a: LspResult.LspLocation, b: LspResult.LspLocation) =>
  a.uri === b.uri && sameRange(a.range, b.range)

/** The implementations found from the first reference of each project, merged into `found`. */
const implementationsFrom = (
  asking: Asking,
  query: LspQuery.LspPositionRequest & { readonly languageId: string },
  result: LspResult.LspLocationsResult,
  references: ReadonlyArray<ReadonlyArray<Elsewhere>>
) =>
  Effect.gen(function*() {
    const found = [...result.locations]
    for (const [{ file, reference }] of references) {
      const located = yield* asking.open(file!)
      const answer = yield* Requests.ask(
        asking.instance,
        { ...query, filePath: located.path, position: reference!.range.start },
        located.uri,
        asking.workspace.uri
      )
      if (answer.kind !== "locations") continue
      found.push(...answer.locations.filter((candidate) => !found.some((known) => sameLocation(known, candidate))))
    }
    return { ...result, locations: found.sort(byPlace) }
  })

/** The callers of the references of each project that are calls, merged into the answer's calls. */
const callersFrom = (
  asking: Asking,
  result: LspResult.LspCallsResult,
  references: ReadonlyArray<ReadonlyArray<Elsewhere>>
) =>
  Effect.gen(function*() {
    const { path } = asking.services
    const calls = [...result.calls]
    const files = [...groupByFile(references.flat())]
    for (const [file, sites] of files.slice(0, maxCallerFiles)) {
      const located = yield* asking.open(file)
      const source = yield* readLocatedWith(asking.services, located, asking.spec.config.maxDocumentBytes)
      const callers = yield* callersOf(asking.instance, {
        uri: located.uri,
        lines: linesOf(source),
        jsx: /\.[jt]sx$/.test(file),
        name: path.basename(file),
        sites: sites.map((site) => site.reference.range)
      })
      for (const caller of callers) {
        const known = calls.findIndex((call) =>
          call.uri === caller.uri && sameRange(call.selectionRange, caller.selectionRange)
        )
        if (known < 0) calls.push(caller)
        else {
          // A caller both projects hold (a file one project imports from the other) is found twice: once each.
          const sites = calls[known]!.fromRanges
          const fresh = caller.fromRanges.filter((range) => !sites.some((site) => sameRange(site, range)))
          calls[known] = { ...calls[known]!, fromRanges: [...sites, ...fresh] }
        }
      }
    }
    const answer = { ...result, calls }
    const left = files.slice(maxCallerFiles).map(([file]) => path.relative(asking.workspace.path, file))
    return left.length === 0 ? answer : LspResult.markIncomplete(answer, {
      reason: "projects-not-searched",
      message: `Callers in other projects were looked for in the first ${maxCallerFiles} files that reference ` +
        `the symbol; ${left.length} more were not searched (${listed(left)}). Query findReferences for every use.`
    })
  })

/**
 * A workspace search from every loaded project. typescript-language-server asks tsserver's navto for the file
 * it used last, and tsserver searches that file's project (and the projects it references) only; so each
 * project's opened file is used (a documentSymbol request on it) right before the search is asked again, and
 * the symbols are merged. The two requests go out together: the server also marks a file used when it turns a
 * diagnostics event into a URI, and those arrive at any time while it checks the open files, so a round trip
 * between the two would let another file become the last one (seen under load as one project's symbols
 * missing). A project whose file can no longer be opened is named as not searched.
 */
const symbolsFrom = (
  asking: Asking,
  query: Extract<LspQuery.LspProviderQuery, { readonly operation: "workspaceSymbol" }>,
  result: LspResult.LspSymbolsResult,
  loaded: ReadonlyArray<ProjectSurvey.Project>
) =>
  Effect.gen(function*() {
    const { instance, services, spec, workspace } = asking
    const found = [...result.symbols]
    const key = (symbol: LspResult.LspSymbol) =>
      `${symbol.uri}:${symbol.selectionRange.start.line}:${symbol.selectionRange.start.character}:${symbol.name}`
    const known = new Set(found.map(key))
    const unopened: Array<string> = []
    for (const project of loaded) {
      const opened = yield* Effect.option(asking.open(services.path.join(workspace.path, project.file!)))
      if (Option.isNone(opened)) {
        unopened.push(project.config)
        continue
      }
      const { uri } = opened.value
      const [, answer] = yield* Effect.all([
        instance.connection.request(methodOf("documentSymbol"), { textDocument: { uri } }),
        Requests.ask(instance, query, uri, workspace.uri)
      ], { concurrency: "unbounded" })
      if (answer.kind !== "symbols") continue
      for (const symbol of answer.symbols) {
        if (!known.has(key(symbol))) {
          known.add(key(symbol))
          found.push(symbol)
        }
      }
    }
    const merged = { ...result, symbols: found }
    return unopened.length === 0 ? merged : flag(
      merged,
      notSearched(spec.providerId, unopened, "the file each was searched from could not be opened any more")
    )
  })

/**
 * goToImplementation and incomingCalls (those in the server's `projects.askEach`), completed from the other
 * projects that reference the symbol: the references are asked first; then, per other project, the
 * implementations from its first reference, or the callers of the references in it that are calls.
 */
export const acrossProjects = (
  asking: Asking,
  query: LspQuery.LspProviderQuery,
  location: SourceLocation,
  result: LspResult.LspQueryResult
): Effect.Effect<LspResult.LspQueryResult, LspError.LspLocalError> =>
  Effect.gen(function*() {
    const { instance, services, spec, workspace } = asking
    const config = spec.config.projects
    const surveyed = questions.get(instance)
    const survey = surveyed?.survey
    const operation = query.operation
    if (
      operation === "workspaceSymbol" && config !== null && config.askEach.includes(operation) &&
      surveyed !== undefined && surveyed.loaded.length > 1 && result.kind === "symbols"
    ) return yield* symbolsFrom(asking, query, result, surveyed.loaded)
    if (
      config === null || survey === undefined || survey.projects.length < 2 ||
      spec.config.documentSync !== "retained" || !LspQuery.isPositionRequest(query) ||
      (operation !== "goToImplementation" && operation !== "incomingCalls") || !config.askEach.includes(operation)
    ) return result
    // Nothing the server can prepare a call hierarchy for here (a constant, a type): no callers to complete.
    if (result.kind === "calls" && result.items.length === 0) return result
    const { path } = services
    const references = yield* Requests.ask(
      instance,
      { ...query, operation: "findReferences" },
      location.uri,
      workspace.uri
    )
    if (references.kind !== "locations") return result
    const own = ProjectSurvey.projectOf(survey, path, path.relative(workspace.path, location.path))
    // The references in other projects, grouped by project (sorted, each in file and position order).
    const elsewhere = new Map<string, Array<Elsewhere>>()
    for (const reference of [...references.locations].sort(byPlace)) {
      if (!isInsideUri(path, workspace, reference.uri)) continue
      const file = yield* uriToPath(reference.uri).pipe(Effect.provideService(Path.Path, path))
      const project = ProjectSurvey.projectOf(survey, path, path.relative(workspace.path, file))?.config
      if (project === undefined || project === own?.config) continue
      elsewhere.set(project, [...(elsewhere.get(project) ?? []), { reference, file }])
    }
    const projects = [...elsewhere.keys()].sort()
    const searched = projects.slice(0, config.maxProjects).map((project) => elsewhere.get(project)!)
    const skipped = projects.slice(config.maxProjects)
    const merged = result.kind === "locations"
      ? yield* implementationsFrom(asking, query, result, searched)
      : result.kind === "calls"
      ? yield* callersFrom(asking, result, searched)
      : result
    return skipped.length === 0 ? merged : flag(
      merged,
      notSearched(
        spec.providerId,
        skipped,
        `${operation} is asked from at most ${config.maxProjects} other projects (projects.maxProjects)`
      )
    )
  })

const groupByFile = <A extends { readonly file: string }>(entries: ReadonlyArray<A>) => {
  const byFile = new Map<string, Array<A>>()
  for (const entry of entries) byFile.set(entry.file, [...(byFile.get(entry.file) ?? []), entry])
  return byFile
}
