/**
 * Configuration of the stdio host: which language servers exist, how to start them, and the limits and
 * timers each one runs under. Decoding validates everything the host can check without touching the
 * machine (executables are resolved later, when the host loads); every failure is `LSP_INVALID_CONFIG`
 * with a message that names the server and the field.
 *
 * @since 0.1.0
 */
import { LspError, LspExtension } from "@lsp-seam/lsp"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/**
 * The largest value accepted for a timer, in milliseconds (the largest delay a JavaScript timer can hold).
 *
 * @since 0.1.0
 * @category models
 */
export const MAX_TIMER_MS = 2_147_483_647

/**
 * The environment variable `load` and `config` read by default.
 *
 * @since 0.1.0
 * @category models
 */
export const DEFAULT_VARIABLE = "LSP_SEAM_CONFIG"

const isBlank = (s: string): boolean => s.trim().length === 0

const NonBlankString = Schema.String.pipe(
  Schema.filter((s) => !isBlank(s) || "must not be blank", {
    jsonSchema: { pattern: "\\S" },
    description: "a string with at least one non-whitespace character"
  })
).annotations({ title: "a non-blank string" })

const NoNulString = Schema.String.pipe(
  Schema.filter((s) => !s.includes("\0") || "must not contain a NUL character", {
    jsonSchema: { pattern: "^[^\\u0000]*$" }
  })
).annotations({ title: "a string without NUL characters" })

const Command = NonBlankString.pipe(
  Schema.filter((s) => !s.includes("\0") || "must not contain a NUL character", { jsonSchema: {} })
).annotations({
  description: "An absolute path to the server executable, or a bare name looked up on the server's PATH. " +
    "Never run through a shell; relative paths containing a separator are rejected."
})

const EnvName = Schema.String.pipe(
  Schema.filter((s) => s.length > 0 && !s.includes("=") && !s.includes("\0") && s !== "__proto__", {
    jsonSchema: { pattern: "^[^=\\u0000]+$" }
  })
).annotations({ title: "an environment variable name (non-empty, without '=' or NUL, not \"__proto__\")" })

const ExtensionKey = Schema.String.pipe(Schema.filter((s) => s !== "__proto__", { jsonSchema: {} })).annotations({
  title: "an extension other than \"__proto__\""
})

const isJsonValue = (u: unknown, depth: number): boolean => {
  if (depth > 256) return false
  if (u === null || typeof u === "string" || typeof u === "boolean") return true
  if (typeof u === "number") return Number.isFinite(u)
  if (Array.isArray(u)) return u.every((item) => isJsonValue(item, depth + 1))
  if (typeof u === "object") {
    const proto = Object.getPrototypeOf(u)
    return (proto === Object.prototype || proto === null) &&
      Object.values(u).every((item) => isJsonValue(item, depth + 1))
  }
  return false
}

// Sent to the server as JSON: refuse functions, undefined, NaN, class instances and the like up front.
const JsonValue = Schema.Unknown.pipe(
  Schema.filter(
    (u) => isJsonValue(u, 0) || "must be a JSON value (null, boolean, finite number, string, array, object)",
    {
      jsonSchema: { description: "any JSON value" }
    }
  )
).annotations({ title: "a JSON value" })

// A refinement's description names the accepted values (a failed decode says it expected that); each field
// adds its own description and default, for editors, on the property.
const Timer = Schema.Int.pipe(Schema.between(1, MAX_TIMER_MS)).annotations({
  description: `an integer from 1 to ${MAX_TIMER_MS} (milliseconds)`
})

const ByteCap = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({
  description: "an integer of at least 1 (bytes)"
})

const field = <A, I>(schema: Schema.Schema<A, I>, description: string, defaultValue: A) =>
  Schema.optionalWith(schema, { exact: true, default: () => defaultValue }).annotations({
    description,
    default: defaultValue
  })

const ExtensionMap = Schema.Record({ key: ExtensionKey, value: NonBlankString }).annotations({
  title: "an object mapping extensions to language ids"
}).pipe(
  Schema.filter((map) => {
    const keys = Object.keys(map)
    if (keys.length === 0) return "must map at least one extension to a language id"
    const issues: Array<Schema.FilterIssue> = []
    const seen = new Map<string, string>()
    for (const key of keys) {
      const normalized = LspExtension.normalizeExtensionKey(key)
      if (Either.isLeft(normalized)) {
        issues.push({ path: [key], message: normalized.left })
        continue
      }
      const previous = seen.get(normalized.right)
      if (previous !== undefined) {
        issues.push({
          path: [key],
          message: `extension ${JSON.stringify(key)} and ${JSON.stringify(previous)} are both ${normalized.right}`
        })
      }
      seen.set(normalized.right, key)
    }
    return issues
  }, { jsonSchema: { minProperties: 1 } })
).annotations({
  description: "Extension → LSP language id, e.g. { \".ts\": \"typescript\" }. Keys are lower-cased and get a " +
    "leading dot when missing; each must be a single extension."
})

const Args = Schema.Array(NoNulString).annotations({ title: "an array of strings" })

const Env = Schema.Record({ key: EnvName, value: NoNulString }).annotations({
  title: "an object of environment variables"
})

/**
 * When a freshly started server counts as ready for its first query: once no `$/progress` token is
 * active (when `progress` is on) and nothing has arrived from the server for `quietMs` milliseconds. A
 * query never waits for this longer than `maxWaitMs`, nor past its caller's deadline; an answer given
 * before the server settled is marked incomplete.
 *
 * @since 0.1.0
 * @category models
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
  )
}).annotations({ identifier: "Readiness", title: "an object like { \"quietMs\": 0 }" })

/**
 * @since 0.1.0
 * @category models
 */
export type Readiness = typeof Readiness.Type

/**
 * The crash-loop budget: how many crashes within how long stop the restarts.
 *
 * @since 0.1.0
 * @category models
 */
export const CrashLoop = Schema.Struct({
  maxCrashes: Schema.Int.pipe(Schema.between(1, 1_000)).annotations({
    description: "an integer from 1 to 1000"
  }),
  windowMs: Timer
}).annotations({ identifier: "CrashLoop", title: "an object like { \"maxCrashes\": 5, \"windowMs\": 180000 }" })

/**
 * @since 0.1.0
 * @category models
 */
export type CrashLoop = typeof CrashLoop.Type

/**
 * How documents are kept in sync: `transient` opens and closes the document around every query;
 * `retained` keeps documents open between queries and brings them up to date with the disk first.
 *
 * @since 0.1.0
 * @category models
 */
export const DocumentSync = Schema.Literal("transient", "retained").annotations({
  title: "\"transient\" or \"retained\""
})

/**
 * @since 0.1.0
 * @category models
 */
export type DocumentSync = typeof DocumentSync.Type

/**
 * One configured language server. In the decoded type every default is filled in.
 *
 * @since 0.1.0
 * @category models
 */
export const ServerConfig = Schema.Struct({
  command: Command,
  extensionToLanguage: ExtensionMap,
  args: field(Args, "Arguments passed to the server, without a shell.", []),
  env: field(
    Env,
    "Extra environment variables, merged over the host's environment after variables that look like credentials " +
      "(names containing KEY, PASSWORD, SECRET or TOKEN) and LSP_SEAM_* variables were removed.",
    {}
  ),
  initializationOptions: field(JsonValue, "Sent as initializationOptions in the initialize request.", null),
  configuration: field(JsonValue, "The answer to every item of every workspace/configuration request.", null),
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
  readiness: field(Readiness, "When a freshly started server is ready for its first query.", {
    quietMs: 0,
    progress: true,
    maxWaitMs: 15_000
  }),
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
export type ServerConfig = typeof ServerConfig.Type

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
  export type Type = typeof ServerConfig.Type
  /**
   * The configuration as written (JSON): optional fields may be absent.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof ServerConfig.Encoded
}

// A record key that fails its refinement is reported as an unexpected property (decoding always runs with
// `onExcessProperty: "error"`), so the title says what a valid key is. "__proto__" is refused because as a
// key of the decoded object it would replace the prototype instead of adding an entry.
const ServerId = Schema.String.pipe(
  Schema.filter((s) => !isBlank(s) && s !== "__proto__", { jsonSchema: { pattern: "\\S" } })
).annotations({ title: "a server id that is neither blank nor \"__proto__\"" })

const Servers = Schema.Record({ key: ServerId, value: ServerConfig }).annotations({
  title: "an object mapping server ids to server configurations"
}).pipe(
  Schema.filter((servers) => {
    const ids = Object.keys(servers)
    if (ids.length === 0) return "must configure at least one server"
    // Extensions are exclusive across providers; catching a clash here keeps registration all-or-nothing.
    const owners = new Map<string, string>()
    const issues: Array<Schema.FilterIssue> = []
    for (const id of ids) {
      for (const key of Object.keys(servers[id]!.extensionToLanguage)) {
        const normalized = LspExtension.normalizeExtensionKey(key)
        if (Either.isLeft(normalized)) continue
        const owner = owners.get(normalized.right)
        if (owner === undefined) {
          owners.set(normalized.right, id)
        } else {
          issues.push({
            path: [id, "extensionToLanguage", key],
            message: `extension ${normalized.right} is already handled by server ${JSON.stringify(owner)}`
          })
        }
      }
    }
    return issues
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
    "The most servers serving queries at once. A new workspace's server replaces the least recently used idle " +
      "one (which may still be stopping, within its shutdown grace, while the new one starts); when none is idle, " +
      "the query waits for one to become idle.",
    8
  )
}).annotations({
  identifier: "StdioConfig",
  title: "lsp-seam stdio host configuration",
  parseOptions: { onExcessProperty: "error" }
})

/**
 * @since 0.1.0
 * @category models
 */
export type StdioConfig = typeof StdioConfig.Type

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
  export type Type = typeof StdioConfig.Type
  /**
   * The configuration as written (JSON).
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof StdioConfig.Encoded
}

const parseOptions = { errors: "all", onExcessProperty: "error" } as const

const isIdentifier = (segment: string): boolean => /^[A-Za-z_$][\w$]*$/.test(segment)

const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((segment, i) => {
    const text = String(segment)
    if (typeof segment === "number") return `[${text}]`
    if (isIdentifier(text)) return i === 0 ? text : `.${text}`
    return `[${JSON.stringify(text)}]`
  }).join("")

interface Issue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

// A struct with defaults is a transformation whose encoded side has only an automatic title.
const readable = (message: string): string => message.replaceAll("Struct (Encoded side)", "an object")

const expectedPattern = /^Expected (.*), actual (.*)$/s

/**
 * A union reports one issue per member ("Expected "a", actual 1"; "Expected "b", actual 1"); merge the
 * issues of one path into one "Expected "a" or "b", actual 1".
 */
const mergeAlternatives = (issues: ReadonlyArray<Issue>): Array<Issue> => {
  const merged: Array<Issue> = []
  for (const issue of issues) {
    const previous = merged.at(-1)
    const current = expectedPattern.exec(issue.message)
    const before = previous === undefined ? null : expectedPattern.exec(previous.message)
    if (
      previous !== undefined && current !== null && before !== null && before[2] === current[2] &&
      previous.path.length === issue.path.length && previous.path.every((segment, i) => segment === issue.path[i])
    ) {
      merged[merged.length - 1] = {
        path: issue.path,
        message: `Expected ${before[1]} or ${current[1]}, actual ${current[2]}`
      }
    } else {
      merged.push(issue)
    }
  }
  return merged
}

const formatIssue = (issue: Issue): string => {
  const [root, id, ...rest] = issue.path
  if (root === "servers" && id !== undefined) {
    const where = rest.length === 0 ?
      `server ${JSON.stringify(String(id))}` :
      `server ${JSON.stringify(String(id))}, field ${formatPath(rest)}`
    return `${where}: ${issue.message}`
  }
  return issue.path.length === 0 ? issue.message : `${formatPath(issue.path)}: ${issue.message}`
}

const toLspError = (error: ParseResult.ParseError): LspError.LspError => {
  const issues = mergeAlternatives(
    ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
      path: issue.path,
      message: readable(issue.message)
    }))
  )
  const serverIds = Array.from(
    new Set(
      issues.flatMap((issue) => issue.path[0] === "servers" && issue.path.length > 1 ? [String(issue.path[1])] : [])
    )
  )
  return LspError.invalidConfig(
    `Invalid lsp-seam configuration: ${issues.map(formatIssue).join("; ")}`,
    { issues: issues.map((issue) => ({ path: issue.path.map(String), message: issue.message })), serverIds }
  )
}

/**
 * Decodes and validates a configuration value (already parsed from JSON), filling in defaults.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (input: unknown): Effect.Effect<StdioConfig, LspError.LspError> =>
  Schema.decodeUnknown(StdioConfig, parseOptions)(input).pipe(Effect.mapError(toLspError))

/**
 * Like `decode`, synchronously, as an `Either`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeEither = (input: unknown): Either.Either<StdioConfig, LspError.LspError> =>
  Either.mapLeft(Schema.decodeUnknownEither(StdioConfig, parseOptions)(input), toLspError)

const StdioConfigJson = Schema.parseJson(StdioConfig)

/**
 * Parses JSON text and decodes it as a configuration. Invalid JSON is `LSP_INVALID_CONFIG` too.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeJson = (text: string): Effect.Effect<StdioConfig, LspError.LspError> =>
  Schema.decodeUnknown(StdioConfigJson, parseOptions)(text).pipe(Effect.mapError(toLspError))

/**
 * Encodes a decoded configuration back to its JSON-ready form (defaults stay filled in).
 *
 * @since 0.1.0
 * @category encoding
 */
export const encode = (config: StdioConfig): StdioConfig.Encoded => Schema.encodeSync(StdioConfig)(config)

/**
 * The configuration as an Effect `Config`: the variable `name` holds the configuration as JSON text.
 * Invalid JSON or an invalid configuration is a `ConfigError.InvalidData` whose message is the one
 * `decode` would give.
 *
 * @since 0.1.0
 * @category config
 */
export const config = (name: string = DEFAULT_VARIABLE): Config.Config<StdioConfig> =>
  Config.string(name).pipe(
    Config.mapOrFail((text) =>
      Either.mapLeft(
        Either.mapLeft(Schema.decodeUnknownEither(StdioConfigJson, parseOptions)(text), toLspError),
        (error) => ConfigError.InvalidData([], error.message)
      )
    )
  )

/**
 * Loads the configuration through the current `ConfigProvider` from the variable `name` (JSON text). A
 * missing variable, invalid JSON or an invalid configuration fails with `LSP_INVALID_CONFIG`.
 *
 * @since 0.1.0
 * @category config
 */
export const load = (name: string = DEFAULT_VARIABLE): Effect.Effect<StdioConfig, LspError.LspError> =>
  Config.string(name).pipe(
    Effect.mapError((error) =>
      LspError.invalidConfig(
        ConfigError.isMissingDataOnly(error)
          ? `No lsp-seam configuration: the variable ${name} is not set.`
          : `The lsp-seam configuration variable ${name} could not be read: ${String(error)}`,
        { variable: name }
      )
    ),
    Effect.flatMap(decodeJson)
  )

/**
 * A JSON Schema (draft 7) of the configuration as written, for editors and documentation.
 *
 * @since 0.1.0
 * @category schemas
 */
export const jsonSchema: JSONSchema.JsonSchema7Root = JSONSchema.make(StdioConfig)
