/**
 * Whether a cluster can answer at all, watched from a client: its storage read within a bound, at least one
 * runner registered, and one of them admitting a connection. @effect/cluster itself keeps retrying a message
 * whose shard has no reachable runner, and never marks the last runner unhealthy, so without this watch a query
 * sent during an outage waits until its caller gives up, and nothing says why.
 */
import * as RunnerStorage from "@effect/cluster/RunnerStorage"
import type * as SqlClient from "@effect/sql/SqlClient"
import { LspError } from "@lsp-seam/lsp"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as LspClusterHealth from "../LspClusterHealth.js"
import * as Placement from "./placement.js"
import * as Transport from "./transport.js"

/** How often the client looks, and how long one look may take. */
export const checkInterval = Duration.seconds(1)
const checkTimeout = Duration.seconds(2)

/** The default time a query may spend inside an outage before it fails. */
export const defaultUnavailableAfter: Duration.Duration = Duration.seconds(10)

const describeCause = (cause: unknown): string => {
  const inner = typeof cause === "object" && cause !== null && "cause" in cause ? cause.cause : cause
  return inner instanceof Error ? inner.message : String(inner)
}

/** One look: the runners the storage lists and whether each answers, and why the cluster cannot answer, if so. */
interface Look {
  readonly runners: ReadonlyArray<LspClusterHealth.RunnerView>
  readonly outage: LspClusterHealth.Outage | undefined
}

/** Takes a look at the cluster: its storage read within a bound, then every listed runner probed at once. */
export const look = (
  storage: string,
  security: Transport.Security
): Effect.Effect<Look, never, RunnerStorage.RunnerStorage> =>
  Effect.gen(function*() {
    const runnerStorage = yield* RunnerStorage.RunnerStorage
    const listed = yield* runnerStorage.getRunners.pipe(
      Effect.timeoutFail({
        duration: checkTimeout,
        onTimeout: () => new Error(`no answer within ${Duration.format(checkTimeout)}`)
      }),
      Effect.either
    )
    if (listed._tag === "Left") {
      return { runners: [], outage: { _tag: "StorageUnreachable", storage, detail: describeCause(listed.left) } }
    }
    if (listed.right.length === 0) return { runners: [], outage: { _tag: "NoRunner", storage } }
    const runners = yield* Effect.forEach(listed.right, ([runner, healthy]) =>
      Effect.map(Transport.probe(runner.address, security, checkTimeout), (verdict): LspClusterHealth.RunnerView => ({
        address: `${runner.address.host}:${runner.address.port}`,
        healthy,
        answering: verdict === "admitted"
      })), { concurrency: 8 })
    return {
      runners,
      outage: runners.some((runner) =>
          runner.answering
        )
        ? undefined
        : {
          _tag: "NoRunnerAnswering",
          storage,
          runners: runners.map((runner) =>
            runner.address
          )
        }
    }
  })

/** The next state after a look: an outage of the same kind keeps the time it began. */
const next = (previous: LspClusterHealth.Health, seen: Look, now: number): LspClusterHealth.Health =>
  seen.outage === undefined
    ? { _tag: "Available", runners: seen.runners }
    : {
      _tag: "Unavailable",
      outage: seen.outage,
      since: previous._tag === "Unavailable" && previous.outage._tag === seen.outage._tag ? previous.since : now
    }

/**
 * The placement view: a fresh look at the runners, with the workspaces each holds as the storage records them
 * (`placement.ts`). Reads only: no entity is sent anything, so no workspace starts.
 */
export const placement = (
  storage: string,
  security: Transport.Security
): Effect.Effect<LspClusterHealth.Placement, never, RunnerStorage.RunnerStorage | SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const seen = yield* look(storage, security)
    const held = seen.outage?._tag === "StorageUnreachable"
      ? new Map<string, ReadonlyArray<string>>()
      : yield* Effect.orElseSucceed(Placement.read, () => new Map<string, ReadonlyArray<string>>())
    return {
      storage,
      runners: seen.runners.map((runner) => ({ ...runner, workspaces: held.get(runner.address) ?? [] })),
      outage: seen.outage === undefined ? undefined : LspClusterHealth.describeOutage(seen.outage)
    }
  })

/**
 * Watches the cluster in the background (ended with the scope): the first look is taken before this returns,
 * so a client knows at once whether it can answer.
 */
export const watch = (
  storage: string,
  security: Transport.Security
): Effect.Effect<
  SubscriptionRef.SubscriptionRef<LspClusterHealth.Health>,
  never,
  RunnerStorage.RunnerStorage | Scope.Scope
> =>
  Effect.gen(function*() {
    const first = yield* look(storage, security)
    const ref = yield* SubscriptionRef.make(
      next({ _tag: "Available", runners: [] }, first, yield* Clock.currentTimeMillis)
    )
    yield* look(storage, security).pipe(
      Effect.flatMap((seen) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          SubscriptionRef.update(ref, (previous) => next(previous, seen, now)))
      ),
      Effect.delay(checkInterval),
      Effect.forever,
      Effect.forkScoped
    )
    return ref
  })

/**
 * Fails once the query has spent `after` inside an outage (counted from the later of its own start and the
 * outage's); never fails while the cluster is available. Raced against the query, which goes on meanwhile: a
 * cluster that comes back within the bound answers it.
 */
export const failWhenUnavailable = (
  health: SubscriptionRef.SubscriptionRef<LspClusterHealth.Health>,
  after: Duration.Duration,
  workspaceRoot: string
): Effect.Effect<never, LspError.LspRemoteError> =>
  Effect.flatMap(Clock.currentTimeMillis, (started) =>
    health.changes.pipe(
      Stream.flatMap((state) =>
        state._tag === "Available"
          ? Stream.never
          : Stream.fromEffect(Effect.as(
            Effect.flatMap(
              Clock.currentTimeMillis,
              (now) => Effect.sleep(Math.max(0, Math.max(started, state.since) + Duration.toMillis(after) - now))
            ),
            state.outage
          )), { switch: true }),
      Stream.runHead,
      Effect.flatMap(Option.match({
        onNone: () => Effect.never,
        onSome: (outage) =>
          LspError.remoteUnavailable(
            `The lsp-seam cluster cannot answer for the workspace ${JSON.stringify(workspaceRoot)}: ` +
              `${LspClusterHealth.describeOutage(outage)}, for ${
                Duration.format(after)
              }. Retry once it is back: no restart is needed.`,
            { workspaceRoot, cluster: outage._tag, cause: LspClusterHealth.describeOutage(outage), retriable: true }
          )
      }))
    ))
