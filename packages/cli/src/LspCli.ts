/**
 * The `lsp-seam` command, built with `@effect/cli`:
 *
 * - `lsp-seam query <operation> <file>:<line>[:<character>] [--symbol NAME] [--cwd DIR] [--config FILE] [--json]`
 * - `lsp-seam query documentSymbol <file>`, `lsp-seam query workspaceSymbol <query> [--file FILE]` and
 *   `lsp-seam query diagnostics <file> [--severity S]` (same options)
 * - `--body` with goToDefinition, goToTypeDefinition, goToImplementation, documentSymbol and workspaceSymbol
 *   (each location's code); `lsp-seam query renamePreview <file>:<line>:<character> --new-name NAME` (the edits
 *   a rename would make, never written); `lsp-seam query impact <file>:<line>[:<character>] [--depth N]` (the
 *   symbol's uses by declaration, their callers up to N levels, the tests)
 * - `lsp-seam mcp [--cwd DIR] [--config FILE]`
 * - `lsp-seam doctor [--cwd DIR] [--config FILE]`
 * - `lsp-seam serve [--socket PATH | --listen HOST:PORT --token-file F] [--config FILE] [--idle-exit DURATION]`;
 *   `query`, `mcp` and `doctor` take `--remote auto|PATH|URL [--token-file F]` to use a running host
 * - `lsp-seam runner --storage <sqlite:FILE | postgres://…> [--listen HOST:PORT] [--root DIR] [--token-file F]
 *   [--tls-cert FILE --tls-key FILE [--ca-file FILE]]` joins a cluster; `lsp-seam serve --cluster <storage>
 *   [--cluster-token-file F] [--cluster-ca-file FILE]` serves the cluster's answers to clients as a host
 *
 * `run` parses the arguments, runs the command and returns the exit code: 0 success (also when nothing was
 * found), 1 an `LspError` (printed as `error[CODE]: message` on stderr) or an unusable server in `doctor`,
 * 2 a usage error. Only results are written to stdout.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import type * as CliApp from "@effect/cli/CliApp"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { LspError, LspExtension, LspService } from "@lsp-seam/lsp"
import { LspStdio } from "@lsp-seam/lsp-stdio"
import { LspConfigFile } from "@lsp-seam/setup"
import { LspMcp, LspMcpStdio, LspSession, LspToolHandler, LspToolInput } from "@lsp-seam/tool-lsp"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { CliIO } from "./internal/command/cliIO.js"
import { stderr, stdout } from "./internal/command/cliIO.js"
import { Unhealthy, UsageError } from "./internal/command/errors.js"
import { version } from "./internal/command/version.js"
import * as Doctor from "./internal/doctor/doctor.js"
import * as DoctorProbe from "./internal/doctor/doctorProbe.js"
import * as RemoteDoctor from "./internal/doctor/remoteDoctor.js"
import { queryArguments } from "./internal/query/location.js"
import { withProgress } from "./internal/query/progress.js"
import * as Prewarm from "./internal/serve/prewarm.js"
import * as RemoteOptions from "./internal/serve/remoteOptions.js"
import { runner } from "./internal/serve/runner.js"
import { serve } from "./internal/serve/serve.js"

/**
 * Everything the command needs from its environment: the platform (`NodeContext.layer`) and where to write.
 *
 * @since 0.1.0
 * @category models
 */
export type Environment =
  | CliApp.CliApp.Environment
  | FileSystem.FileSystem
  | Path.Path
  | CommandExecutor.CommandExecutor
  | CliIO

const cwd = Options.text("cwd").pipe(
  Options.withDescription("The workspace root (default: the current directory). Files are relative to it."),
  Options.optional
)

const config = Options.file("config").pipe(
  Options.withDescription(
    `A configuration file (default: ${LspConfigFile.fileName} in the workspace, else the presets).`
  ),
  Options.optional
)

const workspaceOf = (option: Option.Option<string>) =>
  Effect.map(Path.Path, (path) => path.resolve(Option.getOrElse(option, () => ".")))

const loadConfig = (configFile: Option.Option<string>, workingDirectory: string) =>
  LspConfigFile.load({ configFile: Option.getOrUndefined(configFile), workingDirectory })

const hostLayer = (loaded: LspConfigFile.Loaded) =>
  LspStdio.layer(loaded.input).pipe(Layer.provideMerge(LspService.layer))

/** The server that will answer for `file`, to name it in the progress line. */
const serverFor = (loaded: LspConfigFile.Loaded, file: string): Option.Option<string> => {
  const extension = LspExtension.finalExtension(file)
  return Option.fromNullable(
    Object.entries(loaded.config.servers).find(([, server]) =>
      Object.keys(server.extensionToLanguage).some((key) =>
        Either.getOrNull(LspExtension.normalizeExtensionKey(key)) === extension
      )
    )?.[0]
  )
}

const query = Command.make(
  "query",
  {
    operation: Args.choice(LspToolInput.allOperations.map((op) => [op, op] as const), { name: "operation" }),
    target: Args.text({ name: "target" }).pipe(
      Args.withDescription(
        "What to ask about: <file>:<line>[:<character>] for the operations at a position — a file (relative to " +
          "the workspace, or absolute), a one-based line and column (the column may be left out with --symbol); " +
          "the file itself for documentSymbol and diagnostics; the name to search for for workspaceSymbol."
      )
    ),
    symbol: Options.text("symbol").pipe(
      Options.withDescription("The identifier to query, found on or near the line, so the column is optional."),
      Options.optional
    ),
    file: Options.text("file").pipe(
      Options.withDescription("workspaceSymbol only: search just the language server of this file."),
      Options.optional
    ),
    // A choice, so a bad value is a usage error (exit 2) like any other bad option.
    severity: Options.choice("severity", ["error", "warning", "information", "hint"]).pipe(
      Options.withDescription(
        "diagnostics only: the least serious kind to include: error, warning (the default), information or hint."
      ),
      Options.optional
    ),
    body: Options.boolean("body").pipe(
      Options.withDescription(
        "goToDefinition, goToTypeDefinition, goToImplementation, documentSymbol and workspaceSymbol: show each " +
          "location's code (the whole declaration) below it."
      )
    ),
    newName: Options.text("new-name").pipe(
      Options.withDescription("renamePreview only: the new name. The edits are listed; nothing is written."),
      Options.optional
    ),
    // Text, judged by the tool as a position is: the command and the tool give one answer for one input.
    depth: Options.text("depth").pipe(
      Options.withDescription("impact only: how many levels of callers to follow (1 to 5, default 2)."),
      Options.optional
    ),
    cwd,
    config,
    remote: RemoteOptions.remoteOption,
    tokenFile: RemoteOptions.tokenFileOption,
    caFile: RemoteOptions.caFileOption,
    json: Options.boolean("json").pipe(
      Options.withDescription("Print the canonical result as JSON (zero-based positions) instead of the text.")
    )
  },
  (args) =>
    Effect.gen(function*() {
      const toolArguments = yield* queryArguments(args.operation, args.target, {
        symbol: Option.getOrUndefined(args.symbol),
        file: Option.getOrUndefined(args.file),
        severity: Option.getOrUndefined(args.severity),
        body: args.body,
        newName: Option.getOrUndefined(args.newName),
        depth: Option.getOrUndefined(args.depth)
      })
      const workspace = yield* workspaceOf(args.cwd)
      const loaded = yield* loadConfig(args.config, workspace)
      const run = LspToolHandler.runUnknown(toolArguments)
      const file = toolArguments.file_path
      yield* Option.match(typeof file === "string" ? serverFor(loaded, file) : Option.none(), {
        onNone: () =>
          args.operation === "workspaceSymbol"
            ? withProgress("starting the language servers and running workspaceSymbol…", run)
            : run,
        onSome: (server) => withProgress(`${server}: starting the language server and running ${args.operation}…`, run)
      }).pipe(
        // Printed before the Layer closes: the answer does not wait for the servers' shutdown.
        Effect.flatMap((output) =>
          stdout(args.json ? `${JSON.stringify(output.result, null, 2)}\n` : `${output.text}\n`)
        ),
        Effect.provide(yield* RemoteOptions.serviceLayer(args, workspace, () => hostLayer(loaded))),
        Effect.provide(LspSession.layer(workspace))
      )
    })
).pipe(Command.withDescription("Ask the language server one question and print the answer."))

const requireDirectory = (workspace: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) =>
    fs.stat(workspace).pipe(
      Effect.option,
      Effect.flatMap((info) =>
        Option.isSome(info) && info.value.type === "Directory"
          ? Effect.void
          : Effect.fail(
            LspError.invalidWorkspace(`The workspace ${workspace} is not a directory.`, { workspace })
          )
      )
    ))

// The MCP server ends when its client closes stdin.
const stdinClosed = Effect.async<void>((resume) => {
  const done = () => resume(Effect.void)
  if (process.stdin.readableEnded) return done()
  process.stdin.once("end", done)
  process.stdin.once("close", done)
  return Effect.sync(() => {
    process.stdin.off("end", done)
    process.stdin.off("close", done)
  })
})

const mcp = Command.make("mcp", {
  cwd,
  config,
  remote: RemoteOptions.remoteOption,
  tokenFile: RemoteOptions.tokenFileOption,
  caFile: RemoteOptions.caFileOption,
  noPrewarm: RemoteOptions.noPrewarmOption
}, (args) =>
  Effect.gen(function*() {
    const workspace = yield* workspaceOf(args.cwd)
    yield* requireDirectory(workspace)
    const loaded = yield* loadConfig(args.config, workspace)
    const server = LspMcp.layer().pipe(
      Layer.provide(
        LspMcpStdio.layer({ name: "lsp-seam", version, stdin: NodeStream.stdin, stdout: NodeSink.stdout })
      ),
      Layer.provide(Prewarm.layer(workspace, loaded.config, !args.noPrewarm, loaded.source._tag === "File")),
      Layer.provide(yield* RemoteOptions.serviceLayer(args, workspace, () => hostLayer(loaded))),
      Layer.provide(LspSession.layer(workspace))
    )
    // Served from a child fiber: when stdin ends, the stdio protocol interrupts the fiber that built it, and
    // that end of the session is a success, not an interruption of the command.
    const serving = yield* Effect.fork(Effect.scoped(Effect.zipRight(Layer.build(server), stdinClosed)))
    const exit = yield* Fiber.await(serving)
    if (Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)) return yield* Effect.failCause(exit.cause)
  })).pipe(
    Command.withDescription("Serve the lsp tool to a Model Context Protocol client over stdio (logs go to stderr).")
  )

const doctor = Command.make("doctor", {
  cwd,
  config,
  remote: RemoteOptions.remoteOption,
  tokenFile: RemoteOptions.tokenFileOption,
  caFile: RemoteOptions.caFileOption
}, (args) =>
  Effect.gen(function*() {
    const workspace = yield* workspaceOf(args.cwd)
    const remote = yield* RemoteOptions.parseRemote(args.remote)
    if (Option.isSome(remote)) {
      return yield* stdout(yield* RemoteDoctor.run(remote.value, RemoteOptions.clientOptions(args, workspace)))
    }
    const loaded = yield* loadConfig(args.config, workspace)
    const count = Object.keys(loaded.config.servers).length
    const reports = yield* withProgress(
      `starting ${count} language server${count === 1 ? "" : "s"}…`,
      LspStdio.diagnose(loaded.input, workspace)
    )
    const usable = reports.filter((report) => report.usable).map((report) => report.providerId)
    const targets = DoctorProbe.targetsOf(loaded.config, usable)
    // The host is built (and closed) inside `inspect`: every server is gone before the report is printed.
    const inspection = targets.length === 0 ? Option.none() : Option.some(
      yield* withProgress(
        `probing ${targets.length} language server${targets.length === 1 ? "" : "s"} with one query…`,
        DoctorProbe.inspect(
          workspace,
          targets,
          hostLayer({ ...loaded, input: DoctorProbe.restrictTo(loaded.input, usable) })
        )
      )
    )
    // A preset is active when its command is on PATH, which a stub can be (rustup's rust-analyzer without the
    // component): one that fails while the workspace has no file of its languages is skipped, not failed.
    const failedPresets = loaded.source._tag === "Presets"
      ? reports.filter((report) => !report.usable).map((report) => report.providerId)
      : []
    const search = failedPresets.length === 0
      ? undefined
      : yield* DoctorProbe.findFiles(workspace, DoctorProbe.targetsOf(loaded.config, failedPresets))
    // Only a walk that saw the whole workspace can say no file needs a server.
    const skipped = search === undefined || search.truncated ? [] : failedPresets.filter((id) => !search.found.has(id))
    yield* stdout(Doctor.render(workspace, loaded, reports, inspection, skipped))
    const unusable = Doctor.unusable(reports, inspection, skipped)
    if (unusable.length > 0) return yield* new Unhealthy({ unusable })
  })).pipe(
    Command.withDescription(
      "Start every configured server once and report what it can do, then start the real host, ask each usable " +
        "server one hover on a workspace file and print the host's status; exits 1 if a server is unusable."
    )
  )

/**
 * The command tree.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "lsp-seam",
  {},
  () =>
    Effect.fail(
      new UsageError({ message: "Missing command: use query, mcp, doctor, serve or runner (see lsp-seam --help)." })
    )
).pipe(
  Command.withDescription("Semantic code navigation for agents through real language servers."),
  Command.withSubcommands([query, mcp, doctor, serve, runner])
)

const cli = Command.run(command, { name: "lsp-seam", version })

/**
 * Runs the command for `argv` (as `process.argv`: the runtime and script first) and returns the exit code.
 * Errors are reported on stderr here; interruption is not caught.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (argv: ReadonlyArray<string>): Effect.Effect<number, never, Environment> =>
  cli(argv).pipe(
    Effect.as(0),
    Effect.catchAll((error) => {
      if (LspError.isLspError(error)) return Effect.as(stderr(`error[${error.code}]: ${error.message}\n`), 1)
      if (error instanceof UsageError) return Effect.as(stderr(`lsp-seam: ${error.message}\n`), 2)
      if (error instanceof Unhealthy) {
        return Effect.as(stderr(`lsp-seam doctor: unusable: ${error.unusable.join(", ")}\n`), 1)
      }
      // @effect/cli has printed what was wrong, with the usage.
      if (ValidationError.isValidationError(error)) return Effect.succeed(2)
      return Effect.as(stderr(`lsp-seam: ${String(error)}\n`), 1)
    }),
    Effect.catchAllDefect((defect) =>
      Effect.as(stderr(`lsp-seam: internal error: ${Cause.pretty(Cause.die(defect))}\n`), 1)
    )
  )
