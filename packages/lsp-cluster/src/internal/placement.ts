/**
 * Which runner holds which workspace, kept in the cluster's storage: each runner adds a row when one of its
 * workspace entities starts and removes it when the entity stops (passivated, moved, the runner stopping), and
 * clears its own rows when it starts (a killed runner leaves its rows until then). @effect/cluster records shards
 * but not the entities alive on a runner (and on PostgreSQL not even the shards' owners, which are advisory
 * locks), so without this a client could only find where a workspace lives by activating it. Reading the table
 * starts nothing. A storage that cannot be written does not stop an entity: the view is a report, not a lock.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

const table = "lsp_seam_placement"

/** Creates the table when it is missing (the same SQL on SQLite and PostgreSQL). */
const ensureTable = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`CREATE TABLE IF NOT EXISTS ${sql(table)} (
    runner VARCHAR(255) NOT NULL,
    workspace TEXT NOT NULL,
    since BIGINT NOT NULL,
    PRIMARY KEY (runner, workspace)
  )`)

/** A runner's start: the table exists, and rows its previous life left are gone. */
export const clear = (runner: string): Effect.Effect<void, never, SqlClient.SqlClient> =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => Effect.zipRight(ensureTable, sql`DELETE FROM ${sql(table)} WHERE runner = ${runner}`)
  ).pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("could not clear this runner's placement rows", cause))
  )

/** Records that `runner` holds `workspace` for as long as the scope is open. */
export const hold = (
  runner: string,
  workspace: string
): Effect.Effect<void, never, SqlClient.SqlClient | Scope.Scope> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.acquireRelease(
      sql`INSERT INTO ${sql(table)} (runner, workspace, since) VALUES (${runner}, ${workspace}, ${Date.now()})
        ON CONFLICT (runner, workspace) DO UPDATE SET since = excluded.since`.pipe(
        Effect.catchAllCause((cause) => Effect.logWarning(`could not record ${workspace} as placed here`, cause))
      ),
      () =>
        sql`DELETE FROM ${sql(table)} WHERE runner = ${runner} AND workspace = ${workspace}`.pipe(
          Effect.catchAllCause((cause) => Effect.logWarning(`could not record ${workspace} as gone from here`, cause))
        )
    ))

/** Every row: runner address → the workspaces it holds, sorted. */
export const read: Effect.Effect<
  ReadonlyMap<string, ReadonlyArray<string>>,
  SqlError.SqlError,
  SqlClient.SqlClient
> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* ensureTable
  const rows = yield* sql<{ readonly runner: unknown; readonly workspace: unknown }>`
    SELECT runner, workspace FROM ${sql(table)} ORDER BY runner, workspace`
  const held = new Map<string, Array<string>>()
  for (const row of rows) {
    if (typeof row.runner !== "string" || typeof row.workspace !== "string") continue
    const list = held.get(row.runner) ?? []
    list.push(row.workspace)
    held.set(row.runner, list)
  }
  return held
})
