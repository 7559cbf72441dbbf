/**
 * `--remote auto|PATH|URL`: which host a command's queries go to, the token a URL needs (`--token-file F`,
 * else `LSP_SEAM_TOKEN`), and the `LspService` answered by that host. `auto` is the per-user daemon of the
 * command's configuration, started when none runs and again when it has gone (`daemon.ts`, `daemonSession.ts`).
 */
import { LspError, type LspService } from "@lsp-seam/lsp"
import type { LspRemoteClient } from "@lsp-seam/lsp-remote"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import type * as DaemonIdentity from "./daemonIdentity.js"
import * as DaemonSession from "./daemonSession.js"
import * as RemoteModules from "./remoteModules.js"

export type Remote =
  | { readonly _tag: "Auto" }
  | { readonly _tag: "Socket"; readonly path: string }
  | { readonly _tag: "WebSocket"; readonly url: string }

/** The environment variable a client reads its token from when no `--token-file` is given. */
export const tokenVariable = "LSP_SEAM_TOKEN"

/**
 * `auto`; a URL `http://HOST:PORT` or `ws://HOST:PORT` (`https`/`wss` too; the path defaults to the host's
 * WebSocket path); anything else is a socket path, relative to the current directory. A `Left` is a usage
 * mistake.
 */
export const parse = (text: string): Either.Either<Remote, string> => {
  if (text === "auto") return Either.right({ _tag: "Auto" })
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)
  if (scheme === null) {
    return text.length === 0
      ? Either.left("--remote needs auto, a socket path or a URL (http(s)://HOST:PORT or ws(s)://HOST:PORT).")
      : Either.right({ _tag: "Socket", path: NodePath.resolve(text) })
  }
  const protocol = scheme[1]!.toLowerCase()
  const ws = protocol === "http" || protocol === "ws"
    ? "ws:"
    : protocol === "https" || protocol === "wss"
    ? "wss:"
    : null
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return Either.left(`--remote ${text}: not a valid URL.`)
  }
  if (ws === null || url.port === "" && protocol !== "https" && protocol !== "wss") {
    return Either.left(`--remote ${text}: a URL must be http(s)://HOST:PORT or ws(s)://HOST:PORT.`)
  }
  url.protocol = ws
  // Without a path, the host's WebSocket path (LspRemoteAddress.webSocketPath).
  if (url.pathname === "" || url.pathname === "/") url.pathname = "/lsp-seam"
  return Either.right({ _tag: "WebSocket", url: url.href })
}

export interface TokenOptions {
  readonly tokenFile?: string | undefined
  /** A token given directly (the Promise client and `LspSeam.layer`). */
  readonly token?: string | undefined
  /** PEM certificates to trust for a `wss://` host instead of the system's (`--ca-file`). */
  readonly caFile?: string | undefined
}

/** The CA certificates of `--ca-file`, when given: a readable PEM file, else `LSP_INVALID_CONFIG`. */
export const resolveCa = (options: TokenOptions): Effect.Effect<string | undefined, LspError.LspConfigurationError> =>
  options.caFile === undefined ? Effect.succeed(undefined) : Effect.try({
    try: () => {
      const text = Fs.readFileSync(NodePath.resolve(options.caFile!), "utf8")
      if (!text.includes("-----BEGIN CERTIFICATE-----")) throw new Error("it holds no PEM certificate")
      return text
    },
    catch: (cause) =>
      LspError.invalidConfig(
        `Cannot use the CA file "${options.caFile}": ${cause instanceof Error ? cause.message : String(cause)}.`,
        { path: options.caFile }
      )
  })

/** The WebSocket transport of `url`: its token and, for `--ca-file`, the CA it trusts. */
export const webSocketTransport = (url: string, options: TokenOptions) =>
  Effect.gen(function*() {
    const { Client } = yield* RemoteModules.load
    const token = yield* resolveToken(url, options)
    const ca = yield* resolveCa(options)
    return Client.webSocket(url, token, { ca })
  })

/** The client's token: `token`, else `--token-file`, else `LSP_SEAM_TOKEN`; none is `LSP_REMOTE_UNAUTHORIZED`. */
export const resolveToken = (
  url: string,
  options: TokenOptions
): Effect.Effect<Redacted.Redacted<string>, LspError.LspConfigurationError | LspError.LspRemoteError> =>
  Effect.flatMap(RemoteModules.load, ({ Auth }): Effect.Effect<
    Redacted.Redacted<string>,
    LspError.LspConfigurationError | LspError.LspRemoteError
  > => {
    if (options.token !== undefined) return Auth.make(options.token)
    if (options.tokenFile !== undefined) return Auth.fromFile(NodePath.resolve(options.tokenFile))
    const value = process.env[tokenVariable]
    return value === undefined || value.trim() === ""
      ? LspError.remoteUnauthorized(
        `The lsp-seam host at ${url} needs a token: pass --token-file F or set ${tokenVariable}.`,
        { address: url }
      )
      : Auth.fromEnv(tokenVariable)
  })

export interface LayerOptions extends TokenOptions {
  /** For `auto`: the configuration the daemon must run. */
  readonly source: DaemonIdentity.ConfigSource
}

/**
 * The `LspService` answered by the host. It greets the host while it is built, so an unreachable host, a
 * refused token or (for `auto`) a host of another version or configuration fails here, before any query.
 */
export const layer = (
  remote: Remote,
  options: LayerOptions
): Layer.Layer<
  LspService.LspService | LspRemoteClient.LspRemoteClient,
  LspError.LspConfigurationError | LspError.LspRemoteError
> =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const { Client: LspRemoteClient } = yield* RemoteModules.load
    switch (remote._tag) {
      case "Socket":
        return LspRemoteClient.layer({ transport: LspRemoteClient.socket(remote.path), expect: {} })
      case "WebSocket":
        return LspRemoteClient.layer({ transport: yield* webSocketTransport(remote.url, options), expect: {} })
      case "Auto":
        return DaemonSession.layer(options.source)
    }
  }))
