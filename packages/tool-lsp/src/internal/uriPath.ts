/**
 * `file:` URI → display path, as pure string logic. A URI is rendered in its own world (POSIX, Windows
 * drive, UNC), never by the host's path rules, so a Linux host shows a Windows server's results correctly
 * and vice versa. Anything that cannot be mapped to a path safely is shown verbatim.
 */

/** Where a path lives; roots compare by kind, drive letters and hosts case-insensitively. */
export type World =
  | { readonly _tag: "Posix" }
  | { readonly _tag: "Drive"; readonly letter: string }
  | { readonly _tag: "Unc"; readonly host: string }

/** A decoded absolute path: root plus non-empty segments, none of which is `.` or `..`. */
export interface FilePath {
  readonly world: World
  readonly segments: ReadonlyArray<string>
  readonly trailingSlash: boolean
}

const controlCharacter = /[\u0000-\u001f\u007f]/

const controlCharacters = /[\u0000-\u001f\u007f]/g
const fileScheme = /^file:/i
const hostName = /^[A-Za-z0-9._-]+$/
const driveSegment = /^[A-Za-z]:$/
const encodedSlash = /%2f/i

const decodeSegment = (raw: string): string | undefined => {
  // An encoded "/" inside a segment would change the path's structure once decoded.
  if (encodedSlash.test(raw)) return undefined
  let decoded: string
  try {
    decoded = decodeURIComponent(raw)
  } catch {
    return undefined
  }
  // Control characters (NUL, newlines) could break the line-per-location rendering or name no real file.
  if (decoded === "" || decoded === "." || decoded === ".." || controlCharacter.test(decoded)) return undefined
  return decoded
}

/**
 * Parses a `file:` URI into a path in its own world, or `undefined` when it is not a `file:` URI or cannot
 * be decoded safely (malformed or NUL-bearing escapes, query or fragment, dot or empty segments, encoded
 * separators, an authority with a port or user).
 */
export const parseFileUri = (uri: string): FilePath | undefined => {
  if (!fileScheme.test(uri) || controlCharacter.test(uri)) return undefined
  const rest = uri.slice("file:".length)
  if (rest.includes("?") || rest.includes("#")) return undefined
  let authority = ""
  let path: string
  if (rest.startsWith("//")) {
    const slash = rest.indexOf("/", 2)
    authority = slash === -1 ? rest.slice(2) : rest.slice(2, slash)
    path = slash === -1 ? "" : rest.slice(slash)
  } else {
    path = rest
  }
  if (!path.startsWith("/")) return undefined
  const local = authority === "" || authority.toLowerCase() === "localhost"
  if (!local && !hostName.test(authority)) return undefined

  const raw = path.slice(1).split("/")
  const trailingSlash = raw.length > 0 && raw[raw.length - 1] === ""
  if (trailingSlash) raw.pop()
  const segments: Array<string> = []
  for (const part of raw) {
    const decoded = decodeSegment(part)
    if (decoded === undefined) return undefined
    segments.push(decoded)
  }

  if (local && segments.length > 0 && driveSegment.test(segments[0]!)) {
    const rest = segments.slice(1)
    // On Windows a backslash is a separator: a decoded one would forge structure the URI does not have.
    if (rest.some((segment) => segment.includes("\\"))) return undefined
    return { world: { _tag: "Drive", letter: segments[0]!.slice(0, 1) }, segments: rest, trailingSlash }
  }
  if (!local) {
    if (segments.length === 0 || segments.some((segment) => segment.includes("\\"))) return undefined
    return { world: { _tag: "Unc", host: authority }, segments, trailingSlash }
  }
  return { world: { _tag: "Posix" }, segments, trailingSlash }
}

const separator = (world: World): string => world._tag === "Posix" ? "/" : "\\"

const sameRoot = (a: World, b: World): boolean => {
  switch (a._tag) {
    case "Posix":
      return b._tag === "Posix"
    case "Drive":
      return b._tag === "Drive" && a.letter.toLowerCase() === b.letter.toLowerCase()
    case "Unc":
      return b._tag === "Unc" && a.host.toLowerCase() === b.host.toLowerCase()
  }
}

const rootText = (world: World): string => {
  switch (world._tag) {
    case "Posix":
      return "/"
    case "Drive":
      return `${world.letter}:\\`
    case "Unc":
      return `\\\\${world.host}\\`
  }
}

/** The absolute path in the path's own world (`/a/b`, `C:\a\b`, `\\host\share\b`). */
export const absolute = (path: FilePath): string => {
  const sep = separator(path.world)
  const body = path.segments.join(sep)
  return rootText(path.world) + body + (path.trailingSlash && body !== "" ? sep : "")
}

/**
 * `path` relative to `base` when it is `base` itself (`.`) or inside it, by whole segments (so `/w/..foo`
 * is inside `/w`, and `/wx` is not); `undefined` otherwise.
 */
export const relative = (path: FilePath, base: FilePath): string | undefined => {
  if (!sameRoot(path.world, base.world) || path.segments.length < base.segments.length) return undefined
  for (let i = 0; i < base.segments.length; i++) {
    if (path.segments[i] !== base.segments[i]) return undefined
  }
  const rest = path.segments.slice(base.segments.length)
  if (rest.length === 0) return "."
  const sep = separator(path.world)
  return rest.join(sep) + (path.trailingSlash ? sep : "")
}

/**
 * A URI shown as is, except that control characters (invalid in a URI anyway) are percent-encoded so one
 * location always stays on one line.
 */
export const verbatim = (uri: string): string =>
  controlCharacter.test(uri)
    ? uri.replace(controlCharacters, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`)
    : uri

/**
 * Renders `uri` for a reader: relative to the workspace when inside it, absolute in its own world when
 * outside, verbatim when it is not a decodable `file:` URI or the workspace is not one.
 */
export const render = (uri: string, workspaceUri: string): string => {
  const base = parseFileUri(workspaceUri)
  if (base === undefined) return verbatim(uri)
  const path = parseFileUri(uri)
  if (path === undefined) return verbatim(uri)
  return relative(path, base) ?? absolute(path)
}
