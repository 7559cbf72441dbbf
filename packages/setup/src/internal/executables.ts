/**
 * Whether a preset's command can be run here: an absolute path that is an executable regular file, or a
 * bare name found as one in the project's `node_modules/.bin` folders (`projectBins`) or in a PATH directory.
 * The PATH part is the rule the stdio host applies when it loads, so a preset found there is active exactly when
 * the host will accept it; one found in the project is handed to the host by its absolute path.
 * `findExecutableSync` is the PATH lookup with `node:fs`, for the remote query's edge (`quickQuery.ts`), which
 * loads no Effect runtime.
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
const candidates = (
  command: string,
  pathValue: string | undefined,
  bins: ReadonlyArray<string> = []
): ReadonlyArray<string> => {
  if (NodePath.isAbsolute(command)) return [command]
  if (!isBareName(command)) return []
  const path = (pathValue ?? "").split(NodePath.delimiter).filter((dir) => dir !== "" && NodePath.isAbsolute(dir))
  return [...bins, ...path].map((directory) => NodePath.join(directory, command))
}

/** A command looked up by name (no separator), not a path. */
export const isBareName = (command: string): boolean =>
  command.length > 0 && !command.includes("/") && !command.includes("\\")

const exists = (fs: FileSystem.FileSystem, file: string): Effect.Effect<boolean> =>
  fs.exists(file).pipe(Effect.orElseSucceed(() => false))

/** Whether `dir` holds the top of a project: a repository, or the package.json of npm/yarn/pnpm workspaces. */
const isProjectTop = (fs: FileSystem.FileSystem, dir: string): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    if (yield* exists(fs, NodePath.join(dir, ".git"))) return true
    if (yield* exists(fs, NodePath.join(dir, "pnpm-workspace.yaml"))) return true
    const manifest = yield* fs.readFileString(NodePath.join(dir, "package.json")).pipe(Effect.option)
    if (manifest._tag === "None") return false
    try {
      const json: unknown = JSON.parse(manifest.value)
      return typeof json === "object" && json !== null && "workspaces" in json
    } catch {
      return false
    }
  })

/**
 * The `node_modules/.bin` folders a bare command is looked for in before PATH, nearest first: the workspace's and
 * each ancestor's up to the top of its project (the nearest directory holding `.git`, `pnpm-workspace.yaml` or a
 * package.json with `workspaces`), so a monorepo's hoisted servers are found from any of its packages. Without
 * such a top above it, the workspace's own alone: a bare name never resolves into a `node_modules` of a directory
 * the project does not own (a shared parent such as `/tmp` or a home directory).
 */
export const projectBins = (workspace: string): Effect.Effect<ReadonlyArray<string>, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const bin = (dir: string) => NodePath.join(dir, "node_modules", ".bin")
    const start = NodePath.resolve(workspace)
    const chain: Array<string> = []
    for (let dir = start;; dir = NodePath.dirname(dir)) {
      chain.push(bin(dir))
      if (yield* isProjectTop(fs, dir)) return chain
      if (NodePath.dirname(dir) === dir) return [bin(start)]
    }
  })

const isExecutableFile = (fs: FileSystem.FileSystem, file: string): Effect.Effect<boolean> =>
  fs.stat(file).pipe(
    Effect.map((info) => info.type === "File" && (info.mode & 0o111) !== 0),
    Effect.orElseSucceed(() => false)
  )

/** The executable `command` resolves to, if any: in one of `bins` first (see `projectBins`), then on PATH. */
export const findExecutable = (
  command: string,
  pathValue: string | undefined,
  bins: ReadonlyArray<string> = []
): Effect.Effect<Option.Option<string>, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    for (const candidate of candidates(command, pathValue, bins)) {
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
