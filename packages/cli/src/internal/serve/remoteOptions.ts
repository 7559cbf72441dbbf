/**
 * The command-line options of the remote host and its clients (`serve`, and `--remote` on `query`, `mcp` and
 * `doctor`), and how a command picks its `LspService`: the local stdio host, or the host `--remote` names.
 */
import * as Options from "@effect/cli/Options"
import type { LspError, LspService } from "@lsp-seam/lsp"
import { LspDaemon, LspRemoteConnection, LspRemoteTarget } from "@lsp-seam/setup/remote"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { UsageError } from "../command/errors.js"

export const remoteOption = Options.text("remote").pipe(
  Options.withDescription(
    "Ask a running host instead of starting servers: auto (the per-user daemon of this configuration, started " +
      "when none runs), a socket path, or http://HOST:PORT / ws://HOST:PORT, or https://HOST:PORT / " +
      `wss://HOST:PORT for a host serving TLS (with --token-file or ${LspRemoteTarget.tokenVariable}; ` +
      "--ca-file for a private CA)."
  ),
  Options.optional
)

export const tokenFileOption = Options.text("token-file").pipe(
  Options.withDescription(
    `The bearer token's file (mode 0600). serve writes a new one when it does not exist; clients read it ` +
      `(else ${LspRemoteTarget.tokenVariable}).`
  ),
  Options.optional
)

export const caFileOption = Options.text("ca-file").pipe(
  Options.withDescription(
    "PEM certificates to trust for a wss:// or https:// host instead of the system's (a private CA)."
  ),
  Options.optional
)

export const tlsCertOption = Options.text("tls-cert").pipe(
  Options.withDescription("With --listen: serve https/wss with this PEM certificate chain (and --tls-key)."),
  Options.optional
)

export const tlsKeyOption = Options.text("tls-key").pipe(
  Options.withDescription("With --listen: the PEM private key of --tls-cert."),
  Options.optional
)

export const allowPlaintextOption = Options.boolean("allow-plaintext").pipe(
  Options.withDescription(
    "With --listen on an address other machines can reach: serve without TLS anyway (token and answers in clear)."
  )
)

export const allowWritableStorageOption = Options.boolean("allow-writable-storage").pipe(
  Options.withDescription(
    "Accept a sqlite: cluster store (or its directory) that other users may write; warns (they could redirect " +
      "the cluster's traffic)."
  )
)

export const handshakeTimeoutOption = Options.text("handshake-timeout").pipe(
  Options.withDescription(
    "With --listen: how long a connection may take to complete its upgrade and token check before it is " +
      "closed (default 10s), and how long an accepted one may stall in the middle of a frame."
  ),
  Options.optional
)

export const maxPendingConnectionsOption = Options.integer("max-pending-connections").pipe(
  Options.withDescription(
    "With --listen: how many connections may be completing their upgrade at once (default 64); one more " +
      "closes the one waiting longest."
  ),
  Options.optional
)

export const maxConnectionsOption = Options.integer("max-connections").pipe(
  Options.withDescription(
    "With --listen: how many connections with the token may be open at once (default 128); one more is refused " +
      "(its client reports LSP_REMOTE_UNAVAILABLE)."
  ),
  Options.optional
)

export const maxClientQueriesOption = Options.integer("max-client-queries").pipe(
  Options.withDescription(
    "How many queries one connection may have running at once (default 8); its further queries wait."
  ),
  Options.optional
)

export const maxClientRequestsOption = Options.integer("max-client-requests").pipe(
  Options.withDescription(
    "How many requests of any kind (queries, status, memory) one connection may have unanswered (default 32); " +
      "later ones wait, and while as many wait the host stops reading that connection."
  ),
  Options.optional
)

export const socketOption = Options.text("socket").pipe(
  Options.withDescription("The Unix socket to listen on (default: the per-user socket)."),
  Options.optional
)

export const listenOption = Options.text("listen").pipe(
  Options.withDescription("HOST:PORT to serve WebSocket RPC on (port 0 picks one); needs a token."),
  Options.optional
)

export const rootOption = Options.text("root").pipe(
  Options.withDescription(
    "A directory this host serves (repeatable): a query whose workspace, after resolving .. and symbolic links, " +
      "is not inside one is refused (LSP_REMOTE_FORBIDDEN). Default: with --listen, the directory serve starts " +
      "in; with a socket, every workspace."
  ),
  Options.repeated
)

export const idleExitOption = Options.text("idle-exit").pipe(
  Options.withDescription("Stop once no query has run for this long: 30s, 10m, 1h (or e.g. \"10 minutes\")."),
  Options.optional
)

export const noPrewarmOption = Options.boolean("no-prewarm").pipe(
  Options.withDescription("Do not start the servers of a workspace's languages when the workspace is first seen.")
)

/** `--remote`'s value, or the usage error it is. */
export const parseRemote = (
  remote: Option.Option<string>
): Effect.Effect<Option.Option<LspRemoteTarget.Remote>, UsageError> =>
  Option.match(remote, {
    onNone: () => Effect.succeed(Option.none()),
    onSome: (text) =>
      Either.match(LspRemoteTarget.parse(text), {
        onLeft: (message) => Effect.fail(new UsageError({ message })),
        onRight: (parsed) => Effect.succeed(Option.some(parsed))
      })
  })

/**
 * The `LspService` of a command: `local()` without `--remote`, else the remote host's (for `auto`, the daemon
 * of the configuration `--config`/`lsp-seam.json`/presets resolves to for `workspace`).
 */
export const serviceLayer = <E, R>(
  args: {
    readonly remote: Option.Option<string>
    readonly tokenFile: Option.Option<string>
    readonly caFile: Option.Option<string>
    readonly config: Option.Option<string>
  },
  workspace: string,
  local: () => Layer.Layer<LspService.LspService, E, R>
): Effect.Effect<Layer.Layer<LspService.LspService, E | LspError.LspError, R>, UsageError> =>
  Effect.map(parseRemote(args.remote), (remote) =>
    Option.match(remote, {
      onNone: local,
      onSome: (target) => LspRemoteConnection.layer(target, clientOptions(args, workspace))
    }))

/** What a client needs besides `--remote`: its token file and, for `auto`, the configuration it resolves to. */
export const clientOptions = (
  args: {
    readonly tokenFile: Option.Option<string>
    readonly caFile: Option.Option<string>
    readonly config: Option.Option<string>
  },
  workspace: string
): LspRemoteConnection.LayerOptions => ({
  tokenFile: Option.getOrUndefined(args.tokenFile),
  caFile: Option.getOrUndefined(args.caFile),
  source: LspDaemon.resolveSource({ configFile: Option.getOrUndefined(args.config), workingDirectory: workspace })
})
