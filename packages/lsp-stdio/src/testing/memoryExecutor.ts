/**
 * A `CommandExecutor` whose processes are Effects. Everything a fake process does (reading its stdin,
 * writing frames, sleeping, exiting, ignoring a signal) runs on fibers and the Effect Clock, so the real
 * host can be driven with `TestClock` without spawning anything.
 */
import * as Command from "@effect/platform/Command"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as PlatformError from "@effect/platform/Error"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Inspectable from "effect/Inspectable"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"

/** What a fake process sees of itself and its pipes. */
export interface MemoryProcess {
  readonly command: Command.StandardCommand
  readonly pid: number
  /** Bytes the parent wrote; ends when the parent closes stdin. */
  readonly stdin: Stream.Stream<Uint8Array>
  readonly writeStdout: (bytes: Uint8Array) => Effect.Effect<void>
  readonly writeStderr: (bytes: Uint8Array) => Effect.Effect<void>
  /** Ends the process with `code` (the program's fiber is interrupted). */
  readonly exit: (code: number) => Effect.Effect<void>
  /** From now on SIGTERM is ignored (SIGKILL never is). */
  readonly ignoreSigterm: Effect.Effect<void>
  /** Every signal received so far. */
  readonly signals: Effect.Effect<ReadonlyArray<CommandExecutor.Signal>>
}

/**
 * A fake program: runs as the process's main fiber. Returning ends the process with code 0; failing or
 * dying ends it with code 1.
 */
export type MemoryProgram = (process: MemoryProcess) => Effect.Effect<void, unknown>

const spawnError = (command: Command.StandardCommand, message: string) =>
  new PlatformError.SystemError({
    reason: "NotFound",
    module: "Command",
    method: "spawn",
    pathOrDescriptor: command.command,
    description: message
  })

/** Exit codes a fake process ends with when killed: the shell convention 128 + signal number. */
const killedCode = (signal: CommandExecutor.Signal) => signal === "SIGKILL" ? 137 : 143

/**
 * Makes the executor. `programFor` picks the program for a command (by its arguments, say); `undefined`
 * makes the spawn fail as if the executable did not exist.
 */
// Long on purpose (~90 lines): one fake process (its pipes, exit and kill) is built in one place, as the
// platform's executor builds a real one.
export const make = (
  programFor: (command: Command.StandardCommand) => MemoryProgram | undefined
): Effect.Effect<CommandExecutor.CommandExecutor> =>
  Effect.gen(function*() {
    const nextPid = yield* Ref.make(100_000)

    const start = (command: Command.Command) =>
      Effect.gen(function*() {
        if (command._tag !== "StandardCommand") {
          return yield* Effect.fail(spawnError(Command.flatten(command)[0], "piped commands are not supported"))
        }
        const program = programFor(command)
        if (program === undefined) return yield* Effect.fail(spawnError(command, "no fake program for this command"))
        const pid = yield* Ref.getAndUpdate(nextPid, (n) => n + 1)
        const stdin = yield* Queue.unbounded<Uint8Array | null>()
        const stdout = yield* Queue.unbounded<Uint8Array | null>()
        const stderr = yield* Queue.unbounded<Uint8Array | null>()
        const exited = yield* Deferred.make<number>()
        const signals = yield* Ref.make<ReadonlyArray<CommandExecutor.Signal>>([])
        const sigtermIgnored = yield* Ref.make(false)

        const finish = (code: number) =>
          Deferred.succeed(exited, code).pipe(
            Effect.zipRight(Queue.offer(stdout, null)),
            Effect.zipRight(Queue.offer(stderr, null)),
            Effect.asVoid
          )

        const self: MemoryProcess = {
          command,
          pid,
          stdin: Stream.fromQueue(stdin).pipe(Stream.takeWhile((c): c is Uint8Array => c !== null)),
          writeStdout: (bytes) => Effect.asVoid(Queue.offer(stdout, bytes)),
          writeStderr: (bytes) => Effect.asVoid(Queue.offer(stderr, bytes)),
          exit: (code) => finish(code),
          ignoreSigterm: Ref.set(sigtermIgnored, true),
          signals: Ref.get(signals)
        }

        // The program's own scope outlives the parent's Command scope: a fake that ignores signals must keep
        // running until it is killed, as a real one would.
        const processScope = yield* Scope.make()
        const main = yield* Effect.suspend(() => program(self)).pipe(
          Effect.exit,
          Effect.flatMap((exit) => finish(Exit.isSuccess(exit) ? 0 : 1)),
          Effect.raceFirst(Deferred.await(exited)),
          Effect.ensuring(Scope.close(processScope, Exit.void)),
          Effect.forkIn(processScope)
        )

        const kill = (signal: CommandExecutor.Signal = "SIGTERM") =>
          Effect.gen(function*() {
            yield* Ref.update(signals, (all) => [...all, signal])
            if (signal === "SIGTERM" && (yield* Ref.get(sigtermIgnored))) return yield* Effect.never
            yield* finish(killedCode(signal))
            yield* Fiber.interrupt(main)
          })

        // As the platform's own executor does: if the parent's scope closes first, the process is asked to go.
        yield* Effect.addFinalizer(() =>
          Deferred.isDone(exited).pipe(
            Effect.flatMap((done) => done ? Effect.void : Effect.ignore(kill("SIGKILL")))
          )
        )

        const process: CommandExecutor.Process = {
          [CommandExecutor.ProcessTypeId]: CommandExecutor.ProcessTypeId,
          pid: CommandExecutor.ProcessId(pid),
          exitCode: Effect.map(Deferred.await(exited), CommandExecutor.ExitCode),
          isRunning: Effect.map(Deferred.isDone(exited), (done) => !done),
          // Like the platform's: resolves once the process has exited.
          kill: (signal) => Effect.raceFirst(kill(signal), Effect.asVoid(Deferred.await(exited))),
          stdin: Sink.forEach((chunk: Uint8Array) =>
            Effect.flatMap(Deferred.isDone(exited), (done) => done ? Effect.void : Queue.offer(stdin, chunk))
          ).pipe(Sink.ensuring(Queue.offer(stdin, null))),
          stdout: Stream.fromQueue(stdout).pipe(Stream.takeWhile((c): c is Uint8Array => c !== null)),
          stderr: Stream.fromQueue(stderr).pipe(Stream.takeWhile((c): c is Uint8Array => c !== null)),
          toString() {
            return Inspectable.format(this.toJSON())
          },
          toJSON() {
            return { _id: "@lsp-seam/lsp-stdio/MemoryProcess", pid, command: command.command }
          },
          [Inspectable.NodeInspectSymbol]() {
            return this.toJSON()
          }
        }
        return process
      })

    return CommandExecutor.makeExecutor(start)
  })
