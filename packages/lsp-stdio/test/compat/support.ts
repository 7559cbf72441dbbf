/**
 * Shared by the compatibility suites and the report: start the host for one suite's servers, ask it the
 * suite's queries, and reduce every answer to plain data that compares exactly — locations as a sorted list
 * of [path relative to the workspace, line, character] (zero-based, UTF-16), hover as its text and range,
 * symbols and calls as tuples of the same coordinates, failures as their code.
 */
import { NodeContext } from "@effect/platform-node"
import { LspError, LspQuery, type LspResult, LspService } from "@lsp-seam/lsp"
import { Effect, Layer, Schema } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as LspStdio from "../../src/LspStdio.js"
import type * as StdioConfig from "../../src/StdioConfig.js"
import type * as StdioStatus from "../../src/StdioStatus.js"
import type { Suite } from "./servers.js"

export const fixtures = fileURLToPath(new URL("../fixtures/", import.meta.url))

const Position = Schema.Struct({ line: Schema.Number, character: Schema.Number })

/**
 * One location: path relative to the workspace (outside it `$NODE_MODULES/...`, an absolute path, or the URI
 * itself: see `relative`), line, character.
 */
export const Location = Schema.Tuple(Schema.String, Schema.Number, Schema.Number)

/**
 * One symbol: path, line and character of its name (the start of `selectionRange`; for a server that sends
 * `SymbolInformation`, of its whole range), kind, name, and container path ("" when none).
 */
export const SymbolTuple = Schema.Tuple(
  Schema.String,
  Schema.Number,
  Schema.Number,
  Schema.String,
  Schema.String,
  Schema.String
)

/** One call hierarchy item: name, kind, and path, line and character of its name (`selectionRange` start). */
export const CallItem = Schema.Tuple(Schema.String, Schema.String, Schema.String, Schema.Number, Schema.Number)

/** One call: the caller or callee as a `CallItem`, then its call sites as sorted locations. */
export const Call = Schema.Tuple(
  Schema.String,
  Schema.String,
  Schema.String,
  Schema.Number,
  Schema.Number,
  Schema.Array(Location)
)

export const Answer = Schema.Union(
  Schema.Struct({ locations: Schema.Array(Location) }),
  Schema.Struct({
    hover: Schema.NullOr(
      Schema.Struct({
        contents: Schema.String,
        range: Schema.optional(Schema.Struct({ start: Position, end: Position }))
      })
    )
  }),
  /** documentSymbol in document order (parents before children); workspaceSymbol sorted. */
  Schema.Struct({ symbols: Schema.Array(SymbolTuple) }),
  /** The items prepared at the position, in the server's order, and the calls of all of them, sorted. */
  Schema.Struct({ items: Schema.Array(CallItem), calls: Schema.Array(Call) }),
  Schema.Struct({ error: Schema.String })
)

export type Answer = typeof Answer.Type

const recorded = {
  name: Schema.String,
  file: Schema.String,
  /** What is asked about, for the reader. */
  at: Schema.String,
  /** The warm answer: what the server says once it has settled. */
  answer: Answer,
  /**
   * Present when the first answer of a fresh server differs from the warm one: what it was, and when the
   * warm answer first came (milliseconds after the first query started, on the measuring machine).
   */
  cold: Schema.optional(Schema.Struct({
    answers: Schema.Array(Answer),
    settledMs: Schema.Array(Schema.Number),
    note: Schema.optional(Schema.String)
  }))
}

/** The operations the suites ask about, each at least once per suite: the ones `Question` can ask. */
export const operations: ReadonlyArray<LspQuery.LspProviderOperation> = [
  ...LspQuery.LspPositionOperation.literals,
  ...LspQuery.LspDocumentOperation.literals,
  "workspaceSymbol"
]

/**
 * What a query asks, as the request variants of the seam: at a position in `file`, about the whole of
 * `file` (documentSymbol), or a symbol search by `query`, asked of `file`'s server (workspaceSymbol).
 */
export const Question = Schema.Union(
  Schema.Struct({ operation: LspQuery.LspPositionOperation, file: Schema.String, position: Position }),
  Schema.Struct({ operation: LspQuery.LspDocumentOperation, file: Schema.String }),
  Schema.Struct({ operation: Schema.Literal("workspaceSymbol"), file: Schema.String, query: Schema.String })
)

export type Question = typeof Question.Type

export const Query = Schema.Union(
  Schema.Struct({ ...recorded, operation: LspQuery.LspPositionOperation, position: Position }),
  Schema.Struct({ ...recorded, operation: LspQuery.LspDocumentOperation }),
  Schema.Struct({ ...recorded, operation: Schema.Literal("workspaceSymbol"), query: Schema.String })
)

export type Query = typeof Query.Type

export const Expected = Schema.Struct({
  $comment: Schema.Array(Schema.String),
  /** What this server needs and how it behaves, for the reader and the generated report. */
  notes: Schema.Array(Schema.String),
  servers: Schema.Record({
    key: Schema.String,
    value: Schema.Struct({ name: Schema.String, version: Schema.String })
  }),
  queries: Schema.Array(Query)
})

export type Expected = typeof Expected.Type

export const expectedPath = (suite: Suite): string => NodePath.join(fixtures, "compat", `${suite.name}.expected.json`)

export const readExpected = (suite: Suite): Expected =>
  Schema.decodeUnknownSync(Expected)(JSON.parse(NodeFs.readFileSync(expectedPath(suite), "utf8")))

const onPath = (name: string): boolean =>
  (process.env.PATH ?? "").split(NodePath.delimiter).some((dir) => {
    if (dir.length === 0) return false
    try {
      const file = NodePath.join(dir, name)
      NodeFs.accessSync(file, NodeFs.constants.X_OK)
      return NodeFs.statSync(file).isFile()
    } catch {
      return false
    }
  })

/** Whether every executable the suite needs from the system is on PATH. */
export const installed = (suite: Suite): boolean => suite.requires.every(onPath)

/**
 * The suite's project: the fixture itself, or a fresh copy of it (removed when the scope closes) for servers
 * that write into the project. Always the canonical path.
 */
export const workspace = (suite: Suite) => {
  const source = NodePath.join(fixtures, suite.fixture)
  if (!suite.copyFixture) return Effect.succeed(NodeFs.realpathSync(source))
  return Effect.acquireRelease(
    Effect.sync(() => {
      const root = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), `lsp-seam-${suite.name}-`)))
      NodeFs.cpSync(source, root, { recursive: true })
      suite.prepare?.(root)
      return root
    }),
    (root) => Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true }))
  )
}

/** Selects the document sync of every server of every suite: `retained` (the default) when unset, or `transient`. */
export const documentSyncVariable = "LSP_SEAM_COMPAT_DOCUMENT_SYNC"

/** The document sync the suites run with; any value other than the two modes fails the run at load. */
export const documentSyncFromEnvironment = (value: string | undefined): StdioConfig.DocumentSync => {
  if (value === undefined) return "retained"
  if (value === "transient" || value === "retained") return value
  throw new Error(`${documentSyncVariable} must be "transient" or "retained" (or unset), not ${JSON.stringify(value)}`)
}

export const documentSync: StdioConfig.DocumentSync = documentSyncFromEnvironment(process.env[documentSyncVariable])

/** The suite's servers, each with `documentSync` set to `mode`. */
export const withDocumentSync = (suite: Suite, mode: StdioConfig.DocumentSync): Suite["servers"] =>
  Object.fromEntries(Object.entries(suite.servers).map(([id, server]) => [id, { ...server, documentSync: mode }]))

/**
 * A host with the suite's servers, over `LspService.layer` and the local machine; documents are synced as
 * `mode` says (by default as the environment selects).
 */
export const hostLayer = (
  suite: Suite,
  mode: StdioConfig.DocumentSync = documentSync
): Layer.Layer<LspService.LspService | StdioStatus.StdioStatus, LspError.LspError> =>
  LspStdio.layer({ servers: withDocumentSync(suite, mode) }).pipe(
    Layer.provideMerge(LspService.layer),
    Layer.provide(NodeContext.layer)
  )

/** Stands for the `node_modules` directory of a file outside the project (TypeScript's own lib files). */
export const nodeModulesPlaceholder = "$NODE_MODULES"

/**
 * A path relative to the workspace; outside it, from its last `node_modules/` on (written
 * `$NODE_MODULES/...`, which does not depend on the machine), else absolute, or the URI itself when not `file:`.
 */
const relative = (root: string) => {
  const prefix = pathToFileURL(root).href + "/"
  return (uri: string): string => {
    if (uri.startsWith(prefix)) return decodeURIComponent(uri.slice(prefix.length))
    if (!uri.startsWith("file:")) return uri
    const path = fileURLToPath(uri)
    const marker = `${NodePath.sep}node_modules${NodePath.sep}`
    const at = path.lastIndexOf(marker)
    return at < 0 ? path : `${nodeModulesPlaceholder}/${path.slice(at + marker.length).split(NodePath.sep).join("/")}`
  }
}

/** Stands for the project's `file:` URI in hover text, which would otherwise depend on the machine. */
export const workspacePlaceholder = "file:///$WORKSPACE"

/**
 * The answer to `operation` reduced to data; a result for another workspace than `root` is reported as an
 * error. Locations, workspace symbols, call items and calls compare as sorted lists: the servers' order is
 * not part of the contract and varies with history (pyright lists the files it has seen in the order it first
 * saw them). Document symbols keep the host's order, which is (document order, parents first).
 */
export const toAnswer = (
  root: string,
  operation: LspQuery.LspProviderOperation,
  result: LspResult.LspQueryResult
): Answer => {
  const expectedUri = pathToFileURL(root).href
  if (result.kind === "hover") {
    if (result.hover === null) return { hover: null }
    // Some servers link to files of the project in hover text (yaml: the schema's source).
    const contents = result.hover.contents.replaceAll(expectedUri, workspacePlaceholder)
    const range = result.hover.range
    return { hover: range === undefined ? { contents } : { contents, range } }
  }
  if (result.resolvedWorkspaceUri !== expectedUri) {
    return { error: `resolvedWorkspaceUri ${result.resolvedWorkspaceUri}, expected ${expectedUri}` }
  }
  const path = relative(root)
  const at = (uri: string, range: LspQuery.LspRange): readonly [string, number, number] => [
    path(uri),
    range.start.line,
    range.start.character
  ]
  if (result.kind === "locations") {
    return { locations: result.locations.map((l) => at(l.uri, l.range)).sort(byTuple) }
  }
  if (result.kind === "symbols") {
    const symbols = result.symbols.map((s): typeof SymbolTuple.Type => [
      ...at(s.uri, s.selectionRange),
      s.kind,
      s.name,
      s.containerName ?? ""
    ])
    return { symbols: operation === "documentSymbol" ? symbols : symbols.sort(byTuple) }
  }
  if (result.kind !== "calls") return { error: `unexpected ${result.kind} result` }
  const item = (i: LspResult.LspCallItem): typeof CallItem.Type => [i.name, i.kind, ...at(i.uri, i.selectionRange)]
  return {
    items: result.items.map(item).sort(byTuple),
    calls: result.calls
      .map((c): typeof Call.Type => [...item(c), c.fromRanges.map((r) => at(c.fromUri, r)).sort(byTuple)])
      .sort(byTuple)
  }
}

type Datum = string | number | ReadonlyArray<Datum>

/** Orders tuples element by element: strings by code unit, numbers numerically, lists recursively. */
const byTuple = (a: ReadonlyArray<Datum>, b: ReadonlyArray<Datum>): number => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!
    const y = b[i]!
    const order = typeof x === "number" && typeof y === "number"
      ? x - y
      : typeof x === "string" && typeof y === "string"
      ? x < y ? -1 : x > y ? 1 : 0
      : Array.isArray(x) && Array.isArray(y)
      ? byTuple(x, y)
      : 0
    if (order !== 0) return order
  }
  return a.length - b.length
}

/** The seam request a question is. */
export const requestOf = (root: string, question: Question): LspQuery.LspQueryRequest => {
  switch (question.operation) {
    case "documentSymbol":
      return { operation: question.operation, filePath: question.file, workspaceRoot: root }
    case "workspaceSymbol":
      return { operation: question.operation, query: question.query, filePath: question.file, workspaceRoot: root }
    default:
      return {
        operation: question.operation,
        filePath: question.file,
        position: question.position,
        workspaceRoot: root
      }
  }
}

/** Asks one question; an `LspError` becomes `{ error: code }`, so unsupported operations compare as data. */
export const ask = (root: string, question: Question) =>
  LspService.query(requestOf(root, question)).pipe(
    Effect.map((result) => toAnswer(root, question.operation, result)),
    Effect.catchIf(LspError.isLspError, (error) => Effect.succeed<Answer>({ error: error.code }))
  )

const answerJson = Schema.encodeSync(Schema.parseJson(Answer))

/** Structural equality of two answers. */
export const sameAnswer = (a: Answer, b: Answer): boolean => answerJson(a) === answerJson(b)
