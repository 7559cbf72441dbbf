/**
 * Shared by the compatibility suites and the report: start the host for one suite's servers, ask it the
 * suite's queries, and reduce every answer to plain data that compares exactly — locations as a sorted list
 * of [path relative to the workspace, line, character] (zero-based, UTF-16), hover as its text and range,
 * failures as their code.
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

/** One location: path relative to the workspace (absolute or the URI itself when outside), line, character. */
export const Location = Schema.Tuple(Schema.String, Schema.Number, Schema.Number)

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
  Schema.Struct({ error: Schema.String })
)

export type Answer = typeof Answer.Type

export const Query = Schema.Struct({
  name: Schema.String,
  operation: LspQuery.LspOperation,
  file: Schema.String,
  position: Position,
  /** What is at the position, for the reader. */
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
})

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

const relative = (root: string) => {
  const prefix = pathToFileURL(root).href + "/"
  return (uri: string): string => {
    if (uri.startsWith(prefix)) return decodeURIComponent(uri.slice(prefix.length))
    return uri.startsWith("file:") ? fileURLToPath(uri) : uri
  }
}

/** Stands for the project's `file:` URI in hover text, which would otherwise depend on the machine. */
export const workspacePlaceholder = "file:///$WORKSPACE"

/** The answer reduced to data; a result for another workspace than `root` is reported as an error. */
export const toAnswer = (root: string, result: LspResult.LspQueryResult): Answer => {
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
  return {
    locations: result.locations
      .map((l): readonly [string, number, number] => [path(l.uri), l.range.start.line, l.range.start.character])
      .sort(byLocation)
  }
}

// The servers' order is not part of the contract and varies with history (pyright lists the files it has seen
// in the order it first saw them), so answers compare as sorted lists.
const byLocation = (a: readonly [string, number, number], b: readonly [string, number, number]): number =>
  a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1] || a[2] - b[2]

/** Asks one query; an `LspError` becomes `{ error: code }`, so unsupported operations compare as data. */
export const ask = (root: string, query: Pick<Query, "operation" | "file" | "position">) =>
  LspService.query({ operation: query.operation, filePath: query.file, position: query.position, workspaceRoot: root })
    .pipe(
      Effect.map((result) => toAnswer(root, result)),
      Effect.catchIf(LspError.isLspError, (error) => Effect.succeed<Answer>({ error: error.code }))
    )

const answerJson = Schema.encodeSync(Schema.parseJson(Answer))

/** Structural equality of two answers. */
export const sameAnswer = (a: Answer, b: Answer): boolean => answerJson(a) === answerJson(b)
