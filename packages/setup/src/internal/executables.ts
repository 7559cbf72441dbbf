/**
 * Whether a preset's command can be run here: an absolute path that is an executable regular file, or a
 * bare name found as one in a PATH directory. The same rules the stdio host applies when it loads, so a
 * preset is active exactly when the host will accept it. `findExecutableSync` is the same lookup with
 * `node:fs`, for the remote query's edge (`quickQuery.ts`), which loads no Effect runtime.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Fs from "node:fs"
import * as NodePath from "node:path"

/**
 * The files `command` may resolve to, in the order they are tried. Empty and relative PATH entries are skipped
 * (they would depend on the working directory); a relative command with a separator never resolves.
 */
const candidates = (command: string, pathValue: string | undefined): ReadonlyArray<string> => {
  if (NodePath.isAbsolute(command)) return [command]
  if (command.length === 0 || command.includes("/") || command.includes("\\")) return []
  return (pathValue ?? "").split(NodePath.delimiter).filter((dir) => dir !== "" && NodePath.isAbsolute(dir)).map((
    directory
  ) => NodePath.join(directory, command))
}

const isExecutableFile = (fs: FileSystem.FileSystem, file: string): Effect.Effect<boolean> =>
  fs.stat(file).pipe(
    Effect.map((info) => info.type === "File" && (info.mode & 0o111) !== 0),
    Effect.orElseSucceed(() => false)
  )

/** The executable `command` resolves to, if any. */
export const findExecutable = (
  command: string,
  pathValue: string | undefined
): Effect.Effect<Option.Option<string>, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    for (const candidate of candidates(command, pathValue)) {
      if (yield* isExecutableFile(fs, candidate)) return Option.some(candidate)
    }
    return Option.none()
  })

/** `findExecutable` with `node:fs`: the executable `command` resolves to, or `undefined`. */
export const findExecutableSync = (command: string, pathValue: string | undefined): string | undefined =>
  candidates(command, pathValue).find((candidate) => {
    try {
      const stats = Fs.statSync(candidate)
      return stats.isFile() && (stats.mode & 0o111) !== 0
    } catch {
      return false
    }
  })
