/**
 * Resolving a configured server command to the executable file that will be spawned. No shell is ever
 * involved: the command is a path or a bare name, never a command line.
 */
import type * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

type Verdict =
  | { readonly _tag: "Executable" }
  | { readonly _tag: "Rejected"; readonly reason: string }

const inspect = (
  fs: FileSystem.FileSystem,
  file: string
): Effect.Effect<Verdict> =>
  // stat follows symlinks, so a link to an executable counts as that executable.
  fs.stat(file).pipe(
    Effect.map((info): Verdict => {
      if (info.type !== "File") return { _tag: "Rejected", reason: `${file} is not a regular file` }
      if ((info.mode & 0o111) === 0) return { _tag: "Rejected", reason: `${file} is not executable` }
      return { _tag: "Executable" }
    }),
    Effect.catchAll((error: PlatformError.PlatformError) =>
      Effect.succeed<Verdict>({
        _tag: "Rejected",
        reason: error._tag === "SystemError" && error.reason === "NotFound" ?
          `${file} does not exist` :
          `${file} cannot be inspected (${error.message})`
      })
    )
  )

const hasSeparator = (command: string): boolean => command.includes("/") || command.includes("\\")

/**
 * Resolves `command` for the server `serverId` to an absolute executable path.
 *
 * - An absolute path must exist, be a regular file (symlinks are followed) and have an execute bit. It is
 *   returned as written, not canonicalised, so multi-call binaries still see the name they were given.
 * - A bare name (no `/` or `\`) is looked up in order in the directories of `pathValue`, the PATH of the
 *   server's own environment; the first regular, executable file wins. Empty and relative PATH entries
 *   are skipped: they would resolve against the host's working directory, which is not what a
 *   configuration means to name. No PATH means nothing is searched.
 * - A relative path with a separator is `LSP_INVALID_CONFIG`.
 *
 * Anything not found or not executable is `LSP_EXECUTABLE_NOT_FOUND`, naming the server, the command and
 * every place looked at.
 */
export const resolveExecutable = (
  serverId: string,
  command: string,
  pathValue: string | undefined
): Effect.Effect<string, LspError.LspConfigurationError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const detail = { serverId, command }
    if (command.trim().length === 0 || command.includes("\0")) {
      return yield* LspError.invalidConfig(
        `Server ${JSON.stringify(serverId)}: the command ${JSON.stringify(command)} is not a valid executable name.`,
        detail
      )
    }
    if (path.isAbsolute(command)) {
      const verdict = yield* inspect(fs, command)
      if (verdict._tag === "Executable") return command
      return yield* LspError.executableNotFound(
        `Server ${JSON.stringify(serverId)}: the command ${command} cannot be run: ${verdict.reason}. ` +
          "Point \"command\" at an executable file.",
        { ...detail, searched: [command] }
      )
    }
    if (hasSeparator(command)) {
      return yield* LspError.invalidConfig(
        `Server ${JSON.stringify(serverId)}: the command ${JSON.stringify(command)} is a relative path. ` +
          "Use an absolute path, or a bare name to look up on PATH.",
        detail
      )
    }
    // The platform's own Path decides the world; Windows PATH lists are ';'-separated.
    const delimiter = path.sep === "\\" ? ";" : ":"
    const directories = (pathValue ?? "").split(delimiter).filter((dir) => dir.length > 0 && path.isAbsolute(dir))
    const reasons: Array<string> = []
    for (const directory of directories) {
      const candidate = path.join(directory, command)
      const verdict = yield* inspect(fs, candidate)
      if (verdict._tag === "Executable") return candidate
      reasons.push(verdict.reason)
    }
    const found = Option.fromNullable(reasons.find((reason) => !reason.endsWith("does not exist")))
    return yield* LspError.executableNotFound(
      directories.length === 0 ?
        `Server ${JSON.stringify(serverId)}: the command ${JSON.stringify(command)} is a bare name but the ` +
        "server's PATH is empty, so nothing was searched. Use an absolute path or set PATH in the server's env." :
        `Server ${JSON.stringify(serverId)}: no executable ${JSON.stringify(command)} on the server's PATH ` +
        `(searched ${directories.join(delimiter)})` +
        Option.match(found, { onNone: () => "", onSome: (reason) => `; ${reason}` }) +
        ". Install it, use an absolute path, or set PATH in the server's env.",
      { ...detail, searched: directories }
    )
  })
