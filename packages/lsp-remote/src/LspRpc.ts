/**
 * The wire contract between a remote lsp-seam host and its clients: one `@effect/rpc` group whose payloads,
 * successes and errors are the seam's own Schemas, so a coded `LspError` crosses the wire unchanged.
 *
 * @since 0.1.0
 */
import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import { LspDecode, LspError, LspQuery, LspResult, LspResultCheck } from "@lsp-seam/lsp"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"

/**
 * The lsp-seam version this package speaks for. A host answers `Hello` with it unless told otherwise, and a
 * client can refuse a host of another version.
 *
 * @since 0.1.0
 * @category constants
 */
export const version = "0.1.0"

/**
 * The revision of this wire contract. It changes whenever a payload, success or error Schema of the group
 * changes in a way an older peer cannot decode.
 *
 * @since 0.1.0
 * @category constants
 */
export const protocolRevision = 2

/**
 * The request header that carries the caller's remaining budget (`LspDeadline.remaining`, in whole
 * milliseconds) to the host, which runs the query under the same deadline. Relative, so clock skew between
 * the machines does not matter.
 *
 * @since 0.1.0
 * @category constants
 */
export const budgetHeader = "lsp-seam-budget-ms"

/**
 * One language server as the host's status view reports it. Mirrors the stdio host's `ServerStatus`, so
 * `StdioStatus.status` can be served as is; hosts of other kinds may report their own servers the same way.
 *
 * @since 0.1.0
 * @category models
 */
export const ServerStatus = Schema.Struct({
  providerId: Schema.String,
  /** The canonical workspace directory. */
  workspace: Schema.String,
  /** The directory the server runs in, when it is a project root below the workspace (absent from older hosts). */
  root: Schema.optional(Schema.String),
  /** `null` while starting. */
  pid: Schema.NullOr(Schema.Int),
  state: Schema.Literal("starting", "idle", "busy"),
  uptimeMs: Schema.NonNegative,
  /** Queries that have used this server instance. */
  queriesServed: Schema.NonNegativeInt,
  /** Queries waiting for this server behind the one it serves (absent from hosts that do not count them). */
  queued: Schema.optional(Schema.NonNegativeInt),
  /** How many times a server for this provider and workspace was started before this one. */
  restarts: Schema.NonNegativeInt,
  /** The last crash of a server for this provider and workspace, if any. */
  lastError: Schema.NullOr(Schema.String),
  /** Resident memory of the server's process tree, where the process world can tell. */
  rssBytes: Schema.NullOr(Schema.NonNegative)
})

/**
 * A server the host's memory budget stopped.
 *
 * @since 0.1.0
 * @category models
 */
export const MemoryEviction = Schema.Struct({
  providerId: Schema.String,
  workspace: Schema.String,
  root: Schema.String,
  pid: Schema.Int,
  /** The resident memory of its process tree when it was stopped. */
  rssBytes: Schema.NonNegative,
  /** The servers' total, this one included, when it was stopped. */
  totalBytes: Schema.NonNegative,
  budgetBytes: Schema.NonNegative,
  /** When, in milliseconds since the epoch. */
  at: Schema.Number
})

/**
 * The servers' memory against the host's budget (`maxMemory`), and the host's own. Mirrors the stdio host's
 * `StdioStatus.MemoryStatus`.
 *
 * @since 0.1.0
 * @category models
 */
export const MemoryStatus = Schema.Struct({
  /** The budget as configured (`"25%"`, `"2GiB"`, bytes). */
  maxMemory: Schema.Union(Schema.String, Schema.Number),
  /** The budget in bytes on the host's machine; null when it cannot tell. */
  budgetBytes: Schema.NullOr(Schema.NonNegative),
  /** Whether the budget is enforced: false where the servers' memory cannot be measured. */
  enforced: Schema.Boolean,
  /** The resident memory of every running server's process tree, summed; null when it cannot be measured. */
  totalBytes: Schema.NullOr(Schema.NonNegative),
  /** The resident memory of the host process itself. */
  hostBytes: Schema.NonNegative,
  /** How many servers the budget has stopped since the host started. */
  evictions: Schema.NonNegativeInt,
  /** The latest of them, oldest first. */
  recentEvictions: Schema.Array(MemoryEviction)
})

/**
 * @since 0.1.0
 * @category models
 */
export interface MemoryStatus extends Schema.Schema.Type<typeof MemoryStatus> {}

/**
 * @since 0.1.0
 * @category models
 */
export interface ServerStatus extends Schema.Schema.Type<typeof ServerStatus> {}

/**
 * What a client says about itself when it greets a host.
 *
 * @since 0.1.0
 * @category models
 */
export const HelloRequest = Schema.Struct({
  /** The client's lsp-seam version (informational: the client decides whether the host suits it). */
  clientVersion: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export interface HelloRequest extends Schema.Schema.Type<typeof HelloRequest> {}

/**
 * Who answers: enough for a client to refuse a host of another version or configuration, and for a
 * launcher to find the daemon's process.
 *
 * @since 0.1.0
 * @category models
 */
export const HelloResponse = Schema.Struct({
  /** Always `protocolRevision` of the host's copy of this module. */
  protocolRevision: Schema.Int,
  /** The host's lsp-seam version. */
  version: Schema.String,
  /** The configuration fingerprint the host was started with (the launcher's choice; `""` when none). */
  fingerprint: Schema.String,
  /** The host's process id. */
  pid: Schema.Int,
  /** Whether `Status` answers (the host was given a status view). */
  statusAvailable: Schema.Boolean,
  /**
   * The directories the host serves (canonical paths): a query whose workspace is not inside one is refused
   * with `LSP_REMOTE_FORBIDDEN`. Absent when the host serves every workspace its user can read.
   *
   * @since 0.1.0
   */
  roots: Schema.optional(Schema.Array(Schema.String)),
  /**
   * Whether `Memory` answers (absent from hosts older than the memory budget: do not call it then).
   *
   * @since 0.1.0
   */
  memoryAvailable: Schema.optional(Schema.Boolean),
  /**
   * Whether `Placement` answers: the host is a cluster's front (`serve --cluster`). Absent from other hosts.
   *
   * @since 0.1.0
   */
  placementAvailable: Schema.optional(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category models
 */
export interface HelloResponse extends Schema.Schema.Type<typeof HelloResponse> {}

/**
 * `LspError.LspError` as the wire carries it: the same errors and the same JSON (`_tag` the code's family),
 * but an error the union's own check throws on (a `_tag` it cannot read as a string, see `LspDecode`) is
 * refused like any other bad input, so that call fails alone instead of never being answered.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Failure: Schema.Schema<LspError.LspError, typeof LspError.LspError.Encoded> = Schema.declare(
  [LspError.LspError],
  {
    decode: (error) => {
      const decode = LspDecode.decodeUnknownEither(error)
      return (value, options) => Either.mapLeft(decode(value, options), (failure) => failure.issue)
    },
    encode: (error) => ParseResult.encodeUnknown(error)
  },
  { identifier: "LspError", description: "an LspError", arbitrary: (error) => error }
)

/**
 * The handshake: version, configuration fingerprint and process of the host.
 *
 * @since 0.1.0
 * @category rpcs
 */
export class Hello extends Rpc.make("Hello", {
  payload: HelloRequest,
  success: HelloResponse,
  error: Failure
}) {}

/**
 * A Schema of `A` both ways (a wire Schema without transformation: the same values and JSON), checked by
 * `check` in place of Schema's own check.
 */
const checkedBy = <A>(
  check: (value: unknown, options: SchemaAST.ParseOptions) => Either.Either<A, ParseResult.ParseError>,
  annotations: Schema.Annotations.Schema<A, readonly []>
): Schema.Schema<A> => {
  const parse = (value: unknown, options: SchemaAST.ParseOptions) =>
    Either.match(check(value, options), {
      onLeft: (error) => ParseResult.fail(error.issue),
      onRight: ParseResult.succeed
    })
  return Schema.declare([], { decode: () => parse, encode: () => parse }, annotations)
}

/**
 * `LspResult.LspQueryResult` as the wire carries it: the same values, the same errors, and the same JSON
 * both ways (the schema has no transformation), but checked by `LspResultCheck.validate`, which reads a
 * plain locations answer without the schema. Encoded by the host and decoded by the client, a list of 500
 * references cost ~4 ms through the schema itself.
 *
 * @since 0.1.0
 * @category schemas
 */
export const QueryResult: Schema.Schema<LspResult.LspQueryResult> = checkedBy(LspResultCheck.validate, {
  identifier: "LspQueryResult",
  description: "an LspQueryResult",
  arbitrary: () => () => Arbitrary.make(LspResult.LspQueryResult)
})

/**
 * `LspQuery.LspQueryRequest` as the wire carries it: the same values, errors and JSON (the schema has no
 * transformation), checked with `LspDecode`. The RPC server decodes a payload with Schema while it
 * dispatches, and a payload Schema's own check throws on (see `LspDecode`) left the call unanswered.
 *
 * @since 0.1.0
 * @category schemas
 */
export const QueryRequest: Schema.Schema<LspQuery.LspQueryRequest> = checkedBy(
  LspDecode.decodeUnknownEither(LspQuery.LspQueryRequest),
  {
    identifier: "LspQueryRequest",
    description: "an LspQueryRequest",
    arbitrary: () => () => Arbitrary.make(LspQuery.LspQueryRequest)
  }
)

/**
 * One seam query: every operation of `LspQueryRequest`, answered with an `LspQueryResult` or a coded
 * `LspError`, exactly as the host's `LspService.query` answers it.
 *
 * @since 0.1.0
 * @category rpcs
 */
export class Query extends Rpc.make("Query", {
  payload: QueryRequest,
  success: QueryResult,
  error: Failure
}) {}

/**
 * The host's read-only status view. Fails with `LSP_UNSUPPORTED_OPERATION` on a host that has none.
 *
 * @since 0.1.0
 * @category rpcs
 */
export class Status extends Rpc.make("Status", {
  success: Schema.Array(ServerStatus),
  error: Failure
}) {}

/**
 * The host's memory: its servers' total against the budget, its own, and the servers the budget stopped.
 * Call it only when `Hello` says `memoryAvailable`; fails with `LSP_UNSUPPORTED_OPERATION` on a host that
 * was given no memory view.
 *
 * @since 0.1.0
 * @category rpcs
 */
export class Memory extends Rpc.make("Memory", {
  success: MemoryStatus,
  error: Failure
}) {}

/**
 * A runner of a cluster as its front sees it: its address, its health (as the storage marks it, and whether it
 * answered the front's ping) and the workspaces it holds.
 *
 * @since 0.1.0
 * @category models
 */
export const ClusterRunner = Schema.Struct({
  address: Schema.String,
  healthy: Schema.Boolean,
  answering: Schema.Boolean,
  workspaces: Schema.Array(Schema.String)
})

/**
 * Where a cluster's workspaces live: its storage (without a password), its runners, and why it cannot answer,
 * when it cannot.
 *
 * @since 0.1.0
 * @category models
 */
export const ClusterPlacement = Schema.Struct({
  storage: Schema.String,
  runners: Schema.Array(ClusterRunner),
  outage: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ClusterPlacement = typeof ClusterPlacement.Type

/**
 * A cluster front's placement view, read from the cluster's storage and runners without starting any
 * workspace. Call it only when `Hello` says `placementAvailable`; fails with `LSP_UNSUPPORTED_OPERATION` on a
 * host that is not a cluster's front.
 *
 * @since 0.1.0
 * @category rpcs
 */
export class Placement extends Rpc.make("Placement", {
  success: ClusterPlacement,
  error: Failure
}) {}

/**
 * The whole contract.
 *
 * @since 0.1.0
 * @category groups
 */
export class LspRpcs extends RpcGroup.make(Hello, Query, Status, Memory, Placement) {}
