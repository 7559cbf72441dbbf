/**
 * The libraries as a user installs them: packed with `npm pack` from this repository, installed from their
 * tarballs into a fresh project beside `effect` and the `@effect/*` peers from the registry, pinned to the
 * versions this repository runs. Shared by the tests that compile a fresh project against them.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

/** The repository's root. */
export const root = NodePath.resolve(import.meta.dirname, "..", "..", "..", "..")

/** The TypeScript compiler this repository runs. */
export const tsc = NodePath.join(root, "node_modules", "typescript", "bin", "tsc")

// npm run as a user would, not as the workspace's npm: no npm_* settings inherited from a parent `npm test`.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith("npm_")))

/**
 * Runs a command to its end; fails with its output when it exits non-zero. `extraEnv` adds to (or replaces) the
 * environment's variables.
 */
export const run = (
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  extraEnv: Readonly<Record<string, string>> = {}
): Effect.Effect<string, Error> =>
  Effect.async<string, Error>((resume) => {
    const child = ChildProcess.execFile(
      command,
      args,
      { cwd, env: { ...env, ...extraEnv }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resume(
          error === null
            ? Effect.succeed(stdout)
            : Effect.fail(new Error(`${command} ${args.join(" ")} failed: ${error.message}\n${stdout}\n${stderr}`))
        )
      }
    )
    return Effect.sync(() => child.kill())
  })

const Manifest = Schema.Struct({
  version: Schema.String,
  peerDependencies: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
})

const manifest = (path: string) =>
  Schema.decodeUnknownSync(Schema.parseJson(Manifest))(NodeFs.readFileSync(NodePath.join(path, "package.json"), "utf8"))

/** The manifest of a package installed in this repository. */
export const installed = (name: string) => manifest(NodePath.join(root, "node_modules", name))

const isEffect = (name: string) => name === "effect" || name.startsWith("@effect/")

/**
 * `effect` and every `@effect/*` peer of the libraries, with the peers those peers ask for in turn (npm would
 * add them), each pinned to the version installed here.
 */
export const pinnedPeers = (libraries: ReadonlyArray<string>): ReadonlyArray<string> => {
  const seen = new Set<string>()
  const visit = (peers: Readonly<Record<string, string>> | undefined) => {
    for (const name of Object.keys(peers ?? {}).filter(isEffect)) {
      if (seen.has(name)) continue
      seen.add(name)
      visit(installed(name).peerDependencies)
    }
  }
  for (const library of libraries) visit(manifest(NodePath.join(root, "packages", library)).peerDependencies)
  return [...seen].sort().map((name) => `${name}@${installed(name).version}`)
}

const Packed = Schema.parseJson(Schema.Array(Schema.Struct({ filename: Schema.String })))

/** Packs the libraries (directories under packages/) into `dir`; the tarballs' paths. */
export const pack = (
  libraries: ReadonlyArray<string>,
  dir: string
): Effect.Effect<ReadonlyArray<string>, Error> =>
  Effect.map(
    run("npm", [
      "pack",
      "--json",
      "--pack-destination",
      dir,
      ...libraries.flatMap((name) => ["--workspace", `packages/${name}`])
    ], root),
    (stdout) => Schema.decodeUnknownSync(Packed)(stdout).map(({ filename }) => NodePath.join(dir, filename))
  )

/**
 * Installs packages into the project at `app` (its package.json written first). `ignoreScripts` skips install
 * scripts, such as native builds a project that only compiles does not need.
 */
export const install = (
  app: string,
  packages: ReadonlyArray<string>,
  options: { readonly ignoreScripts?: boolean } = {}
): Effect.Effect<string, Error> =>
  run("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    ...(options.ignoreScripts === true ? ["--ignore-scripts"] : []),
    ...packages
  ], app)
