/**
 * `file:` URI → display path, as pure string logic. The workspace URI decides the world (POSIX or Windows)
 * paths are shown in, never the host's path rules, so a Linux host shows a Windows server's results correctly
 * and vice versa. Anything that cannot be mapped to a path safely is shown verbatim.
 */

/**
 * The path rules a URI is read with: `Windows` (drive letters and UNC hosts, case-insensitive names, `\`
 * a separator) or `Posix` (case-sensitive names, `\` an ordinary character).
 *
 * @since 0.1.0
 * @category models
 */
export type World = "Posix" | "Windows"

/**
 * Where an absolute path starts: `/` in the POSIX world, a drive letter or a UNC host in the Windows world.
 * Drive letters and hosts are kept as the URI writes them.
 *
 * @since 0.1.0
 * @category models
 */
export type Root =
  | { readonly _tag: "Posix" }
  | { readonly _tag: "Drive"; readonly letter: string }
  | { readonly _tag: "Unc"; readonly host: string }

/**
 * A decoded absolute path: root plus non-empty segments, none of which is `.` or `..`.
 *
 * @since 0.1.0
 * @category models
 */
export interface FilePath {
  readonly root: Root
  readonly segments: ReadonlyArray<string>
  readonly trailingSlash: boolean
}

const controlCharacter = /[\u0000-\u001f\u007f]/
const controlCharacters = /[\u0000-\u001f\u007f]/g
const fileScheme = /^file:/i
const hostName = /^[A-Za-z0-9._-]+$/
const drivePrefix = /^\/[A-Za-z](?::|%3a)/i
const driveSegment = /^[A-Za-z](?::|%3a)$/i
const encodedSlash = /%2f/i

interface Parts {
  readonly host: string
  readonly path: string
}

// The host ("" for none or localhost) and path of a `file:` URI, without decoding anything.
const split = (uri: string): Parts | undefined => {
  if (!fileScheme.test(uri)) return undefined
  const rest = uri.slice("file:".length)
  if (!rest.startsWith("//")) return { host: "", path: rest }
  const slash = rest.indexOf("/", 2)
  const authority = slash === -1 ? rest.slice(2) : rest.slice(2, slash)
  return {
    host: authority.toLowerCase() === "localhost" ? "" : authority,
    path: slash === -1 ? "" : rest.slice(slash)
  }
}

/**
 * The world a URI claims on its own: `Windows` when it is a `file:` URI with a host (UNC) or a path starting
 * with `/<letter>:` or `/<letter>%3A` (any case), `Posix` otherwise. A workspace is in the world it claims.
 *
 * @since 0.1.0
 * @category worlds
 */
export const worldOf = (uri: string): World => {
  const parts = split(uri)
  return parts !== undefined && (parts.host !== "" || drivePrefix.test(parts.path)) ? "Windows" : "Posix"
}

/**
 * The world a location URI is read in: `Windows` only when the workspace is in the Windows world and the
 * URI too claims it (has a host or a drive); `Posix` otherwise.
 *
 * @since 0.1.0
 * @category worlds
 */
export const targetWorld = (uri: string, workspaceWorld: World): World =>
  workspaceWorld === "Windows" ? worldOf(uri) : "Posix"

const decodeSegment = (raw: string, world: World): string | undefined => {
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
  // In the Windows world a backslash is a separator: a decoded one would forge structure the URI does not have.
  if (world === "Windows" && decoded.includes("\\")) return undefined
  return decoded
}

/**
 * Converts a `file:` URI into a path of `world`, or `undefined` when it cannot be converted safely: not a
 * `file:` URI, malformed or control-character escapes, a query or fragment, dot or empty segments, an
 * encoded `/` (or any `\` in the Windows world), an authority with a port or user, a host in the POSIX
 * world, or a Windows path with neither a host nor a drive (`file:///C:foo` names no drive root).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseFileUri = (uri: string, world: World): FilePath | undefined => {
  const parts = split(uri)
  if (parts === undefined || controlCharacter.test(uri)) return undefined
  const { host, path } = parts
  if (path.includes("?") || path.includes("#") || !path.startsWith("/")) return undefined
  if (host !== "" && (world === "Posix" || !hostName.test(host))) return undefined

  const raw = path.slice(1).split("/")
  const trailingSlash = raw[raw.length - 1] === ""
  if (trailingSlash) raw.pop()
  let root: Root = { _tag: "Posix" }
  if (host !== "") {
    root = { _tag: "Unc", host }
  } else if (world === "Windows") {
    if (raw.length === 0 || !driveSegment.test(raw[0]!)) return undefined
    root = { _tag: "Drive", letter: raw.shift()!.slice(0, 1) }
  }
  const segments: Array<string> = []
  for (const part of raw) {
    const decoded = decodeSegment(part, world)
    if (decoded === undefined) return undefined
    segments.push(decoded)
  }
  return { root, segments, trailingSlash }
}

/**
 * The world a path belongs to, by its root.
 *
 * @since 0.1.0
 * @category worlds
 */
export const worldOfPath = (path: FilePath): World => path.root._tag === "Posix" ? "Posix" : "Windows"

const rootText = (root: Root): string => {
  switch (root._tag) {
    case "Posix":
      return "/"
    case "Drive":
      return `${root.letter}:/`
    case "Unc":
      return `//${root.host}/`
  }
}

/**
 * The absolute path, with `/` as the separator in both worlds (`/a/b`, `C:/a/b`, `//host/share/b`).
 *
 * @since 0.1.0
 * @category rendering
 */
export const absolute = (path: FilePath): string => {
  const body = path.segments.join("/")
  return rootText(path.root) + body + (path.trailingSlash && body !== "" ? "/" : "")
}

const sameRoot = (a: Root, b: Root): boolean => {
  switch (a._tag) {
    case "Posix":
      return b._tag === "Posix"
    case "Drive":
      return b._tag === "Drive" && a.letter.toLowerCase() === b.letter.toLowerCase()
    case "Unc":
      return b._tag === "Unc" && a.host.toLowerCase() === b.host.toLowerCase()
  }
}

/**
 * `path` relative to `base` when it is `base` itself (`.`) or inside it, by whole segments (so `/w/..foo`
 * is inside `/w`, and `/wx` is not), compared case-insensitively in the Windows world; `undefined`
 * otherwise. The rest keeps `path`'s own spelling and uses `/` as the separator.
 *
 * @since 0.1.0
 * @category rendering
 */
export const relative = (path: FilePath, base: FilePath): string | undefined => {
  if (!sameRoot(path.root, base.root) || path.segments.length < base.segments.length) return undefined
  const fold = worldOfPath(base) === "Windows" ? (s: string) => s.toLowerCase() : (s: string) => s
  for (let i = 0; i < base.segments.length; i++) {
    if (fold(path.segments[i]!) !== fold(base.segments[i]!)) return undefined
  }
  const rest = path.segments.slice(base.segments.length)
  if (rest.length === 0) return "."
  return rest.join("/") + (path.trailingSlash ? "/" : "")
}

/**
 * A URI shown as is, except that control characters (invalid in a URI anyway) are percent-encoded so one
 * location always stays on one line.
 *
 * @since 0.1.0
 * @category rendering
 */
export const verbatim = (uri: string): string =>
  controlCharacter.test(uri)
    ? uri.replace(controlCharacters, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`)
    : uri

/**
 * Renders `uri` for a reader in the world of `workspaceUri`: verbatim when either side cannot be converted
 * in its world; the target's own absolute path when the two are in different worlds; otherwise relative to
 * the workspace when inside it (`.` for the workspace itself) and absolute when outside.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (uri: string, workspaceUri: string): string => place(uri, workspaceUri).text

/**
 * `render`, and whether the result is inside the workspace (shown relative to it). Verbatim URIs and paths
 * outside the workspace, or in another world, are not inside.
 *
 * @since 0.1.0
 * @category rendering
 */
export const place = (uri: string, workspaceUri: string): { readonly text: string; readonly inside: boolean } => {
  const world = worldOf(workspaceUri)
  const base = parseFileUri(workspaceUri, world)
  if (base === undefined) return { text: verbatim(uri), inside: false }
  const path = parseFileUri(uri, targetWorld(uri, world))
  if (path === undefined) return { text: verbatim(uri), inside: false }
  if (worldOfPath(path) !== world) return { text: absolute(path), inside: false }
  const inner = relative(path, base)
  return inner === undefined ? { text: absolute(path), inside: false } : { text: inner, inside: true }
}
