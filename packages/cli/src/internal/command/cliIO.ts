/**
 * Where the command writes. Results go to stdout and nothing else does; errors, help for mistakes and
 * progress go to stderr. A service so tests can capture both streams and pretend stderr is a terminal.
 */
import type * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export interface CliIOShape {
  readonly stdout: (text: string) => Effect.Effect<void>
  readonly stderr: (text: string) => Effect.Effect<void>
  /** Whether stderr is a terminal: progress is shown only then. */
  readonly stderrIsTTY: boolean
}

export class CliIO extends Context.Tag("@lsp-seam/cli/CliIO")<CliIO, CliIOShape>() {}

// Waits for the write callback so that everything written is flushed before the process exits with a code.
const write = (stream: NodeJS.WriteStream) => (text: string): Effect.Effect<void> =>
  text.length === 0 ? Effect.void : Effect.async<void>((resume) => {
    stream.write(text, () => resume(Effect.void))
  })

export const layerNode: Layer.Layer<CliIO> = Layer.sync(CliIO, () => ({
  stdout: write(process.stdout),
  stderr: write(process.stderr),
  stderrIsTTY: process.stderr.isTTY === true
}))

export const stdout = (text: string): Effect.Effect<void, never, CliIO> =>
  Effect.flatMap(CliIO, (io) => io.stdout(text))

export const stderr = (text: string): Effect.Effect<void, never, CliIO> =>
  Effect.flatMap(CliIO, (io) => io.stderr(text))

const sgr = /\x1b\[[0-9;]*m/g

/** Removes colour and style escape sequences (@effect/cli styles its help and usage errors). */
export const stripStyles = (text: string): string => text.replace(sgr, "")

const plain = (args: ReadonlyArray<unknown>) => args.map((arg) => typeof arg === "string" ? stripStyles(arg) : arg)

/**
 * The Console with styles removed from what goes to a stream that is not a terminal: help piped to a file
 * or read by a program (an agent reading a usage error) gets plain text.
 */
export const plainConsole = (
  console: Console.Console,
  terminals: { readonly stdout: boolean; readonly stderr: boolean }
): Console.Console => ({
  ...console,
  log: (...args) => console.log(...(terminals.stdout ? args : plain(args))),
  info: (...args) => console.info(...(terminals.stdout ? args : plain(args))),
  error: (...args) => console.error(...(terminals.stderr ? args : plain(args))),
  warn: (...args) => console.warn(...(terminals.stderr ? args : plain(args)))
})
