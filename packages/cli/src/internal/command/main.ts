/**
 * The full command as the process's main program: `LspCli.run` on the Node platform, logs on stderr, the exit
 * code from the command (130 when interrupted by a signal).
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as LspCli from "../../LspCli.js"
import * as CliIO from "./cliIO.js"

export const main = (argv: ReadonlyArray<string>): void =>
  LspCli.run(argv).pipe(
    (program) =>
      Effect.consoleWith((console) =>
        Effect.withConsole(
          program,
          CliIO.plainConsole(console, { stdout: process.stdout.isTTY === true, stderr: process.stderr.isTTY === true })
        )
      ),
    // stdout carries results (and MCP messages) only: every log line goes to stderr.
    Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))),
    Effect.provide(CliIO.layerNode),
    Effect.provide(NodeContext.layer),
    NodeRuntime.runMain({
      disableErrorReporting: true,
      disablePrettyLogger: true,
      teardown: (exit, onExit) => {
        if (Exit.isSuccess(exit)) return onExit(typeof exit.value === "number" ? exit.value : 0)
        // Interrupted by SIGINT/SIGTERM: the conventional 128 + SIGINT.
        onExit(Cause.isInterruptedOnly(exit.cause) ? 130 : 1)
      }
    })
  )
