/**
 * `file:` URIs from paths and back, through the platform's own conversion (which percent-encodes spaces,
 * `#`, `%`, `?` and non-ASCII correctly), never by string concatenation.
 */
import * as Path from "@effect/platform/Path"
import { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"

/**
 * The `file:` URI of an absolute path. A relative path is `LSP_INVALID_ARGUMENTS`: it would silently be
 * resolved against the host's working directory.
 */
export const fileUri = (absolutePath: string): Effect.Effect<string, LspError.LspLocalError, Path.Path> =>
  Effect.flatMap(Path.Path, (path) => fileUriWith(path, absolutePath))

/** `fileUri` with the `Path` service given. */
export const fileUriWith = (path: Path.Path, absolutePath: string): Effect.Effect<string, LspError.LspLocalError> =>
  path.isAbsolute(absolutePath)
    ? Effect.map(
      Effect.mapError(
        path.toFileUrl(absolutePath),
        (error) =>
          LspError.invalidArguments(`Cannot make a file URI from ${JSON.stringify(absolutePath)}: ${error.message}`)
      ),
      (url) => url.href
    )
    : LspError.invalidArguments(
      `Cannot make a file URI from ${JSON.stringify(absolutePath)}: the path is not absolute.`
    )

/**
 * The absolute path of a `file:` URI. Anything else (another scheme, an unparsable URI, a URI the platform
 * cannot map to a path) is `LSP_INVALID_ARGUMENTS`.
 */
export const uriToPath = (uri: string): Effect.Effect<string, LspError.LspLocalError, Path.Path> =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const url = URL.canParse(uri) ? new URL(uri) : undefined
    if (url === undefined || url.protocol !== "file:") {
      return yield* LspError.invalidArguments(`${JSON.stringify(uri)} is not a file: URI.`)
    }
    return yield* path.fromFileUrl(url).pipe(
      Effect.mapError((error) =>
        LspError.invalidArguments(`The file URI ${JSON.stringify(uri)} does not name a local path: ${error.message}`)
      )
    )
  })
