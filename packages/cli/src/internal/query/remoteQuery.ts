/**
 * The fast path of `lsp-seam query … --remote …`: a warm query through a running host should cost little
 * more than Node's own start, so this path parses its few options by hand and loads only the seam, the
 * remote client and the tool's rendering — not `@effect/cli`, `@effect/ai`, the MCP server or the stdio host.
 * Anything it does not recognise (`--help`, an unknown option, a missing argument) is left to the full
 * command, which answers it as usual; the answers, output and exit codes are the full command's.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { LspDeadline, LspError } from "@lsp-seam/lsp"
import { LspDaemon, LspRemoteConnection, LspRemoteTarget } from "@lsp-seam/setup/remote"
import type { LspSession as SessionModule, LspToolHandler as HandlerModule } from "@lsp-seam/tool-lsp"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as NodePath from "node:path"
import { UsageError } from "../command/errors.js"
import * as CommandBudget from "./commandBudget.js"
import { queryArguments } from "./location.js"

const valueOptions = [
  "symbol",
  "file",
  "severity",
  "new-name",
  "depth",
  "cwd",
  "config",
  "remote",
  "token-file",
  "ca-file"
] as const
type ValueOption = typeof valueOptions[number]

export interface Parsed {
  readonly operation: string
  readonly target: string
  readonly options: Partial<Record<ValueOption, string>>
  readonly json: boolean
  /** `--body`; absent means not given. */
  readonly body?: boolean
}

/** `query <operation> <target>` with the query options, or `undefined` for anything else. */
export const parse = (args: ReadonlyArray<string>): Parsed | undefined => {
  if (args[0] !== "query") return undefined
  const positional: Array<string> = []
  const options: Partial<Record<ValueOption, string>> = {}
  let json = false
  let body = false
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!
    if (!arg.startsWith("-")) {
      positional.push(arg)
      continue
    }
    if (arg === "--json") {
      json = true
      continue
    }
    if (arg === "--body") {
      body = true
      continue
    }
    const equals = arg.indexOf("=")
    const name = (equals < 0 ? arg.slice(2) : arg.slice(2, equals)) as ValueOption
    if (!arg.startsWith("--") || !valueOptions.includes(name) || options[name] !== undefined) return undefined
    if (equals >= 0) options[name] = arg.slice(equals + 1)
    else {
      const value = args[i + 1]
      if (value === undefined) return undefined
      options[name] = value
      i++
    }
  }
  if (positional.length !== 2 || options.remote === undefined) return undefined
  const parsed = { operation: positional[0]!, target: positional[1]!, options, json }
  return body ? { ...parsed, body } : parsed
}

// The tool's modules one by one: its index would also load the @effect/ai and MCP adapters.
const toolModule = <A>(file: string): Promise<A> =>
  import(new URL(file, import.meta.resolve("@lsp-seam/tool-lsp")).href) as Promise<A>

const write = (stream: NodeJS.WriteStream, text: string) =>
  Effect.async<void>((resume) => {
    stream.write(text, () => resume(Effect.void))
  })

/** The tool's modules this path uses (imported one by one, or handed over by the bundle). */
export interface Modules {
  readonly Handler: typeof HandlerModule
  readonly Session: typeof SessionModule
  readonly Input: { readonly allOperations: ReadonlyArray<string> }
}

/**
 * `effect` within what is left of the command's budget since `startedAt` (epoch ms, on the Clock): what the edge
 * spent before it left the query here is not given again. The budget's end is the tool's `LSP_TIMEOUT` for the
 * whole budget.
 */
export const withinCommandBudget = <A, R>(
  effect: Effect.Effect<A, LspError.LspError, R>,
  startedAt: number
): Effect.Effect<A, LspError.LspError, R> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const left = CommandBudget.remaining(startedAt, now)
    const timedOut = () => LspError.timeout(CommandBudget.timeoutMessage(), { timeoutMs: CommandBudget.timeoutMs })
    return left === 0
      ? Effect.fail(timedOut())
      : effect.pipe(LspDeadline.within(left), Effect.timeoutFail({ duration: left, onTimeout: timedOut }))
  })

/** Runs the parsed query and returns the exit code; `startedAt` (epoch ms) is when the command's budget began. */
export const program = (
  parsed: Parsed,
  { Handler, Session }: Pick<Modules, "Handler" | "Session">,
  startedAt: number
): Effect.Effect<number> =>
  Effect.gen(function*() {
    const toolArguments = yield* queryArguments(
      parsed.operation as Parameters<typeof queryArguments>[0],
      parsed.target,
      {
        symbol: parsed.options.symbol,
        file: parsed.options.file,
        severity: parsed.options.severity,
        body: parsed.body === true,
        newName: parsed.options["new-name"],
        depth: parsed.options.depth
      }
    )
    const remote = yield* Either.mapLeft(
      LspRemoteTarget.parse(parsed.options.remote!),
      (message) => new UsageError({ message })
    )
    const workspace = NodePath.resolve(parsed.options.cwd ?? ".")
    const output = yield* withinCommandBudget(Handler.runUnknown(toolArguments), startedAt).pipe(
      Effect.provide(LspRemoteConnection.layer(remote, {
        tokenFile: parsed.options["token-file"],
        caFile: parsed.options["ca-file"],
        source: LspDaemon.resolveSource({ configFile: parsed.options.config, workingDirectory: workspace })
      })),
      Effect.provide(Session.layer(workspace))
    )
    yield* write(
      process.stdout,
      parsed.json ? `${JSON.stringify(output.result, null, 2)}\n` : `${output.text}\n`
    )
    return 0
  }).pipe(
    Effect.catchAll((error) =>
      LspError.isLspError(error)
        ? Effect.as(write(process.stderr, `error[${error.code}]: ${error.message}\n`), 1)
        : Effect.as(write(process.stderr, `lsp-seam: ${error.message}\n`), 2)
    ),
    Effect.catchAllDefect((defect) =>
      Effect.as(write(process.stderr, `lsp-seam: internal error: ${Cause.pretty(Cause.die(defect))}\n`), 1)
    )
  )

/**
 * Runs the query as the process's main program. Resolves to false, having run nothing, when the operation is
 * not one the tool knows: the full command reports that.
 */
export const main = async (parsed: Parsed, modules?: Modules): Promise<boolean> => {
  const loaded: Modules = modules ?? await Promise.all([
    toolModule<typeof HandlerModule>("./LspToolHandler.js"),
    toolModule<typeof SessionModule>("./LspSession.js"),
    toolModule<Modules["Input"]>("./LspToolInput.js")
  ]).then(([Handler, Session, Input]) => ({ Handler, Session, Input }))
  if (!loaded.Input.allOperations.includes(parsed.operation)) return false
  // The budget began with the process: the edge may have spent some of it (bin.ts).
  program(parsed, loaded, performance.timeOrigin).pipe(
    // stdout carries the answer only.
    Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))),
    NodeRuntime.runMain({
      disableErrorReporting: true,
      disablePrettyLogger: true,
      teardown: (exit, onExit) =>
        onExit(Exit.isSuccess(exit) ? exit.value as number : Cause.isInterruptedOnly(exit.cause) ? 130 : 1)
    })
  )
  return true
}
