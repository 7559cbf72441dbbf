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
  /**
   * A last check of a candidate (relative path), e.g. that it reads as text: a file that fails it is passed
   * over and the walk goes on. By default every candidate is taken.
   */
  readonly accepts?: (relative: string) => Effect.Effect<boolean>
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

/** Whether a file (relative to the root) lies in a directory the walks skip (hidden ones, node_modules). */
export const isSkipped = (path: Path.Path, relative: string): boolean =>
  path.dirname(relative).split(path.sep).some((name) => name !== "." && skippedDirectory(name))

/**
 * The walk itself: breadth first, entries of each directory in sorted order, calling `visit` with each file
 * inside the workspace (relative path, size) until it returns false or `maxEntries` entries were looked at.
 * Unreadable entries are passed over. A directory is entered once, by whichever path reaches it first (so a
 * link loop is walked once); a link to a skipped directory is skipped too; a file or directory whose real
 * path lies outside `root` is passed over (the host would refuse to open it). True when the walk was cut.
 */
const walk = (
  files: FileAccess,
  path: Path.Path,
  root: string,
  maxEntries: number,
  visit: (relative: string, size: number) => boolean | Effect.Effect<boolean>
): Effect.Effect<{ readonly visited: number; readonly truncated: boolean }> =>
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
    const entered = new Set<string>([realRoot])
    const queue: Array<string> = [""]
    let visited = 0
    while (queue.length > 0) {
      const directory = queue.shift()!
      const names = yield* files.readDirectory(path.join(root, directory)).pipe(
        Effect.orElseSucceed((): ReadonlyArray<string> => [])
      )
      for (const name of [...names].sort()) {
        if (visited >= maxEntries) return { visited, truncated: true }
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
          if (Option.isNone(yield* inside(relative))) continue
          const more = visit(relative, info.value.size)
          if (!(typeof more === "boolean" ? more : yield* more)) return { visited, truncated: false }
        }
      }
    }
    return { visited, truncated: false }
  })

/** Records for each target the first file it handles (no larger than it accepts); stops when all have one. */
export const findFiles = (
  files: FileAccess,
  path: Path.Path,
  root: string,
  targets: ReadonlyArray<Target>,
  maxEntries: number = defaultMaxEntries
): Effect.Effect<FileSearch> =>
  Effect.gen(function*() {
    const found = new Map<string, string>()
    if (targets.length === 0) return { found, visited: 0, truncated: false }
    const { truncated, visited } = yield* walk(files, path, root, maxEntries, (relative, size) =>
      Effect.gen(function*() {
        const extension = LspExtension.finalExtension(relative)
        for (const target of targets) {
          if (found.has(target.id) || !target.extensions.includes(extension) || size > target.maxBytes) continue
          if (target.accepts === undefined || (yield* target.accepts(relative))) found.set(target.id, relative)
        }
        return found.size < targets.length
      }))
    return { found, visited, truncated }
  })

/** Every file of `extensions` in the workspace, up to the bounds: `complete` false when there were more. */
export const listFiles = (
  files: FileAccess,
  path: Path.Path,
  root: string,
  extensions: ReadonlyArray<string>,
  bounds: { readonly maxFiles: number; readonly maxBytes: number; readonly maxEntries: number }
): Effect.Effect<{ readonly files: ReadonlyArray<string>; readonly bytes: number; readonly complete: boolean }> =>
  Effect.gen(function*() {
    const listed: Array<string> = []
    let bytes = 0
    let over = false
    const { truncated } = yield* walk(files, path, root, bounds.maxEntries, (relative, size) => {
      if (!extensions.includes(LspExtension.finalExtension(relative))) return true
      bytes += size
      listed.push(relative)
      over = listed.length > bounds.maxFiles || bytes > bounds.maxBytes
      return !over
    })
    return { files: listed, bytes, complete: !over && !truncated }
  })

/** A file of the workspace, relative to the walk's root, and its size in bytes. */
export interface ListedFile {
  readonly relative: string
  readonly size: number
}

/**
 * Every file of `extensions` under `root`, with its size, in the walk's order (breadth first, sorted per
 * directory), up to `maxEntries` directory entries: `complete` false when the walk was cut there.
 */
export const listSources = (
  files: FileAccess,
  path: Path.Path,
  root: string,
  extensions: ReadonlyArray<string>,
  maxEntries: number
): Effect.Effect<{ readonly files: ReadonlyArray<ListedFile>; readonly complete: boolean }> =>
  Effect.gen(function*() {
    const listed: Array<ListedFile> = []
    const { truncated } = yield* walk(files, path, root, maxEntries, (relative, size) => {
      if (extensions.includes(LspExtension.finalExtension(relative))) listed.push({ relative, size })
      return true
    })
    return { files: listed, complete: !truncated }
  })

/** What a walk for projects found: where their marker files are, and a file of each directory to open. */
export interface ProjectSurvey {
  /** Every marker file found, relative to the root, breadth first. */
  readonly markers: ReadonlyArray<string>
  /**
   * Of every directory, the first few files of `extensions` in it (sorted by name), relative to the root,
   * breadth first: a project is loaded by opening one of the files it includes (the first that can be read).
   */
  readonly files: ReadonlyArray<string>
  /** Whether the walk saw the whole workspace (false: it stopped at `maxEntries`). */
  readonly complete: boolean
}

/** How many files of a directory are candidates to load a project (one may be unreadable, binary, not UTF-8). */
const candidatesPerDirectory = 4

/** The marker files of a workspace's projects, and a few files per directory that could load one. */
export const findProjects = (
  files: FileAccess,
  path: Path.Path,
  root: string,
  markers: ReadonlyArray<string>,
  extensions: ReadonlyArray<string>,
  maxEntries: number
): Effect.Effect<ProjectSurvey> =>
  Effect.gen(function*() {
    const found: Array<string> = []
    const candidates = new Map<string, Array<string>>()
    const { truncated } = yield* walk(files, path, root, maxEntries, (relative) => {
      if (markers.includes(path.basename(relative))) found.push(relative)
      const directory = path.dirname(relative)
      const here = candidates.get(directory) ?? []
      if (extensions.includes(LspExtension.finalExtension(relative)) && here.length < candidatesPerDirectory) {
        candidates.set(directory, [...here, relative])
      }
      return true
    })
    // Maps keep insertion order: the walk's breadth-first order.
    return { markers: found, files: [...candidates.values()].flat(), complete: !truncated }
  })
