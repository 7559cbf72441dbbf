/**
 * What a cluster client sees of its cluster: the runners its storage lists, whether each answers, and the
 * workspaces each holds — or why the cluster cannot answer at all (its storage unreachable, no runner
 * registered, none answering). A query sent during an outage fails with `LSP_REMOTE_UNAVAILABLE` naming the
 * cause once it has waited `LspClusterClient.Options.unavailableAfter`, instead of waiting until its caller
 * gives up.
 *
 * @since 0.1.0
 */

/**
 * Why the cluster cannot answer.
 *
 * @since 0.1.0
 * @category models
 */
export type Outage =
  | { readonly _tag: "StorageUnreachable"; readonly storage: string; readonly detail: string }
  | { readonly _tag: "NoRunner"; readonly storage: string }
  | { readonly _tag: "NoRunnerAnswering"; readonly storage: string; readonly runners: ReadonlyArray<string> }

/**
 * A runner as the storage lists it.
 *
 * @since 0.1.0
 * @category models
 */
export interface RunnerView {
  /** `host:port`, as the runner announces itself. */
  readonly address: string
  /** As the storage marks it (the runners' own health checks; the last runner is never marked unhealthy). */
  readonly healthy: boolean
  /** Whether it admitted a connection with this client's token and TLS setting and answered a ping. */
  readonly answering: boolean
}

/**
 * The client's last look at its cluster: the runners, or the outage and when it began (epoch milliseconds).
 *
 * @since 0.1.0
 * @category models
 */
export type Health =
  | { readonly _tag: "Available"; readonly runners: ReadonlyArray<RunnerView> }
  | { readonly _tag: "Unavailable"; readonly outage: Outage; readonly since: number }

/**
 * The cause in a few words, as messages and logs name it: `storage unreachable at ADDRESS (…)`,
 * `no runner registered in STORAGE`, `no runner answering (registered: …)`.
 *
 * @since 0.1.0
 * @category utils
 */
export const describeOutage = (outage: Outage): string => {
  switch (outage._tag) {
    case "StorageUnreachable":
      return `storage unreachable at ${outage.storage} (${outage.detail})`
    case "NoRunner":
      return `no runner registered in ${outage.storage}`
    case "NoRunnerAnswering":
      return `no runner answering (registered: ${outage.runners.join(", ")})`
  }
}

/**
 * A runner and the workspaces it holds (their entities alive on it), as the runners record them in the storage.
 *
 * @since 0.1.0
 * @category models
 */
export interface RunnerPlacement extends RunnerView {
  /** Workspace roots (entity ids), sorted. A runner killed without warning keeps its rows until it starts again. */
  readonly workspaces: ReadonlyArray<string>
}

/**
 * Where the cluster's workspaces live: every runner the storage lists, its health and its workspaces; and,
 * when the cluster cannot answer, why.
 *
 * @since 0.1.0
 * @category models
 */
export interface Placement {
  /** The storage, as messages name it (a PostgreSQL URL without its password). */
  readonly storage: string
  readonly runners: ReadonlyArray<RunnerPlacement>
  /** `describeOutage` of the outage, when there is one. */
  readonly outage: string | undefined
}
