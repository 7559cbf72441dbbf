/**
 * File extensions as the seam understands them: how a path's extension is found, and how a provider's
 * extension keys are normalised and checked.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"

/**
 * The final extension of a path, lower-cased, used for routing. The basename is the text after the last
 * `/` or `\` on every platform. No dot, or only a leading dot (a dotfile such as `.bashrc`), gives `""`;
 * otherwise the text from the last dot: `Foo.TS` → `.ts`, `foo.d.ts` → `.ts`, `foo.` → `.`.
 *
 * @since 0.1.0
 * @category utils
 */
export const finalExtension = (path: string): string => {
  const basename = path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1)
  const dot = basename.lastIndexOf(".")
  return dot <= 0 ? "" : basename.slice(dot).toLowerCase()
}

/**
 * Normalises a provider's extension key: lower-cased, with a leading dot added when missing. The result
 * must be a dot followed by one or more characters, none of which is `.`, `/` or `\`; otherwise the
 * reason is returned on the left.
 *
 * @since 0.1.0
 * @category utils
 */
export const normalizeExtensionKey = (key: string): Either.Either<string, string> => {
  const lowered = key.toLowerCase()
  const normalized = lowered.startsWith(".") ? lowered : `.${lowered}`
  return /^\.[^./\\]+$/.test(normalized)
    ? Either.right(normalized)
    : Either.left(
      `extension ${JSON.stringify(key)} is not a single extension: use one dot followed by characters ` +
        "other than '.', '/' and '\\' (for example \".ts\" or \"ts\")"
    )
}
