/**
 * The nested settings of a server's configuration (timers, readiness, crash loop, diagnostics wait, loose files,
 * projects, document sync), each a Schema with its own description. `StdioConfig` is their public face, where
 * each is documented.
 */
import * as Schema from "effect/Schema"
import { JsonValue } from "./configFields.js"

/** The largest value accepted for a timer, in milliseconds (the largest delay a JavaScript timer can hold). */
export const MAX_TIMER_MS = 2_147_483_647

// A refinement's description names the accepted values (a failed decode says it expected that); each field
// adds its own description and default, for editors, on the property.
export const Timer = Schema.Int.pipe(Schema.between(1, MAX_TIMER_MS)).annotations({
  description: `an integer from 1 to ${MAX_TIMER_MS} (milliseconds)`
})

export const ByteCap = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({
  description: "an integer of at least 1 (bytes)"
})

export const field = <A, I>(schema: Schema.Schema<A, I>, description: string, defaultValue: A) =>
  Schema.optionalWith(schema, { exact: true, default: () => defaultValue }).annotations({
    description,
    default: defaultValue
  })

/** A regular expression, as a string that compiles. */
const LogPattern = Schema.String.pipe(
  Schema.filter((pattern) => {
    try {
      new RegExp(pattern)
      return true
    } catch {
      return false
    }
  })
).annotations({ description: "a regular expression (JavaScript syntax)" })

/**
 * When a freshly started server counts as ready for its first query: once no `$/progress` token is
 * active (when `progress` is on) and nothing has arrived from the server for `quietMs` milliseconds. A
 * query never waits for this longer than `maxWaitMs`, nor past its caller's deadline; an answer given
 * before the server settled is marked incomplete.
 */
export const Readiness = Schema.Struct({
  quietMs: field(
    Schema.Int.pipe(Schema.between(0, MAX_TIMER_MS)).annotations({
      description: `an integer from 0 to ${MAX_TIMER_MS} (milliseconds)`
    }),
    "After startup, how long the server must have been silent (with no progress active) before the first query.",
    0
  ),
  progress: field(
    Schema.Boolean,
    "Whether to wait, after startup, until the server's work-done progress (indexing, project loading) has ended.",
    true
  ),
  maxWaitMs: field(
    Schema.Int.pipe(Schema.between(0, MAX_TIMER_MS)).annotations({
      description: `an integer from 0 to ${MAX_TIMER_MS} (milliseconds)`
    }),
    "The longest a query waits for a starting server to settle; it then asks anyway and marks the answer " +
      "incomplete.",
    15_000
  ),
  readyLog: field(
    Schema.NullOr(LogPattern),
    "A regular expression for the window/logMessage with which the server says its startup work is done (for " +
      "servers that report no progress): the server is not settled before one matches. null: no such message.",
    null
  ),
  openStartsProgress: field(
    Schema.Boolean,
    "Whether the server starts its startup work only once a file is open, and reports it as progress (clangd's " +
      "background index): then, for a file one of projectMarkers governs, the server is not settled before such a " +
      "progress has begun and ended.",
    false
  ),
  readyNotification: field(
    Schema.NullOr(Schema.NonEmptyTrimmedString),
    "The method of a notification with which the server says its startup work is done (yaml-language-server's " +
      "\"yaml/schema/store/initialized\", once asked for it through afterInitialized): the server is not settled " +
      "before it arrives. null: no such notification.",
    null
  )
}).annotations({ identifier: "Readiness", title: "an object like { \"quietMs\": 0 }" })

export type Readiness = typeof Readiness.Type

/**
 * An error message with which a server says the workspace is not set up for it (a Go module whose dependencies
 * are not downloaded), and what to do about it: a request failing with a matching message is
 * `LSP_WORKSPACE_NOT_READY` with the hint, instead of the server's raw `LSP_SERVER_ERROR`.
 */
export const WorkspaceError = Schema.Struct({
  message: LogPattern.annotations({ description: "a regular expression (JavaScript syntax) for the error's message" }),
  hint: Schema.NonEmptyTrimmedString.annotations({ description: "what to do, in a sentence or two" })
}).annotations({ identifier: "WorkspaceError", title: "an object like { \"message\": \"…\", \"hint\": \"…\" }" })

export type WorkspaceError = typeof WorkspaceError.Type

/**
 * A notification the client sends right after `initialized`: a server's own switch for a behaviour a client
 * opts into (yaml-language-server announces its settled configuration only to a client that sent
 * `yaml/supportSchemaSelection`).
 */
export const Notification = Schema.Struct({
  method: Schema.NonEmptyTrimmedString,
  params: Schema.optionalWith(JsonValue, { exact: true })
}).annotations({ identifier: "Notification", title: "an object like { \"method\": \"x/y\" }" })

export type Notification = typeof Notification.Type

/**
 * The crash-loop budget: how many crashes within how long stop the restarts.
 */
export const CrashLoop = Schema.Struct({
  maxCrashes: Schema.Int.pipe(Schema.between(1, 1_000)).annotations({
    description: "an integer from 1 to 1000"
  }),
  windowMs: Timer
}).annotations({ identifier: "CrashLoop", title: "an object like { \"maxCrashes\": 5, \"windowMs\": 180000 }" })

export type CrashLoop = typeof CrashLoop.Type

/**
 * How long a diagnostics query waits for pushed diagnostics (servers that do not answer them on request):
 * after the set for the synced text has come, `quietMs` without another; all in all at most `maxWaitMs`,
 * and never past the caller's deadline. When it runs out the answer is flagged `diagnostics-pending`.
 */
export const DiagnosticsWait = Schema.Struct({
  quietMs: field(
    Schema.Int.pipe(Schema.between(0, MAX_TIMER_MS)).annotations({
      description: `an integer from 0 to ${MAX_TIMER_MS} (milliseconds)`
    }),
    "Once diagnostics for the current text have come, how long to wait for more (some servers publish in phases).",
    200
  ),
  maxWaitMs: field(
    Schema.Int.pipe(Schema.between(0, MAX_TIMER_MS)).annotations({
      description: `an integer from 0 to ${MAX_TIMER_MS} (milliseconds)`
    }),
    "The longest a diagnostics query waits for the server to publish diagnostics for the current text.",
    10_000
  )
}).annotations({ identifier: "DiagnosticsWait", title: "an object like { \"quietMs\": 200 }" })

export type DiagnosticsWait = typeof DiagnosticsWait.Type

/**
 * How to ask a server that neither answers `textDocument/diagnostic` nor versions the sets it pushes for a file's
 * current text. `"tsserver"`: tsserver's own syntactic, semantic and suggestion diagnostics requests, through
 * typescript-language-server's `typescript.tsserverRequest` command (used when the server offers it; otherwise the
 * pushed sets, as with `null`).
 */
export const DiagnosticsPull = Schema.NullOr(Schema.Literal("tsserver")).annotations({
  identifier: "DiagnosticsPull",
  title: "\"tsserver\" or null"
})

export type DiagnosticsPull = typeof DiagnosticsPull.Type

/**
 * For servers that need a project model (see `projectMarkers`): when no marker governs a queried file,
 * cross-file queries first open the workspace's files of this server (at most `maxFiles`, `maxBytes` in all),
 * so that the server sees them and the answer is complete; beyond that bound the answer is flagged
 * no-project. Needs documentSync "retained" (the files stay open and in step with the disk).
 */
export const LooseFiles = Schema.Struct({
  maxFiles: Schema.Int.pipe(Schema.between(1, 10_000)).annotations({ description: "an integer from 1 to 10000" }),
  maxBytes: ByteCap
}).annotations({ identifier: "LooseFiles", title: "an object like { \"maxFiles\": 100, \"maxBytes\": 2000000 }" })

export type LooseFiles = typeof LooseFiles.Type

/**
 * The files of a server's language under its root that the server's own configuration leaves out of its
 * program (pyright's `include` and `exclude`): `reader` says how that configuration is read. A cross-file
 * question opens them for itself (at most `maxFiles`, `maxBytes` in all), so that its answer covers every source
 * file under the root whatever the configuration says; beyond that bound it is flagged excluded-by-config, naming
 * what was left out. Needs documentSync "retained".
 */
export const ExcludedFiles = Schema.Struct({
  reader: Schema.Literal("pyright").annotations({
    description: "\"pyright\": pyrightconfig.json, else pyproject.toml's [tool.pyright]"
  }),
  maxFiles: Schema.Int.pipe(Schema.between(1, 10_000)).annotations({ description: "an integer from 1 to 10000" }),
  maxBytes: ByteCap
}).annotations({
  identifier: "ExcludedFiles",
  title: "an object like { \"reader\": \"pyright\", \"maxFiles\": 200, \"maxBytes\": 4000000 }"
})

export type ExcludedFiles = typeof ExcludedFiles.Type

/**
 * For a server that hosts every project of a workspace itself, finding each file's project from the marker
 * files in `projectMarkers` (tsserver and its tsconfig.json files): before a cross-file question, one file of
 * each project (up to `maxProjects`) is opened so that the server loads it; the operations in `askEach`, which
 * the server answers from one project only, are asked again from the other projects (implementations and callers
 * from those that reference the symbol, a workspace search from every loaded one), and the answers merged. What a
 * bound left out is named in the answer (projects-not-searched).
 */
export const Projects = Schema.Struct({
  maxProjects: Schema.Int.pipe(Schema.between(1, 1000)).annotations({ description: "an integer from 1 to 1000" }),
  askEach: Schema.Array(Schema.Literal("goToImplementation", "incomingCalls", "workspaceSymbol"))
}).annotations({
  identifier: "Projects",
  title: "an object like { \"maxProjects\": 20, \"askEach\": [\"goToImplementation\", \"incomingCalls\"] }"
})

export type Projects = typeof Projects.Type

/**
 * How documents are kept in sync: `transient` opens and closes the document around every query;
 * `retained` keeps documents open between queries and brings them up to date with the disk first.
 */
export const DocumentSync = Schema.Literal("transient", "retained").annotations({
  title: "\"transient\" or \"retained\""
})

export type DocumentSync = typeof DocumentSync.Type
