/**
 * The directory of a Unix socket, checked before anything is put in it. The per-user default one has a name
 * other users can predict, so `serve` and the `--remote auto` client (which keeps its daemon's lock, log and
 * configuration there) both run this one check, and refuse the same directories in the same words.
 *
 * @since 0.1.0
 */
import { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as LspRemoteAddress from "./LspRemoteAddress.js"

const modeOf = (stats: Fs.Stats) => (stats.mode & 0o7777).toString(8)

const errnoOf = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
    ? cause.code
    : undefined

/** Writable by group or others without the sticky bit: they could rename or replace what is in it. */
const openToOthers = (stats: Fs.Stats) => (stats.mode & 0o022) !== 0 && (stats.mode & 0o1000) === 0

/**
 * Why another user could change what `directory`'s path leads to, if one could: a directory on the way (as
 * written, following links, and on its real path) that is theirs or that they may write to without the sticky
 * bit, or a symbolic link on the way that is theirs. Root's directories and a sticky `/tmp` are fine.
 */
const unsafeWay = (directory: string, uid: number): string | undefined => {
  const root = Path.parse(directory).root
  const written = directory.slice(root.length).split(Path.sep).filter((part) => part.length > 0)
    .map((_, i, parts) => Path.join(root, ...parts.slice(0, i + 1)))
  const real: Array<string> = []
  for (let current = Fs.realpathSync(directory);; current = Path.dirname(current)) {
    real.push(current)
    if (current === Path.dirname(current)) break
  }
  for (const path of [root, ...written, ...real]) {
    const link = Fs.lstatSync(path)
    if (link.isSymbolicLink() && link.uid !== uid && link.uid !== 0) {
      return `the symbolic link "${path}" on its way belongs to another user (uid ${link.uid})`
    }
    const stats = Fs.statSync(path)
    if (stats.uid !== uid && stats.uid !== 0) {
      return `"${path}", on its way, belongs to another user (uid ${stats.uid})`
    }
    if (openToOthers(stats)) {
      return `"${path}", on its way, is writable by other users without the sticky bit (mode ${modeOf(stats)})`
    }
  }
  return undefined
}

interface Refusal {
  readonly why: string
  readonly fix: string
}

/** What is wrong with the directory itself, by the rule of a private (`strict`) or a named directory. */
const refusalOf = (stats: Fs.Stats, directory: string, uid: number | undefined, strict: boolean) => {
  const elsewhere = strict
    ? "or set XDG_RUNTIME_DIR to a directory only you can write to (lsp-seam uses its lsp-seam subdirectory)."
    : "or give a socket path in a directory only you can write to."
  if (stats.isSymbolicLink() || !stats.isDirectory()) {
    return {
      why: "is not a directory (or is a symbolic link)",
      fix: `Remove it (rm "${directory}") if you made it, ${elsewhere}`
    } satisfies Refusal
  }
  if (uid === undefined) return undefined
  if (stats.uid !== uid && (strict || stats.uid !== 0)) {
    return {
      why: `belongs to another user (uid ${stats.uid}), who could read and replace what lsp-seam puts there`,
      fix: `Have it removed, ${elsewhere}`
    } satisfies Refusal
  }
  if (strict && (stats.mode & 0o022) !== 0) {
    return {
      why: `is writable by other users (mode ${modeOf(stats)}), who could replace what lsp-seam puts there`,
      fix: `Make it private (chmod 700 "${directory}"), ${elsewhere}`
    } satisfies Refusal
  }
  if (!strict && openToOthers(stats)) {
    return {
      why: `is writable by other users without the sticky bit (mode ${modeOf(stats)}): they could replace the socket`,
      fix: "Use a directory only you can write to, or one with the sticky bit."
    } satisfies Refusal
  }
  return undefined
}

/**
 * Makes sure `directory` may hold lsp-seam's socket before anything is put in it, creating it (mode 0700, the
 * last component alone, never through an existing one) when missing. The per-user default directory
 * (`LspRemoteAddress.defaultSocketDirectory(env)`, where `--remote auto` also keeps its daemon's lock, log and
 * configuration) must be private: a directory, not a symbolic link, owned by the user, writable by no one
 * else, on a way no other user can change (their directories or links, or directories they may write to
 * without the sticky bit; `/tmp` is fine). A directory given by the user (`serve --socket PATH`) may also be root's or shared with the sticky
 * bit: only the socket goes there. Anything else is `LSP_INVALID_CONFIG` naming the directory and what to do,
 * with nothing created or written in it. `serve` and the `--remote auto` client both check here: they accept
 * and refuse the same directories with the same message.
 *
 * @since 0.1.0
 * @category constructors
 */
export const ensure = (
  directory: string,
  env: NodeJS.ProcessEnv = process.env
): Effect.Effect<void, LspError.LspConfigurationError> =>
  Effect.suspend(() => {
    const resolved = Path.resolve(directory)
    const strict = resolved === Path.resolve(LspRemoteAddress.defaultSocketDirectory(env))
    const uid = process.getuid?.()
    const refuse = (why: string, fix: string) =>
      Effect.fail(LspError.invalidConfig(
        `The lsp-seam socket directory "${resolved}" ${why}; nothing was created or written in it. ${fix}`,
        { directory: resolved }
      ))
    try {
      Fs.mkdirSync(Path.dirname(resolved), { recursive: true, mode: 0o700 })
      const way = strict && uid !== undefined ? unsafeWay(Path.dirname(resolved), uid) : undefined
      if (way !== undefined) {
        return refuse(
          `cannot be trusted: ${way}, who could swap it`,
          "Set XDG_RUNTIME_DIR to a directory only you can write to (lsp-seam uses its lsp-seam subdirectory)."
        )
      }
      try {
        Fs.mkdirSync(resolved, { mode: 0o700 })
      } catch (cause) {
        // Made meanwhile, by this user or another: either way it is judged below, by what it is now.
        if (errnoOf(cause) !== "EEXIST") throw cause
      }
      const refusal = refusalOf(Fs.lstatSync(resolved), resolved, uid, strict)
      return refusal === undefined ? Effect.void : refuse(refusal.why, refusal.fix)
    } catch (cause) {
      return refuse(`cannot be created or inspected (${String(cause)})`, "Check the path and its permissions.")
    }
  })
