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

/**
 * One key of an extension map after `checkExtensionKeys`: `Valid` with its normalised extension, `Invalid`
 * with the reason `normalizeExtensionKey` gives, or `Duplicate` when an earlier key of the same map already
 * normalised to that extension (`previous` is that key).
 *
 * @since 0.1.0
 * @category models
 */
export type CheckedKey =
  | { readonly _tag: "Valid"; readonly key: string; readonly extension: string }
  | { readonly _tag: "Invalid"; readonly key: string; readonly reason: string }
  | { readonly _tag: "Duplicate"; readonly key: string; readonly extension: string; readonly previous: string }

/**
 * Checks the keys of one extension map, in order, by the seam's rule: each key is normalised with
 * `normalizeExtensionKey`, and a key whose extension an earlier key already has is a duplicate of it. The
 * map is acceptable when every key comes back `Valid`. The registry and the stdio host's configuration both
 * judge maps with this, so a map the configuration accepts is one the registry accepts.
 *
 * @since 0.1.0
 * @category utils
 */
export const checkExtensionKeys = (keys: Iterable<string>): ReadonlyArray<CheckedKey> => {
  const owners = new Map<string, string>()
  const checked: Array<CheckedKey> = []
  for (const key of keys) {
    const normalized = normalizeExtensionKey(key)
    if (Either.isLeft(normalized)) {
      checked.push({ _tag: "Invalid", key, reason: normalized.left })
      continue
    }
    const extension = normalized.right
    const previous = owners.get(extension)
    if (previous === undefined) {
      owners.set(extension, key)
      checked.push({ _tag: "Valid", key, extension })
    } else {
      checked.push({ _tag: "Duplicate", key, extension, previous })
    }
  }
  return checked
}
