/**
 * Which lsp-seam host a `remote` option names: `"auto"` (the per-user daemon, `LspDaemon`), a Unix socket path,
 * or an `http(s)://HOST:PORT` / `ws(s)://HOST:PORT` URL. `LspSeam.layer({ remote })` and the command's `--remote`
 * both read it here; `LspRemoteConnection` reaches the host it names.
 *
 * @since 0.1.0
 */
import type * as Either from "effect/Either"
import * as RemoteTarget from "./internal/remoteTarget.js"

/**
 * A parsed `remote`: the per-user daemon, a socket (an absolute path) or a WebSocket URL (`ws:`/`wss:`, with
 * the host's path).
 *
 * @since 0.1.0
 * @category models
 */
export type { Remote } from "./internal/remoteTarget.js"

/**
 * The environment variable a client reads its token from when it is given neither a token nor a token file.
 *
 * @since 0.1.0
 * @category constants
 */
export const tokenVariable: string = RemoteTarget.tokenVariable

/**
 * Reads `"auto"`, an `http(s)://HOST:PORT` or `ws(s)://HOST:PORT` URL (the WebSocket path defaults to the host's),
 * or a socket path (resolved against the current directory). A `Left` says what is wrong with the text.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse: (text: string) => Either.Either<RemoteTarget.Remote, string> = RemoteTarget.parse
