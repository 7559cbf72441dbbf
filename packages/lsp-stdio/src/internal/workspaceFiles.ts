/**
 * Finding a workspace's files by extension, within bounds: a sorted breadth-first walk that skips
 * dot-directories and node_modules, follows links only within the workspace, and stops once every target
 * has a file or after a number of entries. `lsp-seam doctor` picks its probe files with it; the host finds
 * a file to open before a workspace-wide symbol search.
 */
import type * as Path from "@effect/platform/Path"
import { LspExtension } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { FileAccess } from "./fileAccess.js"

/** Who wants a file: its id, the extensions it handles, and the largest file it accepts. */
export interface Target {
  readonly id: string
  readonly extensions: ReadonlyArray<string>
  readonly maxBytes: number
}

export interface FileSearch {
  /** The first file (relative to the root) found per target id. */
  readonly found: ReadonlyMap<string, string>
  /** Directory entries looked at. */
  readonly visited: number
  /** Whether the walk stopped at the entry cap before seeing the whole tree. */
  readonly truncated: boolean
}

export const defaultMaxEntries = 5_000

const skippedDirectory = (name: string): boolean => name.startsWith(".") || name === "node_modules"

/**
 * Walks `root` breadth first, entries of each directory in sorted order, and records for each target the
 * first file it handles (no larger than it accepts). Unreadable entries are passed over. A directory is
 * entered once, by whichever path reaches it first (so a link loop is walked once); a link to a skipped
 * directory is skipped too; a file or directory whose real path lies outside `root` is passed over (the host
 * would refuse to open it).
 */
export const findFiles = (
  files: FileAccess,
  path: Path.Path,
  root: string,
  targets: ReadonlyArray<Target>,
  maxEntries: number = defaultMaxEntries
): Effect.Effect<FileSearch> =>
  Effect.gen(function*() {
    const realRoot = yield* files.realPath(root).pipe(Effect.orElseSucceed(() => root))
    /** The real path of an entry when it lies inside the workspace. */
    const inside = (relative: string) =>
      files.realPath(path.join(root, relative)).pipe(
        Effect.map((real) => {
          // By whole segments, as the host checks: "..x.ts" is inside, "../x.ts" is not.
          const fromRoot = path.relative(realRoot, real)
          const outside = path.isAbsolute(fromRoot) || fromRoot === ".." || fromRoot.startsWith(`..${path.sep}`)
          return outside ? Option.none() : Option.some(real)
        }),
        Effect.orElseSucceed(() => Option.none<string>())
      )
    const found = new Map<string, string>()
    const entered = new Set<string>([realRoot])
    const queue: Array<string> = [""]
    let visited = 0
    while (queue.length > 0 && found.size < targets.length) {
      const directory = queue.shift()!
      const names = yield* files.readDirectory(path.join(root, directory)).pipe(
        Effect.orElseSucceed((): ReadonlyArray<string> => [])
      )
      for (const name of [...names].sort()) {
        if (found.size === targets.length) break
        if (visited >= maxEntries) return { found, visited, truncated: true }
        visited += 1
        const relative = directory === "" ? name : path.join(directory, name)
        const info = yield* Effect.option(files.stat(path.join(root, relative)))
        if (Option.isNone(info)) continue
        if (info.value.type === "Directory") {
          if (skippedDirectory(name)) continue
          const real = yield* inside(relative)
          // A link into .git or node_modules is skipped like the directory itself.
          if (Option.isNone(real) || entered.has(real.value) || skippedDirectory(path.basename(real.value))) continue
          entered.add(real.value)
          queue.push(relative)
        } else if (info.value.type === "File") {
          const extension = LspExtension.finalExtension(name)
          const wanted = targets.filter((target) =>
            !found.has(target.id) && target.extensions.includes(extension) && info.value.size <= target.maxBytes
          )
          if (wanted.length === 0 || Option.isNone(yield* inside(relative))) continue
          for (const target of wanted) found.set(target.id, relative)
        }
      }
    }
    return { found, visited, truncated: false }
  })
