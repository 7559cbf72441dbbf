/**
 * Whether a preset's command can be run here: an absolute path that is an executable regular file, or a
 * bare name found as one in a PATH directory. The same rules the stdio host applies when it loads, so a
 * preset is active exactly when the host will accept it.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { delimiter } from "node:path"

const isExecutableFile = (fs: FileSystem.FileSystem, file: string): Effect.Effect<boolean> =>
  fs.stat(file).pipe(
    Effect.map((info) => info.type === "File" && (info.mode & 0o111) !== 0),
    Effect.orElseSucceed(() => false)
  )

/**
 * The executable `command` resolves to, if any. Empty and relative PATH entries are skipped (they would
 * depend on the working directory); a relative command with a separator never resolves.
 */
export const findExecutable = (
  command: string,
  pathValue: string | undefined
): Effect.Effect<Option.Option<string>, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    if (path.isAbsolute(command)) {
      return (yield* isExecutableFile(fs, command)) ? Option.some(command) : Option.none()
    }
    if (command.length === 0 || command.includes("/") || command.includes("\\")) return Option.none()
    const directories = (pathValue ?? "").split(delimiter).filter((dir) => dir !== "" && path.isAbsolute(dir))
    for (const directory of directories) {
      const candidate = path.join(directory, command)
      if (yield* isExecutableFile(fs, candidate)) return Option.some(candidate)
    }
    return Option.none()
  })
