/**
 * Configuration of the stdio host: which language servers exist, how to start them, and the limits and timers each
 * one runs under. Decoding validates everything the host can check without touching the machine (executables are
 * resolved later, when the host loads); every failure is `LSP_INVALID_CONFIG`, naming the server and the field.
 *
 * @since 0.1.0
 */
import type { LspError } from "@lsp-seam/lsp"
import type * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import * as Schema from "effect/Schema"
import * as ConfigErrors from "./internal/config/configErrors.js"
import * as ConfigFields from "./internal/config/configFields.js"
import * as ConfigVariable from "./internal/config/configVariable.js"
import * as MemorySize from "./internal/config/memorySize.js"
import * as Settings from "./internal/config/serverSettings.js"

const { ByteCap, field, Timer } = Settings

/**
 * The largest value accepted for a timer, in milliseconds (the largest delay a JavaScript timer can hold).
 *
 * @since 0.1.0
 * @category models
 */
export const MAX_TIMER_MS = Settings.MAX_TIMER_MS

/**
 * The environment variable `load` and `config` read by default.
 *
 * @since 0.1.0
 * @category models
 */
export const DEFAULT_VARIABLE = "LSP_SEAM_CONFIG"

/**
 * When a freshly started server counts as ready for its first query: once no `$/progress` token is
 * active (when `progress` is on) and nothing has arrived from the server for `quietMs` milliseconds. A
 * query never waits for this longer than `maxWaitMs`, nor past its caller's deadline; an answer given
 * before the server settled is marked incomplete.
 *
 * @since 0.1.0
 * @category models
 */
export const Readiness: typeof Settings.Readiness = Settings.Readiness

/**
 * @since 0.1.0
 * @category models
 */
export type Readiness = Settings.Readiness

/**
 * The crash-loop budget: how many crashes within how long stop the restarts.
 *
 * @since 0.1.0
 * @category models
 */
export const CrashLoop: typeof Settings.CrashLoop = Settings.CrashLoop

/**
 * @since 0.1.0
 * @category models
 */
export type CrashLoop = Settings.CrashLoop

/**
 * How long a diagnostics query waits for pushed diagnostics (servers that do not answer them on request):
 * after the set for the synced text has come, `quietMs` without another; all in all at most `maxWaitMs`,
 * and never past the caller's deadline. When it runs out the answer is flagged `diagnostics-pending`.
 *
 * @since 0.1.0
 * @category models
 */
export const DiagnosticsWait: typeof Settings.DiagnosticsWait = Settings.DiagnosticsWait

/**
 * @since 0.1.0
 * @category models
 */
export type DiagnosticsWait = Settings.DiagnosticsWait

/**
 * Files no project marker governs, which a cross-file query opens so the server sees them (at most `maxFiles`,
 * `maxBytes` in all; beyond that the answer is flagged). Needs documentSync "retained".
 *
 * @since 0.1.0
 * @category models
 */
export const LooseFiles: typeof Settings.LooseFiles = Settings.LooseFiles

/**
 * @since 0.1.0
 * @category models
 */
export type LooseFiles = Settings.LooseFiles

/**
 * Files under a server's root its own configuration leaves out (pyright's `include`/`exclude`), which a cross-file
 * query opens (at most `maxFiles`, `maxBytes` in all; beyond that flagged excluded-by-config).
 *
 * @since 0.1.0
 * @category models
 */
export const ExcludedFiles: typeof Settings.ExcludedFiles = Settings.ExcludedFiles

/**
 * @since 0.1.0
 * @category models
 */
export type ExcludedFiles = Settings.ExcludedFiles

/**
 * For a server that hosts every project of a workspace itself, finding each file's project from the marker
 * files in `projectMarkers` (tsserver and its tsconfig.json files): before a cross-file question, one file of
 * each project (up to `maxProjects`) is opened so that the server loads it; the operations in `askEach`, which
 * the server answers from one project only, are asked again from the other projects (implementations and callers
 * from those that reference the symbol, a workspace search from every loaded one), and the answers merged. What a
 * bound left out is named in the answer (projects-not-searched).
 *
 * @since 0.1.0
 * @category models
 */
export const Projects: typeof Settings.Projects = Settings.Projects

/**
 * @since 0.1.0
 * @category models
 */
export type Projects = Settings.Projects

/**
 * How documents are kept in sync: `transient` opens and closes the document around every query;
 * `retained` keeps documents open between queries and brings them up to date with the disk first.
 *
 * @since 0.1.0
 * @category models
 */
export const DocumentSync: typeof Settings.DocumentSync = Settings.DocumentSync

/**
 * @since 0.1.0
 * @category models
 */
export type DocumentSync = Settings.DocumentSync

/**
 * One configured language server. In the decoded type every default is filled in.
 *
 * @since 0.1.0
 * @category models
 */
export const ServerConfig = Schema.Struct({
  command: ConfigFields.Command,
  extensionToLanguage: ConfigFields.ExtensionMap,
  args: field(ConfigFields.Args, "Arguments passed to the server, without a shell.", []),
  env: field(
    ConfigFields.Env,
    "Extra environment variables, merged over the host's environment after variables that look like credentials " +
      "(names containing KEY, PASSWORD, SECRET or TOKEN) and LSP_SEAM_* variables were removed.",
    {}
  ),
  initializationOptions: field(ConfigFields.JsonValue, "The initialize request's initializationOptions.", null),
  configuration: field(ConfigFields.JsonValue, "The answer to each item of workspace/configuration requests.", null),
  maxMessageBytes: field(ByteCap, "The largest message accepted from the server.", 16_000_000),
  maxStderrBytes: field(ByteCap, "How much of the end of the server's stderr is kept for error messages.", 1_000_000),
  maxDocumentBytes: field(ByteCap, "The largest source file that is opened.", 4_000_000),
  shutdownTimeoutMs: field(Timer, "Time for the graceful shutdown and exit of the server.", 5_000),
  killGraceMs: field(
    Timer,
    "Time the server gets to settle a cancelled request, and between SIGTERM and SIGKILL.",
    2_000
  ),
  documentSync: field(
    DocumentSync,
    "\"retained\" keeps queried documents open between queries and brings each one up to date with the disk " +
      "before every query (the server's warm, keep-open speed); \"transient\" opens and closes the document " +
      "around each query.",
    "retained"
  ),
  maxRetainedDocuments: field(
    Schema.Int.pipe(Schema.between(1, 10_000)).annotations({ description: "an integer from 1 to 10000" }),
    "With documentSync \"retained\": how many documents a server keeps open per workspace (least recently " +
      "queried closed first).",
    32
  ),
  projectMarkers: field(
    ConfigFields.FileNames,
    "Files that give the server its project model (e.g. tsconfig.json). When set and none is found in the queried " +
      "file's directory or above it within the workspace, cross-file answers (findReferences, " +
      "goToImplementation) are flagged incomplete with the reason no-project. Empty: the server needs none.",
    []
  ),
  workspaceSymbols: field(
    Schema.Boolean,
    "Whether the server can search the workspace for symbols (workspace/symbol). false: a workspaceSymbol " +
      "search without a file skips this server without starting it (not flagged: it has nothing to search). A " +
      "server started without advertising workspaceSymbolProvider is skipped the same way from then on.",
    true
  ),
  rootMarkers: field(
    ConfigFields.RootMarkers,
    "Where the server is rooted for a queried file: the nearest directory, from the file's own up to the " +
      "workspace (never above it), that holds one of these files. Entries are tried in order, and a nested " +
      "list's names count as one entry (the nearest directory holding any of them), so [\"go.work\", \"go.mod\"] " +
      "prefers a go.work anywhere above to the nearest go.mod. One server runs per root found; a file with " +
      "none is served from the workspace. Empty: always the workspace.",
    []
  ),
  readiness: field(Readiness, "When a freshly started server is ready for its first query.", {
    quietMs: 0,
    progress: true,
    maxWaitMs: 15_000,
    readyLog: null,
    openStartsProgress: false,
    readyNotification: null
  }),
  workspaceErrors: field(
    Schema.Array(Settings.WorkspaceError).annotations({ title: "an array of { message, hint } objects" }),
    "Error messages with which the server says the workspace is not set up (a Go module without its dependencies): a " +
      "request failing with a matching one is LSP_WORKSPACE_NOT_READY with its hint (what to run), not LSP_SERVER_ERROR.",
    []
  ),
  afterInitialized: field(
    Schema.Array(Settings.Notification).annotations({ title: "an array of { method, params? } objects" }),
    "Notifications sent, in order, right after initialized: a server's own opt-in switches (yaml-language-server's " +
      "yaml/supportSchemaSelection, which makes it announce its settled configuration for readiness.readyNotification).",
    []
  ),
  looseFiles: field(
    Schema.NullOr(LooseFiles),
    "Cross-file queries open up to maxFiles (maxBytes in all) of the workspace's files no project marker governs " +
      "(all of them for a file in none; with projects, those outside every project), flagged beyond that. null: never.",
    null
  ),
  excludedFiles: field(
    Schema.NullOr(ExcludedFiles),
    "Files under the server's root its own configuration leaves out (pyright's include/exclude): cross-file " +
      "queries open up to maxFiles of them (maxBytes in all); beyond that they are flagged excluded-by-config. null: never.",
    null
  ),
  projects: field(
    Schema.NullOr(Projects),
    "For a server that hosts every project of the workspace itself (tsserver): before findReferences, " +
      "goToImplementation, incomingCalls or workspaceSymbol, one file of each project (a config found by " +
      "projectMarkers, or one it references; at most maxProjects) is opened so the server loads it, and the " +
      "operations in askEach, which the server answers from one project only, are asked again from the other " +
      "projects (implementations and callers from those that reference the symbol, a workspace search from every " +
      "loaded one) and merged. Projects beyond the bound are named in the answer (projects-not-searched). Needs " +
      "documentSync \"retained\". null: off (servers rooted per project use rootMarkers instead).",
    null
  ),
  diagnosticsPull: field(
    Settings.DiagnosticsPull,
    "\"tsserver\": a file's diagnostics asked of tsserver (typescript.tsserverRequest), not taken from pushed sets.",
    null
  ),
  diagnosticsWait: field(
    DiagnosticsWait,
    "How long a diagnostics query waits for diagnostics the server pushes.",
    { quietMs: 200, maxWaitMs: 10_000 }
  ),
  idleTimeoutMs: field(
    Timer,
    "A server that has answered no query for this long is shut down; the next query starts it again.",
    600_000
  ),
  crashLoop: field(
    CrashLoop,
    "After maxCrashes crashes of one server for one workspace within windowMs, queries fail fast instead of " +
      "restarting it, until the window has passed.",
    { maxCrashes: 5, windowMs: 180_000 }
  )
}).annotations({ identifier: "ServerConfig", parseOptions: { onExcessProperty: "error" } })

/**
 * @since 0.1.0
 * @category models
 */
export interface ServerConfig extends Schema.Schema.Type<typeof ServerConfig> {}

/**
 * @since 0.1.0
 * @category models
 */
export declare namespace ServerConfig {
  /**
   * The decoded server configuration, every default filled in.
   *
   * @since 0.1.0
   * @category models
   */
  export type Type = ServerConfig
  /**
   * The configuration as written (JSON): optional fields may be absent.
   *
   * @since 0.1.0
   * @category models
   */
  export interface Encoded extends Schema.Schema.Encoded<typeof ServerConfig> {}
}

const Servers = Schema.Record({ key: ConfigFields.ServerId, value: ServerConfig }).annotations({
  title: "an object mapping server ids to server configurations"
}).pipe(
  Schema.filter((servers) => {
    if (Object.keys(servers).length === 0) return "must configure at least one server"
    return ConfigFields.extensionClashes(servers)
  }, { jsonSchema: { minProperties: 1 } })
)

/**
 * The whole host configuration: a non-empty record from provider id to server. Ids are not trimmed and
 * must not be blank. Unknown fields are rejected so typos surface.
 *
 * @since 0.1.0
 * @category models
 */
export const StdioConfig = Schema.Struct({
  servers: Servers,
  maxServers: field(
    Schema.Int.pipe(Schema.between(1, 1_000)).annotations({ description: "an integer from 1 to 1000" }),
    "The most servers serving queries at once, a bound on processes (their memory is maxMemory's). A new " +
      "workspace's server replaces the least recently used idle one (which may still be stopping, within its " +
      "shutdown grace, while the new one starts); when none is idle, the query waits for one to become idle.",
    32
  ),
  maxMemory: field(MemorySize.MaxMemory, MemorySize.description, MemorySize.DEFAULT_MAX_MEMORY)
}).annotations({
  identifier: "StdioConfig",
  title: "lsp-seam stdio host configuration",
  parseOptions: { onExcessProperty: "error" }
})

/**
 * @since 0.1.0
 * @category models
 */
export interface StdioConfig extends Schema.Schema.Type<typeof StdioConfig> {}

/**
 * @since 0.1.0
 * @category models
 */
export declare namespace StdioConfig {
  /**
   * The decoded configuration, every default filled in.
   *
   * @since 0.1.0
   * @category models
   */
  export type Type = StdioConfig
  /**
   * The configuration as written (JSON).
   *
   * @since 0.1.0
   * @category models
   */
  export interface Encoded extends Schema.Schema.Encoded<typeof StdioConfig> {}
}

const parseOptions = { errors: "all", onExcessProperty: "error" } as const

/**
 * Decodes and validates a configuration value (already parsed from JSON), filling in defaults.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (input: unknown): Effect.Effect<StdioConfig, LspError.LspConfigurationError> =>
  Schema.decodeUnknown(StdioConfig, parseOptions)(input).pipe(Effect.mapError(ConfigErrors.toLspError))

/**
 * Like `decode`, synchronously, as an `Either`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeEither = (input: unknown): Either.Either<StdioConfig, LspError.LspConfigurationError> =>
  Either.mapLeft(Schema.decodeUnknownEither(StdioConfig, parseOptions)(input), ConfigErrors.toLspError)

/**
 * Checks that an already decoded configuration (say, one a program built, or a `Config` mapped) satisfies
 * every rule of the schema, without encoding it; a violation is `LSP_INVALID_CONFIG` as from `decode`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const validate = (config: StdioConfig): Effect.Effect<StdioConfig, LspError.LspConfigurationError> =>
  // Extra properties are the program's own business here: the value is already typed, and nothing is read from them.
  Schema.validate(StdioConfig, { ...parseOptions, onExcessProperty: "ignore" })(config).pipe(
    Effect.mapError(ConfigErrors.toLspError)
  )

const StdioConfigJson = Schema.parseJson(StdioConfig)

const decodeJsonEither = (text: string): Either.Either<StdioConfig, LspError.LspConfigurationError> =>
  Either.mapLeft(Schema.decodeUnknownEither(StdioConfigJson, parseOptions)(text), ConfigErrors.toLspError)

/**
 * Parses JSON text and decodes it as a configuration. Invalid JSON is `LSP_INVALID_CONFIG` too.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeJson = (text: string): Effect.Effect<StdioConfig, LspError.LspConfigurationError> =>
  Schema.decodeUnknown(StdioConfigJson, parseOptions)(text).pipe(Effect.mapError(ConfigErrors.toLspError))

/**
 * Encodes a decoded configuration back to its JSON-ready form (defaults stay filled in).
 *
 * @since 0.1.0
 * @category encoding
 */
export const encode = (config: StdioConfig): StdioConfig.Encoded => Schema.encodeSync(StdioConfig)(config)

/**
 * The configuration as an Effect `Config`: the variable `name` holds the configuration as JSON text, decoded
 * once, here. Invalid JSON or an invalid configuration is a `ConfigError.InvalidData` whose message is the
 * one `decode` would give.
 *
 * @since 0.1.0
 * @category config
 */
export const config = (name: string = DEFAULT_VARIABLE): Config.Config<StdioConfig> =>
  ConfigVariable.config(name, decodeJsonEither)

/**
 * Loads the configuration through the current `ConfigProvider` from the variable `name` (JSON text). A
 * missing variable, invalid JSON or an invalid configuration fails with `LSP_INVALID_CONFIG`.
 *
 * @since 0.1.0
 * @category config
 */
export const load = (name: string = DEFAULT_VARIABLE): Effect.Effect<StdioConfig, LspError.LspConfigurationError> =>
  Effect.flatMap(ConfigVariable.read(name), decodeJson)

/**
 * A JSON Schema (draft 7) of the configuration as written, for editors and documentation.
 *
 * @since 0.1.0
 * @category schemas
 */
export const jsonSchema: JSONSchema.JsonSchema7Root = JSONSchema.make(StdioConfig)
