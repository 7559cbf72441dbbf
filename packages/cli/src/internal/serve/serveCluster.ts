/**
 * `serve --cluster`'s host: the cluster client in place of language servers of this host, and a line on
 * stderr each time the cluster stops or starts being able to answer (its storage unreachable, no runner
 * registered or answering), so an outage is logged when it begins, not found out from a client's timeout.
 */
import * as Options from "@effect/cli/Options"
import { LspService } from "@lsp-seam/lsp"
import type { LspError } from "@lsp-seam/lsp"
import type { LspClusterStorage } from "@lsp-seam/lsp-cluster"
import { LspClusterClient, LspClusterHealth } from "@lsp-seam/lsp-cluster"
import type { LspRpc } from "@lsp-seam/lsp-remote"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { type CliIO, stderr } from "../command/cliIO.js"
import { UsageError } from "../command/errors.js"
import * as IdleExit from "./idleExit.js"

/**
 * `--cluster-unavailable-after DURATION`: how long a query may wait while the cluster cannot answer.
 */
export const unavailableAfterOption = Options.text("cluster-unavailable-after").pipe(
  Options.withDescription(
    "With --cluster: how long a query may wait while the cluster cannot answer (its storage unreachable, no " +
      "runner registered or answering) before it fails with LSP_REMOTE_UNAVAILABLE naming the cause " +
      "(default 10s; e.g. 5s, 1m)."
  ),
  Options.optional
)

/** The decoded `--cluster-unavailable-after`, refused without `--cluster`. */
export const unavailableAfter = (
  text: Option.Option<string>,
  cluster: boolean
): Effect.Effect<Duration.Duration | undefined, UsageError> =>
  Option.match(text, {
    onNone: () => Effect.succeed(undefined),
    onSome: (value) =>
      !cluster
        ? Effect.fail(new UsageError({ message: "--cluster-unavailable-after goes with --cluster STORAGE." }))
        : Either.match(IdleExit.parseDuration(value), {
          onLeft: (message) => Effect.fail(new UsageError({ message: `--cluster-unavailable-after: ${message}` })),
          onRight: Effect.succeed
        })
  })

/** What the health says, as one stderr line; the same line is not repeated while nothing changes. */
const healthLine = (health: LspClusterHealth.Health, after: Duration.Duration): string =>
  health._tag === "Available"
    ? `lsp-seam serve: the cluster answers (runners: ${
      health.runners.map((runner) => `${runner.address}${runner.answering ? "" : " (not answering)"}`).join(", ")
    })\n`
    : `lsp-seam serve: the cluster cannot answer: ${
      LspClusterHealth.describeOutage(health.outage)
    }; queries fail with LSP_REMOTE_UNAVAILABLE after ${Duration.format(after)}\n`

/** The availability only, so a line is written when it changes (not on every look). */
const availability = (health: LspClusterHealth.Health): string =>
  health._tag === "Available" ? "Available" : health.outage._tag

/**
 * The cluster client as `serve`'s host, its health logged on stderr from now on (until the scope closes).
 */
export const host = (options: {
  readonly storage: LspClusterStorage.Storage
  readonly token: Redacted.Redacted<string> | undefined
  readonly tls: { readonly ca: string | undefined } | undefined
  readonly unavailableAfter: Duration.Duration | undefined
  readonly allowWritableStorage: boolean
}): Effect.Effect<
  {
    readonly service: LspService.LspService["Type"]
    /** The placement view, as the front serves it (`Placement`, `doctor --remote`). */
    readonly placement: Effect.Effect<LspRpc.ClusterPlacement>
  },
  LspError.LspError,
  CliIO | Scope.Scope
> =>
  Effect.gen(function*() {
    const context = yield* Layer.build(LspClusterClient.layer(options))
    const client = Context.get(context, LspClusterClient.LspClusterClient)
    const after = options.unavailableAfter ?? LspClusterClient.defaultUnavailableAfter
    yield* client.healthChanges.pipe(
      Stream.changesWith((a, b) => availability(a) === availability(b)),
      Stream.runForEach((health) => stderr(healthLine(health, after))),
      Effect.forkScoped
    )
    const placement = Effect.map(client.placement, ({ outage, runners, storage }) =>
      outage === undefined ? { storage, runners } : { storage, runners, outage })
    return { service: Context.get(context, LspService.LspService), placement }
  })
