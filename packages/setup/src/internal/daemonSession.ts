/**
 * `--remote auto` for as long as a command runs (an MCP session, an embedding `LspSeam.layer`): the
 * connection to the per-user daemon, restarted when the daemon has gone. A call that finds the daemon
 * unreachable (`LSP_REMOTE_UNAVAILABLE`: it was killed, or exited idle while the session was quiet) makes sure
 * a daemon runs again — found or started, as on the first call, under the same lock — reconnects, and is
 * tried once more on the new connection. Queries are read-only, so the retry cannot do anything twice.
 */
import { LspError, LspService } from "@lsp-seam/lsp"
import type { LspRemoteClient } from "@lsp-seam/lsp-remote"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as SynchronizedRef from "effect/SynchronizedRef"
import * as Daemon from "./daemon.js"
import type * as DaemonIdentity from "./daemonIdentity.js"
import * as RemoteModules from "./remoteModules.js"

interface Connection {
  readonly client: LspRemoteClient.LspRemoteClientShape
  readonly scope: Scope.CloseableScope
}

const isUnavailable = (error: { readonly code: LspError.LspErrorCode }) => error.code === "LSP_REMOTE_UNAVAILABLE"

/**
 * The `LspService` (and `LspRemoteClient`) of the daemon for `source`. Building it finds or starts the daemon
 * and greets it, so a daemon of another version or configuration fails here, before any query.
 */
export const layer = (
  source: DaemonIdentity.ConfigSource,
  environment: NodeJS.ProcessEnv = process.env
): Layer.Layer<
  LspService.LspService | LspRemoteClient.LspRemoteClient,
  LspError.LspConfigurationError | LspError.LspRemoteError
> =>
  Layer.scopedContext(Effect.gen(function*() {
    const { Client } = yield* RemoteModules.load

    const connect: Effect.Effect<Connection, LspError.LspConfigurationError | LspError.LspRemoteError> = Effect.gen(
      function*() {
        const daemon = yield* Daemon.ensure(source, environment)
        const scope = yield* Scope.make()
        const client = yield* Client.make({
          transport: Client.socket(daemon.path),
          expect: { version: daemon.identity.version, fingerprint: daemon.identity.fingerprint }
        }).pipe(Scope.extend(scope), Effect.onError(() => Scope.close(scope, Exit.void)))
        return { client, scope }
      }
    )

    const current = yield* SynchronizedRef.make(yield* connect)
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(SynchronizedRef.get(current), (connection) => Scope.close(connection.scope, Exit.void))
    )

    // Several calls may fail on the same lost connection at once: the first replaces it, the others use
    // the replacement. A replacement that cannot be made leaves the old (closed) connection, so the next
    // call tries again.
    const replace = (failed: Connection) =>
      SynchronizedRef.updateAndGetEffect(current, (now) =>
        now !== failed
          ? Effect.succeed(now)
          : Effect.zipRight(Scope.close(failed.scope, Exit.void), connect))

    // A restart may fail to start the daemon (LspConfigurationError) or to reach it (LspRemoteError).
    type Restarted<A, E> = Effect.Effect<A, E | LspError.LspConfigurationError | LspError.LspRemoteError>
    const withRestart = <A, E extends LspError.LspError>(
      use: (client: LspRemoteClient.LspRemoteClientShape) => Effect.Effect<A, E>
    ): Restarted<A, E> =>
      Effect.flatMap(SynchronizedRef.get(current), (connection) => {
        const first: Restarted<A, E> = use(connection.client)
        return Effect.catchAll(first, (error): Restarted<A, E> =>
          isUnavailable(error)
            ? Effect.flatMap(replace(connection), (replacement) => use(replacement.client))
            : Effect.fail(error))
      })

    const first = yield* SynchronizedRef.get(current)
    const client: LspRemoteClient.LspRemoteClientShape = {
      address: first.client.address,
      query: (request) => withRestart((client) => client.query(request)),
      status: withRestart((client) => client.status),
      hello: withRestart((client) => client.hello)
    }
    const service: LspService.LspServiceShape = {
      registerProvider: (provider) =>
        LspError.invalidProvider(
          `Cannot register provider "${provider.id}": this LspService forwards every query to the lsp-seam ` +
            `daemon at ${client.address}. Register providers in the daemon's configuration instead.`,
          { providerId: provider.id }
        ),
      query: client.query
    }
    return Context.make(Client.LspRemoteClient, client).pipe(Context.add(LspService.LspService, service))
  }))
