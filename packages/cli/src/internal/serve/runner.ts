/**
 * `lsp-seam runner`: joins an lsp-seam cluster (`@lsp-seam/lsp-cluster`) and hosts the workspace entities the
 * cluster places on it, each answered by a stdio host of the configuration `serve` would load.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type { LspError } from "@lsp-seam/lsp"
import { LspClusterRunner, LspClusterStorage } from "@lsp-seam/lsp-cluster"
import { LspRemoteAddress } from "@lsp-seam/lsp-remote"
import { LspConfigFile } from "@lsp-seam/setup"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as NodePath from "node:path"
import { type CliIO, stderr } from "../command/cliIO.js"
import { UsageError } from "../command/errors.js"
import * as IdleExit from "./idleExit.js"
import { allowPlaintextOption } from "./remoteOptions.js"
import { parseListen, readPem, serverToken, tlsOf } from "./serve.js"

/** The port @effect/cluster's runners use by default. */
const defaultListen = "127.0.0.1:34431"

const storageOption = Options.text("storage").pipe(
  Options.withDescription(
    "The cluster's storage, shared by its runners and clients: sqlite:FILE (every runner on this machine) or " +
      "postgres://user@host:port/database."
  )
)

const runnerListenOption = Options.text("listen").pipe(
  Options.withDescription(
    `HOST:PORT this runner listens on for the other runners and the clients (default ${defaultListen}); ` +
      "every runner of a machine needs its own port."
  ),
  Options.withDefault(defaultListen)
)

const runnerRootOption = Options.text("root").pipe(
  Options.withDescription(
    "A directory this runner serves (repeatable): a workspace or file outside it is refused " +
      "(LSP_REMOTE_FORBIDDEN). Default: the directory the runner starts in."
  ),
  Options.repeated
)

const advertiseOption = Options.text("advertise").pipe(
  Options.withDescription(
    "The host name or address the other runners and the clients reach this runner at (default: --listen's " +
      "host; give it when listening on 0.0.0.0 or ::)."
  ),
  Options.optional
)

const runnerTokenFileOption = Options.text("token-file").pipe(
  Options.withDescription(
    "The cluster's token file (mode 0600), the same on every runner and client (serve --cluster-token-file); " +
      "a new one is written when it does not exist. Required with a --listen address other machines can reach."
  ),
  Options.optional
)

const runnerTlsCertOption = Options.text("tls-cert").pipe(
  Options.withDescription(
    "Serve the other runners and the clients over TLS with this PEM certificate chain (and --tls-key), and " +
      "reach the other runners over TLS."
  ),
  Options.optional
)

const runnerTlsKeyOption = Options.text("tls-key").pipe(
  Options.withDescription("The PEM private key of --tls-cert."),
  Options.optional
)

const runnerCaFileOption = Options.text("ca-file").pipe(
  Options.withDescription(
    "With --tls-cert: PEM certificates to trust for the other runners instead of the system's (a private CA)."
  ),
  Options.optional
)

const idleOption = Options.text("idle").pipe(
  Options.withDescription(
    "How long a workspace may go without a query before the cluster passivates it and its language servers stop " +
      "(default 10m)."
  ),
  Options.optional
)

const configOption = Options.file("config").pipe(
  Options.withDescription(
    `A configuration file (default: ${LspConfigFile.fileName} in the current directory, else the presets).`
  ),
  Options.optional
)

export const runner = Command.make(
  "runner",
  {
    storage: storageOption,
    listen: runnerListenOption,
    root: runnerRootOption,
    idle: idleOption,
    advertise: advertiseOption,
    tokenFile: runnerTokenFileOption,
    tlsCert: runnerTlsCertOption,
    tlsKey: runnerTlsKeyOption,
    caFile: runnerCaFileOption,
    allowPlaintext: allowPlaintextOption,
    config: configOption
  },
  (args): Effect.Effect<
    void,
    LspError.LspError | UsageError,
    FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor | CliIO
  > =>
    Effect.gen(function*() {
      const listen = yield* Either.match(parseListen(args.listen), {
        onLeft: (message) => Effect.fail(new UsageError({ message })),
        onRight: Effect.succeed
      })
      if (listen.port === 0) {
        return yield* new UsageError({ message: "--listen: a runner needs a fixed port, which other runners dial." })
      }
      const tls = yield* tlsOf(listen, args)
      if (tls === undefined && Option.isSome(args.caFile)) {
        return yield* new UsageError({ message: "--ca-file goes with --tls-cert FILE --tls-key FILE." })
      }
      const ca = Option.isSome(args.caFile) ? yield* readPem("--ca-file", args.caFile.value) : undefined
      if (Option.isNone(args.tokenFile) && !LspRemoteAddress.isLoopback(listen.host)) {
        return yield* new UsageError({
          message: `--listen ${listen.host}:${listen.port} can be reached from other machines: give the cluster a ` +
            "token (--token-file FILE, the same on every runner and client)."
        })
      }
      // Loopback without a token stays possible for a development cluster (docs/security.md says what it risks).
      const token = Option.isSome(args.tokenFile) ? yield* serverToken(args.tokenFile, "runner") : undefined
      const storage = yield* Either.match(storageOf(args.storage), {
        onLeft: (message) => Effect.fail(new UsageError({ message })),
        onRight: Effect.succeed
      })
      const maxIdleTime = yield* Option.match(args.idle, {
        onNone: () => Effect.succeed(undefined),
        onSome: (text) =>
          Either.match(IdleExit.parseDuration(text), {
            onLeft: (message) => Effect.fail(new UsageError({ message: `--idle: ${message}` })),
            onRight: Effect.succeed
          })
      })
      const workingDirectory = process.cwd()
      const roots = args.root.length > 0 ? args.root.map((root) => NodePath.resolve(root)) : [workingDirectory]
      const configFile = Option.getOrUndefined(args.config)
      // It serves many workspaces: none of their node_modules/.bin may choose its servers.
      const loaded = yield* LspConfigFile.load({ configFile, workingDirectory, projectExecutables: false })
      yield* Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(LspClusterRunner.layer({
          storage,
          host: listen.host,
          port: listen.port,
          advertiseHost: Option.getOrUndefined(args.advertise),
          token,
          tls: tls === undefined ? undefined : { ...tls, ca },
          roots,
          config: loaded.input,
          maxIdleTime,
          allowPlaintext: args.allowPlaintext
        }))
        const joined = Context.get(context, LspClusterRunner.LspClusterRunner)
        if (tls === undefined && args.allowPlaintext) {
          yield* stderr(
            `lsp-seam runner: WARNING: --allow-plaintext: ${listen.host}:${listen.port} serves without TLS; the ` +
              "token and every answer are unencrypted and anyone on the network path can read or replay them\n"
          )
        }
        yield* stderr(
          `lsp-seam runner: joined the cluster at ${LspClusterStorage.describe(storage)} as ` +
            `${joined.address.host}:${joined.address.port} (pid ${process.pid}, servers: ` +
            `${Object.keys(loaded.config.servers).join(", ")})\n` +
            `lsp-seam runner: serving the roots ${(joined.roots ?? roots).join(", ")}\n` +
            `lsp-seam runner: ${tls === undefined ? "no TLS" : "TLS"}, ${
              token === undefined ? "no token (loopback only)" : "token required"
            }\n`
        )
        return yield* Effect.never
      }))
    })
).pipe(
  Command.withDescription(
    "Join an lsp-seam cluster (shared sqlite: or postgres:// storage) and answer the workspaces it places here."
  )
)

/** The storage argument, decoded by its Schema; a usage error names what is expected. */
const storageOf = (text: string): Either.Either<LspClusterStorage.Storage, string> =>
  Either.mapLeft(LspClusterStorage.decodeEither(text), (error) => `--storage: ${error}`)
