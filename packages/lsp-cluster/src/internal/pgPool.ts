/**
 * The PostgreSQL pool of a cluster's storage, whose clients run one query at a time. @effect/sql-pg ends a
 * statement whose fiber is interrupted (every deadline of @effect/cluster's storage calls, the shard-lock
 * operations' above all) by asking the server to cancel it and giving its client back, reserved or to the pool,
 * while pg still runs the query: a server that stalls answers neither. The next statement on that client was
 * then queued behind it inside pg, which warns that this is deprecated (an error from pg 9 on). Here each client
 * keeps its own queue, outside pg's: a query is handed to pg only once the previous one is finished, as pg's
 * `drain` event says (the server has answered and nothing waits in pg), or the connection is gone.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { createRequire } from "node:module"

/** What is used of a pg `Client`: its query, and the events that end one. */
interface Client {
  query(...args: Array<unknown>): unknown
  on(event: "drain" | "end" | "error", listener: () => void): unknown
}

/** What is used of a pg `Pool`. */
export interface Pool {
  query(text: string): Promise<unknown>
  on(event: "error", listener: () => void): unknown
  end(): Promise<void>
}

interface Pg {
  readonly Client: new(config?: unknown) => Client
  readonly Pool: new(config: Record<string, unknown>) => Pool
}

// The pg that @effect/sql-pg itself loads, so the clients are the ones it drives.
const loadPg = (): Pg => {
  const sqlPg = createRequire(import.meta.url).resolve("@effect/sql-pg/PgClient")
  return createRequire(sqlPg)("pg") as Pg
}

const isSubmittable = (u: unknown): boolean =>
  typeof u === "object" && u !== null && typeof Reflect.get(u, "submit") === "function"

/** `Base` whose `query` hands pg one query at a time; the others wait in order. */
const serialClient = (Base: Pg["Client"]): Pg["Client"] =>
  class SerialClient extends Base {
    #busy = false
    #gone = false
    readonly #waiting: Array<() => void> = []

    constructor(config?: unknown) {
      super(config)
      const next = () => {
        this.#busy = false
        this.#waiting.shift()?.()
      }
      this.on("drain", next)
      // A lost connection answers nothing more: pg fails what it holds, and every later query at once.
      const gone = () => {
        this.#gone = true
        this.#busy = false
        for (const run of this.#waiting.splice(0)) run()
      }
      this.on("end", gone)
      this.on("error", gone)
    }

    #run(args: Array<unknown>): unknown {
      if (!this.#gone) this.#busy = true
      try {
        return super.query(...args)
      } catch (error) {
        this.#busy = false
        throw error
      }
    }

    override query(...args: Array<unknown>): unknown {
      if (!this.#busy) return this.#run(args)
      const last = args.at(-1)
      if (isSubmittable(args[0])) {
        // A cursor: pg returns it and reports through it.
        this.#waiting.push(() => this.#run(args))
        return args[0]
      }
      if (typeof last === "function") {
        this.#waiting.push(() => {
          try {
            this.#run(args)
          } catch (error) {
            last(error)
          }
        })
        return undefined
      }
      return new Promise((resolve, reject) => {
        this.#waiting.push(() => {
          try {
            Promise.resolve(this.#run(args)).then(resolve, reject)
          } catch (error) {
            reject(error)
          }
        })
      })
    }
  }

/**
 * A pool on `url` whose clients run one query at a time, checked with a first query (`connectTimeout`) and ended
 * with the scope, as @effect/sql-pg's own `PgClient.layer` makes it.
 */
export const make = (options: {
  readonly url: string
  readonly applicationName: string
  readonly connectTimeout: number
}): Effect.Effect<Pool, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const pg = loadPg()
    const pool = new pg.Pool({
      connectionString: options.url,
      application_name: options.applicationName,
      Client: serialClient(pg.Client)
    })
    // An idle client's error is reported to its next user; the pool must not crash the process meanwhile.
    pool.on("error", () => {})
    yield* Effect.addFinalizer(() =>
      Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
    )
    yield* Effect.tryPromise({
      try: () => pool.query("SELECT 1"),
      catch: (cause) => cause instanceof Error ? cause : new Error(String(cause))
    }).pipe(
      Effect.timeoutFail({
        duration: options.connectTimeout,
        onTimeout: () => new Error("the connection timed out")
      })
    )
    return pool
  })
