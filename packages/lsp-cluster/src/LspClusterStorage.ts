/**
 * Where a cluster keeps its runners, shard locks and messages: `sqlite:FILE` (every runner on one machine,
 * the embedded default for development and tests) or a `postgres://…` URL (runners on many machines). The
 * text comes from a command line or a configuration file, so it is decoded with a Schema before anything
 * is opened; the Postgres URL stays `Redacted` so its password is never printed.
 *
 * @since 0.1.0
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlError from "@effect/sql/SqlError"
import { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Path from "node:path"
import * as PgPool from "./internal/pgPool.js"
import * as SqliteFile from "./internal/sqliteFile.js"

/**
 * A SQLite database file, shared by every runner of the machine.
 *
 * @since 0.1.0
 * @category models
 */
export class Sqlite extends Schema.TaggedClass<Sqlite>("@lsp-seam/lsp-cluster/LspClusterStorage/Sqlite")("Sqlite", {
  /** An absolute path. */
  filename: Schema.String
}) {}

/**
 * A PostgreSQL database, reachable from every runner and client.
 *
 * @since 0.1.0
 * @category models
 */
export class Postgres
  extends Schema.TaggedClass<Postgres>("@lsp-seam/lsp-cluster/LspClusterStorage/Postgres")("Postgres", {
    url: Schema.Redacted(Schema.String)
  })
{}

/**
 * @since 0.1.0
 * @category models
 */
export type Storage = Sqlite | Postgres

const describeUrl = (text: string): string => {
  try {
    const url = new URL(text)
    if (url.password !== "") url.password = "***"
    return url.toString()
  } catch {
    return "(an invalid URL)"
  }
}

/**
 * The storage argument as written: `sqlite:FILE` (a path, made absolute against the working directory) or
 * `postgres://…` / `postgresql://…` (a URL with a host; a socket directory may be given as `?host=/dir`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const StorageFromString: Schema.Schema<Storage, string> = Schema.transformOrFail(
  Schema.String,
  Schema.Union(Sqlite, Postgres),
  {
    strict: true,
    decode: (text, _, ast) => {
      if (text.startsWith("sqlite:")) {
        const file = text.slice("sqlite:".length)
        return file.length === 0 || file.includes("\0")
          ? ParseResult.fail(new ParseResult.Type(ast, text, "sqlite: needs a file name, as in sqlite:cluster.db"))
          : ParseResult.succeed({ _tag: "Sqlite" as const, filename: Path.resolve(file) })
      }
      if (/^postgres(ql)?:\/\//.test(text)) {
        let url: URL | undefined
        try {
          url = new URL(text)
        } catch {
          url = undefined
        }
        return url === undefined || (url.hostname === "" && url.searchParams.get("host") === null)
          ? ParseResult.fail(
            new ParseResult.Type(
              ast,
              describeUrl(text),
              "a postgres:// URL needs a host (or a socket directory: postgres:///database?host=/dir)"
            )
          )
          : ParseResult.succeed({ _tag: "Postgres" as const, url: text })
      }
      return ParseResult.fail(
        new ParseResult.Type(ast, text, "expected sqlite:FILE or a postgres://user@host:port/database URL")
      )
    },
    encode: (storage) => ParseResult.succeed(storage._tag === "Sqlite" ? `sqlite:${storage.filename}` : storage.url)
  }
)

/**
 * Decodes a storage argument, or says in one line what is wrong with it (a Postgres password is never
 * repeated).
 *
 * @since 0.1.0
 * @category constructors
 */
export const decodeEither = (text: string): Either.Either<Storage, string> =>
  Either.mapLeft(
    Schema.decodeEither(StorageFromString)(text),
    (error) => ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => issue.message).join("; ")
  )

/**
 * Decodes a storage argument; anything else is `LSP_INVALID_CONFIG`, naming what is expected (a Postgres
 * password is never repeated).
 *
 * @since 0.1.0
 * @category constructors
 */
export const decode = (text: string): Effect.Effect<Storage, LspError.LspConfigurationError> =>
  Either.match(decodeEither(text), {
    onLeft: (error) =>
      LspError.invalidConfig(
        `Invalid cluster storage: ${error}.`,
        { storage: text.startsWith("sqlite:") ? text : describeUrl(text) }
      ),
    onRight: Effect.succeed
  })

/**
 * How the storage is named in messages: the file, or the URL without its password.
 *
 * @since 0.1.0
 * @category utils
 */
export const describe = (storage: Storage): string =>
  storage._tag === "Sqlite" ? `sqlite:${storage.filename}` : describeUrl(Redacted.value(storage.url))

/**
 * The `SqlClient` of a storage. A database that cannot be opened is `LSP_REMOTE_UNAVAILABLE` (retry when it
 * is up). PostgreSQL clients run one query at a time, also when a statement's caller stopped waiting for it
 * (`internal/pgPool.ts`). A SQLite store is created 0600; one that another user may write (or its directory, or a side file)
 * is `LSP_INVALID_CONFIG` unless `allowWritableByOthers`, which warns.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  storage: Storage,
  options?: { readonly allowWritableByOthers?: boolean | undefined }
): Layer.Layer<SqlClient.SqlClient, LspError.LspConfigurationError | LspError.LspRemoteError> => {
  const unavailable = (cause: unknown) =>
    LspError.remoteUnavailable(
      `Cannot open the cluster storage ${describe(storage)}: ${
        cause instanceof Error ? cause.message : String(cause)
      }.`,
      { storage: describe(storage) }
    )
  return storage._tag === "Sqlite"
    ? Layer.unwrapEffect(Effect.as(
      SqliteFile.prepare(storage.filename, { allowWritableByOthers: options?.allowWritableByOthers === true }),
      Layer.catchAll(SqliteClient.layer({ filename: storage.filename }), (cause) => Layer.fail(unavailable(cause)))
    ))
    : Layer.catchAll(
      PgClient.layerFromPool({
        acquire: PgPool.make({ url: Redacted.value(storage.url), applicationName: "lsp-seam", connectTimeout: 5_000 })
          .pipe(
            Effect.mapError((cause) => new SqlError.SqlError({ cause, message: `cannot connect (${cause.message})` }))
          ),
        applicationName: "lsp-seam"
      }),
      (cause) => Layer.fail(unavailable(cause))
    )
}
