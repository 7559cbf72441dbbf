/**
 * Loads the bundled fast path of `query … --remote …` (`remoteQuery.bundle.cjs`, made by
 * `scripts/bundleRemoteQuery.mjs`) with a V8 code cache beside it. A warm remote query spends most of its time
 * compiling and first running that one file; V8's cache of the compiled code (written after the first run,
 * reused while V8 accepts it) roughly halves that. Node 20 has no module compile cache, hence `vm.Script`.
 *
 * Only Node's built-in modules are imported here: this runs before anything else is loaded.
 */
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as Vm from "node:vm"

/** What the bundle exports (see the bundling script's entry). */
export interface Exports<Parsed> {
  readonly parse: (args: ReadonlyArray<string>) => Parsed | undefined
  readonly main: (parsed: Parsed) => Promise<boolean>
}

interface Manifest {
  /** The bundle's own size, mtime and content hash (sha256, made with it). */
  readonly bundle: readonly [number, number, string]
  /** Every input file (relative to dist/) with its size and mtime when the bundle was made. */
  readonly inputs: ReadonlyArray<readonly [string, number, number]>
}

const isEntry = (value: unknown): value is readonly [string, number, number] =>
  Array.isArray(value) && value.length === 3 && typeof value[0] === "string" && typeof value[1] === "number" &&
  typeof value[2] === "number"

// Checked by hand: Schema is among the modules this file exists to avoid loading.
const isManifest = (value: unknown): value is Manifest => {
  if (typeof value !== "object" || value === null || !("bundle" in value) || !("inputs" in value)) return false
  const { bundle, inputs } = value
  return Array.isArray(bundle) && bundle.length === 3 && typeof bundle[0] === "number" &&
    typeof bundle[1] === "number" && typeof bundle[2] === "string" && /^[0-9a-f]{64}$/.test(bundle[2]) &&
    Array.isArray(inputs) && inputs.every(isEntry)
}

const unchanged = (file: string, size: number, mtimeMs: number) => {
  const stats = Fs.statSync(file)
  return stats.size === size && stats.mtimeMs === mtimeMs
}

/**
 * The cache's name carries the bundle's content hash and V8's version: V8 itself checks only the source's
 * length and its own flags, so a rebuilt bundle of the same length must never meet the old cache.
 */
const cachePath = (bundle: string, hash: string) =>
  `${bundle}.${hash.slice(0, 16)}-${process.versions.v8}-${process.arch}.v8cache`

/** Writes the cache beside the bundle; a read-only installation simply goes without. */
const writeCache = (file: string, data: Buffer) => {
  const temporary = `${file}.${process.pid}.tmp`
  try {
    Fs.writeFileSync(temporary, data, { mode: 0o644 })
    Fs.renameSync(temporary, file)
  } catch {
    // No cache: the next run compiles again. Nothing half-written is left behind.
    try {
      Fs.rmSync(temporary, { force: true })
    } catch {
      // It runs at exit: nothing here may throw.
    }
  }
}

/**
 * The bundle's exports, or `undefined` when there is no bundle or it was made from other files than the ones
 * here now (after a `tsc -b`, for instance): then the caller loads the modules one by one, never stale code.
 * `atExit` schedules writing the cache (when there was none, or V8 refused it) for the end of the process.
 */
export const load = <Parsed>(
  dist: URL,
  atExit: (write: () => void) => void = (write) => process.once("exit", write),
  name: string = "remoteQuery"
): Exports<Parsed> | undefined => loadBundle<Exports<Parsed>>(dist, name, atExit)

/**
 * `load` for any bundle the bundling script makes: `<name>.bundle.cjs` with its manifest `<name>.bundle.json`
 * (the remote query's edge is `quickQuery`). Its exports are the bundle's entry's, as the script wrote it.
 */
export const loadBundle = <A>(
  dist: URL,
  name: string,
  atExit: (write: () => void) => void = (write) => process.once("exit", write)
): A | undefined => {
  const directory = fileURLToPath(dist)
  const bundle = Path.join(directory, `${name}.bundle.cjs`)
  let manifest: Manifest
  try {
    const read: unknown = JSON.parse(Fs.readFileSync(Path.join(directory, `${name}.bundle.json`), "utf8"))
    if (!isManifest(read) || !unchanged(bundle, read.bundle[0], read.bundle[1])) return undefined
    for (const [file, size, mtimeMs] of read.inputs) {
      if (!unchanged(Path.join(directory, file), size, mtimeMs)) return undefined
    }
    manifest = read
  } catch {
    return undefined
  }
  const source = Fs.readFileSync(bundle, "utf8")
  const cacheFile = cachePath(bundle, manifest.bundle[2])
  let cachedData: Buffer | undefined
  try {
    cachedData = Fs.readFileSync(cacheFile)
  } catch {
    cachedData = undefined
  }
  const script = new Vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    ...(cachedData === undefined ? {} : { cachedData }),
    importModuleDynamically: Vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
  })
  // The cache is made at exit, so that it holds every function the query ran, not only the top level.
  if (cachedData === undefined || script.cachedDataRejected === true) {
    atExit(() => writeCache(cacheFile, script.createCachedData()))
  }
  // The bundle's exports are what its entry (written by the bundling script beside it) exports.
  const module = { exports: {} as A }
  ;(script.runInThisContext() as (...args: ReadonlyArray<unknown>) => void)(
    module.exports,
    createRequire(bundle),
    module,
    bundle,
    directory
  )
  return module.exports
}
