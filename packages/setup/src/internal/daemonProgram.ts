/**
 * The program `remote: "auto"` starts: `lsp-seam serve` of an installed `@lsp-seam/cli`. This package is a
 * library and does not depend on the command line; the daemon is found where Node would find
 * `@lsp-seam/cli` from here (beside this package in an application, or the command that depends on it). Its
 * version is part of the daemon's identity: a daemon of another `@lsp-seam/cli` is never used.
 */
import { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as NodePath from "node:path"

export interface Program {
  /** The command's entry point, run with this process's Node binary. */
  readonly bin: string
  /** The version of `@lsp-seam/cli` it belongs to. */
  readonly version: string
}

const read = (): Program | undefined => {
  let manifestPath: string
  try {
    manifestPath = createRequire(import.meta.url).resolve("@lsp-seam/cli/package.json")
  } catch {
    return undefined
  }
  try {
    const manifest: unknown = JSON.parse(Fs.readFileSync(manifestPath, "utf8"))
    if (typeof manifest !== "object" || manifest === null || !("version" in manifest) || !("bin" in manifest)) {
      return undefined
    }
    const { bin, version } = manifest
    const entry = typeof bin === "object" && bin !== null && "lsp-seam" in bin ? bin["lsp-seam"] : undefined
    return typeof entry === "string" && typeof version === "string"
      ? { bin: NodePath.resolve(NodePath.dirname(manifestPath), entry), version }
      : undefined
  } catch {
    return undefined
  }
}

let found: Program | undefined

/** The installed command, or `undefined` when `@lsp-seam/cli` cannot be found from here. */
export const findSync = (): Program | undefined => found ??= read()

/**
 * `findSync`, failing with `LSP_INVALID_CONFIG` (what to install) when there is no command to start. A function,
 * not a value: an Effect built when the module loads would keep the runtime in the command's bundled edge.
 */
export const find = (): Effect.Effect<Program, LspError.LspConfigurationError> => {
  const program = findSync()
  return program !== undefined ? Effect.succeed(program) : Effect.fail(LspError.invalidConfig(
    "remote: \"auto\" runs the per-user daemon, which is `lsp-seam serve` of @lsp-seam/cli, and @lsp-seam/cli " +
      "is not installed here. Install it (npm install @lsp-seam/cli), or give remote a socket path or a URL of " +
      "a host you started.",
    { package: "@lsp-seam/cli" }
  ))
}
