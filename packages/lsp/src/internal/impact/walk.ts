// The impact answer, composed from the provider's own answers: findReferences for the uses, goToDefinition and
// documentSymbol for the symbol itself, documentSymbol of each file to group the uses by declaration, then
// incomingCalls level after level. Every step is a seam query of its own, so each carries the provider's
// scope, relevance and deadline rules; what a step could not search reaches the answer as a reason.
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as LspDeadline from "../../LspDeadline.js"
import * as LspEnclosing from "../../LspEnclosing.js"
import type { LspError } from "../../LspError.js"
import * as LspErrors from "../../LspError.js"
import {
  defaultImpactDepth,
  defaultImpactGroups,
  type LspImpactRequest,
  type LspPosition,
  type LspQueryRequest,
  type LspRange
} from "../../LspQuery.js"
import type { LspQueryResult } from "../../LspResult.js"
import type { IncompleteReason } from "../result/annotations.js"
import type { LspCall } from "../result/calls.js"
import type { LspImpactLevel, LspImpactNode, LspImpactResult, LspImpactTarget } from "../result/impact.js"
import type { LspSymbol } from "../result/symbols.js"
import * as Grouping from "./grouping.js"
import { isTestPath } from "./testCode.js"

/** How the walk asks: a seam query, routed by the file's extension like any other. */
export type Ask = (request: LspQueryRequest) => Effect.Effect<LspQueryResult, LspError>

/** Queries in flight at once: the stdio host serialises a server's work anyway; a remote host need not. */
const concurrency = 4

/** Of the caller's budget, what is kept back to assemble and send the answer. */
const reserveOf = (budgetMs: number) => Math.min(1_000, Math.floor(budgetMs / 10))

/** A node while the walk builds it: edges and uses grow as more answers name it. */
interface Draft {
  readonly key: string
  readonly level: number
  readonly name: string
  readonly kind: LspImpactNode["kind"]
  readonly uri: string
  readonly range: LspRange
  readonly selectionRange: LspRange
  readonly uses: Array<LspRange>
  readonly calls: Set<number>
  readonly test: boolean
}

const origin: LspRange = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }

const byPlace = (a: Draft, b: Draft) =>
  Number(a.test) - Number(b.test) || (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0) ||
  a.selectionRange.start.line - b.selectionRange.start.line ||
  a.selectionRange.start.character - b.selectionRange.start.character

const samePlace = (a: LspRange, b: LspRange) => a.start.line === b.start.line && a.start.character === b.start.character

/** A name the seam can resolve on a line (`symbol`): an identifier, nothing a server decorated. */
const identifier = /^[\p{L}_$][\p{L}\p{N}_$]*$/u

const isKind =
  <K extends LspQueryResult["kind"]>(kind: K) =>
  (result: LspQueryResult): result is Extract<LspQueryResult, { readonly kind: K }> => result.kind === kind

/** The answer of `ask`, which must be of `kind`: another kind is the provider breaking the contract. */
const expect = <K extends LspQueryResult["kind"]>(kind: K, operation: string) =>
(
  result: LspQueryResult
): Effect.Effect<Extract<LspQueryResult, { readonly kind: K }>, LspError> =>
  isKind(kind)(result)
    ? Effect.succeed(result)
    : LspErrors.malformedResponse(`impact: ${operation} answered with a "${result.kind}" result.`)

/**
 * Runs `effects` with at most `concurrency` at once until `budgetMs` (none: no bound), keeping what finished:
 * the results in order, `undefined` for those not finished in time.
 */
const untilDeadline = <A>(
  effects: ReadonlyArray<Effect.Effect<A>>,
  budgetMs: Option.Option<number>
): Effect.Effect<{ readonly done: ReadonlyArray<A | undefined>; readonly late: boolean }> =>
  Effect.gen(function*() {
    const done: Array<A | undefined> = effects.map(() => undefined)
    const all = Effect.forEach(effects, (effect, index) => Effect.map(effect, (a) => void (done[index] = a)), {
      concurrency,
      discard: true
    })
    if (Option.isNone(budgetMs)) {
      yield* all
      return { done, late: false }
    }
    const finished = yield* Effect.timeoutOption(all, Duration.millis(budgetMs.value))
    return { done, late: Option.isNone(finished) }
  })

/**
 * The impact of the symbol at `request`'s position (see `LspQuery.LspImpactRequest`). `runnerTests`: the provider's
 * reading of the workspace's test runner configuration, if it has one (see `LspProvider.testFiles`).
 */
export const answer = (
  request: LspImpactRequest,
  askProvider: Ask,
  runnerTests?: Effect.Effect<(relativePath: string) => boolean>
): Effect.Effect<LspImpactResult, LspError> =>
  Effect.gen(function*() {
    const depth = request.depth ?? defaultImpactDepth
    const maxGroups = request.maxGroups ?? defaultImpactGroups
    const started = yield* Clock.currentTimeMillis
    const budget = yield* LspDeadline.remaining
    const reserve = Option.map(budget, reserveOf)
    // Time left for the next step, the reserve kept back; none without a deadline.
    const left = Effect.map(
      Clock.currentTimeMillis,
      (now) => Option.map(Option.zipWith(budget, reserve, (b, r) => b - r), (usable) => usable - (now - started))
    )
    // Each step under the deadline less the reserve, so that a provider's early answer leaves time to use it.
    const ask: Ask = (step) =>
      Effect.flatMap(left, (ms) =>
        Option.isNone(ms) ? askProvider(step) : LspDeadline.within(Math.max(0, ms.value))(askProvider(step)))
    const reasons: Array<IncompleteReason> = []
    const note = (reason: IncompleteReason) => {
      if (
        !reasons.some((r) =>
          r.reason === reason.reason && r.message === reason.message
        )
      ) reasons.push(reason)
    }
    const noteAll = (result: { readonly incompleteReasons?: ReadonlyArray<IncompleteReason> | undefined }) =>
      (result.incompleteReasons ?? []).forEach(note)

    // 1. The uses: findReferences, at the position or the `symbol` near it.
    const references = yield* Effect.flatMap(
      ask({
        operation: "findReferences",
        filePath: request.filePath,
        position: request.position,
        workspaceRoot: request.workspaceRoot,
        ...(request.symbol === undefined ? {} : { symbol: request.symbol })
      }),
      expect("locations", "findReferences")
    )
    noteAll(references)
    const workspaceUri = references.resolvedWorkspaceUri
    const asked = references.resolved?.position ?? request.position

    // 2. The symbol itself: its definitions (not uses), and the declaration there.
    const { definitions, target } = yield* targetOf(ask, request, asked)
    const candidates = references.locations.filter((location) =>
      !definitions.some((definition) => definition.uri === location.uri && samePlace(definition.range, location.range))
    )

    // 3. The uses grouped by the declaration each sits in.
    const configured = runnerTests === undefined ? undefined : yield* runnerTests
    const isTest = (uri: string) => {
      const relative = Grouping.relativeTo(workspaceUri, uri)
      return relative !== undefined && (isTestPath(relative) || configured?.(relative) === true)
    }
    const files = [...new Set(candidates.map((use) => use.uri))].sort()
    const symbolsOf = files.map((uri) =>
      ask({ operation: "documentSymbol", filePath: Grouping.pathOf(uri), workspaceRoot: request.workspaceRoot }).pipe(
        Effect.flatMap(expect("symbols", "documentSymbol")),
        Effect.map((result): { uri: string; symbols: ReadonlyArray<LspSymbol> } => ({ uri, symbols: result.symbols })),
        Effect.catchAll((error) =>
          Effect.sync(() => {
            note({
              reason: "provider-failed",
              message: `The declarations of ${Grouping.fileName(uri)} could not be read (${error.code}): its uses ` +
                "are grouped under the file."
            })
            return { uri, symbols: [] }
          })
        )
      )
    )
    const grouped = yield* untilDeadline(symbolsOf, yield* left)
    if (grouped.late) {
      note({
        reason: "deadline",
        message: "The caller's deadline came while the uses were placed in their declarations: uses in " +
          `${grouped.done.filter((d) => d === undefined).length} files are grouped under the file. Ask again.`
      })
    }
    const declarations = new Map(grouped.done.flatMap((d) => d === undefined ? [] : [[d.uri, d.symbols] as const]))
    const drafts = new Map<string, Draft>()
    const topLevel = (uri: string, level: number): Draft => ({
      key: `${uri}#top`,
      level,
      name: Grouping.fileName(uri),
      kind: "File",
      uri,
      range: origin,
      selectionRange: origin,
      uses: [],
      calls: new Set(),
      test: isTest(uri)
    })
    const levelZero = new Map<string, Draft>()
    // A reference that is exactly a declaration's name declares the symbol (a C prototype, an overload, the
    // definition where the server's goToDefinition points elsewhere): not a use.
    const uses = candidates.filter((use) =>
      !(declarations.get(use.uri) ?? []).some((symbol) =>
        samePlace(symbol.selectionRange, use.range) &&
        symbol.selectionRange.end.line === use.range.end.line &&
        symbol.selectionRange.end.character === use.range.end.character
      )
    )
    for (const use of uses) {
      const group = Grouping.groupOf(declarations.get(use.uri) ?? [], use.range.start)
      const draft: Draft = group === undefined ? topLevel(use.uri, 0) : {
        key: Grouping.keyOf(group),
        level: 0,
        name: group.name,
        kind: group.kind,
        uri: group.uri,
        range: group.range,
        selectionRange: group.selectionRange,
        uses: [],
        calls: new Set(),
        test: isTest(group.uri)
      }
      const existing = levelZero.get(draft.key) ?? draft
      existing.uses.push(use.range)
      levelZero.set(draft.key, existing)
    }

    const nodes: Array<Draft> = []
    const levels: Array<LspImpactLevel> = []
    const keep = (level: number, found: ReadonlyArray<Draft>) => {
      const sorted = [...found].sort(byPlace)
      const shown = sorted.slice(0, maxGroups)
      for (const draft of shown) {
        nodes.push(draft)
        drafts.set(draft.key, draft)
      }
      const cut = sorted.length - shown.length
      levels.push({ level, found: sorted.length, shown: shown.length, cut, tests: shown.filter((d) => d.test).length })
      if (cut > 0) {
        note({
          reason: "capped",
          message: `Level ${level}: ${shown.length} of ${sorted.length} declarations shown (maxGroups ` +
            `${maxGroups}); the other ${cut} were not listed nor their callers searched.`
        })
      }
      return shown
    }
    const idOf = (draft: Draft) => nodes.indexOf(draft)
    let frontier = keep(0, [...levelZero.values()])

    // 4. Who depends on them: the callers of each declaration of a level, level after level.
    const targetKey = target === undefined ? undefined : Grouping.keyOf(target)
    const failed: Array<string> = []
    for (let level = 1; level <= depth; level++) {
      const followed = frontier.filter((draft) => !draft.test && Grouping.isFollowed(draft.kind))
      if (followed.length === 0) break
      const window = yield* left
      if (Option.isSome(window) && window.value <= 0) {
        note(deadlineAt(level, followed.length))
        break
      }
      const asks = followed.map((draft) =>
        ask({
          operation: "incomingCalls",
          filePath: Grouping.pathOf(draft.uri),
          position: draft.selectionRange.start,
          workspaceRoot: request.workspaceRoot,
          ...(identifier.test(draft.name) ? { symbol: draft.name } : {})
        }).pipe(
          Effect.flatMap(expect("calls", "incomingCalls")),
          Effect.map((result) => ({ draft, calls: result.calls, result })),
          Effect.either
        )
      )
      const answered = yield* untilDeadline(asks, window)
      const found = new Map<string, Draft>()
      let unsupported = false
      for (const outcome of answered.done) {
        if (outcome === undefined) continue
        if (outcome._tag === "Left") {
          if (outcome.left.code === "LSP_UNSUPPORTED_OPERATION") unsupported = true
          else failed.push(`${outcome.left.code}`)
          continue
        }
        const { calls, draft, result } = outcome.right
        noteAll(result)
        for (const call of calls) {
          const key = Grouping.keyOf(call)
          if (key === targetKey) continue
          const known = drafts.get(key)
          if (known !== undefined) {
            if (known !== draft) known.calls.add(idOf(draft))
            continue
          }
          const next = found.get(key) ?? callerDraft(call, level, isTest(call.uri))
          next.calls.add(idOf(draft))
          next.uses.push(...call.fromRanges.filter((range) => !next.uses.some((u) => samePlace(u, range))))
          found.set(key, next)
        }
      }
      if (unsupported) {
        note({
          reason: "no-call-hierarchy",
          message: "The language server cannot answer the call hierarchy: the uses are grouped by declaration, " +
            "but who calls those declarations was not searched."
        })
        break
      }
      frontier = keep(level, [...found.values()])
      if (answered.late) {
        note(deadlineAt(level, answered.done.filter((d) => d === undefined).length))
        break
      }
    }
    if (failed.length > 0) {
      note({
        reason: "provider-failed",
        message: `incomingCalls failed for ${failed.length} declarations (${[...new Set(failed)].join(", ")}): ` +
          "their callers were not searched."
      })
    }

    const testFiles = [...new Set(nodes.filter((draft) => draft.test).map((draft) => draft.uri))].sort()
    const result: LspImpactResult = {
      kind: "impact",
      ...(target === undefined ? {} : { target }),
      references: uses.length,
      depth,
      nodes: nodes.map((draft, id): LspImpactNode => ({
        id,
        level: draft.level,
        name: draft.name,
        kind: draft.kind,
        uri: draft.uri,
        range: draft.range,
        selectionRange: draft.selectionRange,
        uses: draft.uses,
        calls: [...draft.calls].sort((a, b) => a - b),
        ...(draft.test ? { test: true as const } : {})
      })),
      levels,
      testFiles,
      resolvedWorkspaceUri: workspaceUri,
      ...(references.resolved === undefined ? {} : { resolved: references.resolved })
    }
    return reasons.length === 0 ? result : { ...result, incomplete: true, incompleteReasons: reasons }
  })

const deadlineAt = (level: number, declarations: number): IncompleteReason => ({
  reason: "deadline",
  message: `The caller's deadline came before the callers at level ${level} were all searched (${declarations} ` +
    "declarations not followed). Ask again, or with a smaller depth."
})

const callerDraft = (call: LspCall, level: number, test: boolean): Draft => ({
  key: Grouping.keyOf(call),
  level,
  name: call.name,
  kind: call.kind,
  uri: call.uri,
  range: call.range,
  selectionRange: call.selectionRange,
  uses: [],
  calls: new Set(),
  test
})

interface Definitions {
  /** Where the provider's goToDefinition puts the symbol: places that declare it, not uses of it. */
  readonly definitions: ReadonlyArray<{ readonly uri: string; readonly range: LspRange }>
  readonly target: LspImpactTarget | undefined
}

/**
 * The declaration of the symbol asked about: the smallest symbol of the definition's file whose name holds the
 * definition; none when the provider gives no definition or no such symbol (the uses are still grouped).
 */
const targetOf = (ask: Ask, request: LspImpactRequest, asked: LspPosition): Effect.Effect<Definitions> =>
  Effect.gen(function*() {
    const definitions = yield* Effect.flatMap(
      ask({
        operation: "goToDefinition",
        filePath: request.filePath,
        position: asked,
        workspaceRoot: request.workspaceRoot
      }),
      expect("locations", "goToDefinition")
    )
    const definition = definitions.locations[0]
    if (definition === undefined) return { definitions: [], target: undefined }
    const symbols = yield* Effect.flatMap(
      ask({
        operation: "documentSymbol",
        filePath: Grouping.pathOf(definition.uri),
        workspaceRoot: request.workspaceRoot
      }),
      expect("symbols", "documentSymbol")
    )
    const named = symbols.symbols.filter((symbol) => Grouping.within(symbol.selectionRange, definition.range.start))
    const symbol = LspEnclosing.enclosing(named, definition.range.start) ??
      Grouping.groupOf(symbols.symbols, definition.range.start)
    const target: LspImpactTarget | undefined = symbol === undefined ? undefined : {
      name: symbol.name,
      kind: symbol.kind,
      uri: symbol.uri,
      range: symbol.range,
      selectionRange: symbol.selectionRange
    }
    return { definitions: definitions.locations, target }
  }).pipe(Effect.orElseSucceed((): Definitions => ({ definitions: [], target: undefined })))
