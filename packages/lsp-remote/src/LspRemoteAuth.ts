/**
 * Bearer tokens for the TCP (WebSocket) transport: where a token comes from (a file readable by its owner
 * only, or an environment variable), how a fresh one is made, and how a presented one is checked (in
 * constant time, before the RPC protocol sees a byte).
 *
 * @since 0.1.0
 */
import { LspError } from "@lsp-seam/lsp"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"

/**
 * A token's text: 16 to 1024 characters from `A-Z a-z 0-9 . _ ~ -` (safe in an HTTP header and in a
 * WebSocket subprotocol, where the client carries it).
 *
 * @since 0.1.0
 * @category models
 */
export const Token = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9._~-]{16,1024}$/, {
    message: () => "a token is 16 to 1024 characters from A-Z, a-z, 0-9, '.', '_', '~' and '-'"
  })
)

/**
 * The WebSocket subprotocol of this wire contract. A client offers it (and the server selects it) on every
 * connection.
 *
 * @since 0.1.0
 * @category constants
 */
export const subprotocol = "lsp-seam.rpc.v1"

/**
 * Prefix of the second subprotocol a client offers to carry its token (WebSocket clients cannot always set
 * an `Authorization` header). The server never echoes it.
 *
 * @since 0.1.0
 * @category constants
 */
export const bearerSubprotocolPrefix = "lsp-seam.bearer."

const decodeToken = Schema.decodeUnknownEither(Token)

const checked = (
  text: string,
  source: string
): Either.Either<Redacted.Redacted<string>, LspError.LspConfigurationError> =>
  Either.mapBoth(decodeToken(text), {
    onLeft: (error) =>
      LspError.invalidConfig(
        `The token from ${source} is invalid: ${ParseResult.TreeFormatter.formatErrorSync(error)}.`,
        { source }
      ),
    onRight: (token) => Redacted.make(token)
  })

/**
 * Checks a token given directly (for example by a test or an embedding program).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (token: string): Either.Either<Redacted.Redacted<string>, LspError.LspConfigurationError> =>
  checked(token, "the caller")

/**
 * A fresh random token: 32 bytes from the operating system's CSPRNG, base64url-encoded.
 *
 * @since 0.1.0
 * @category constructors
 */
export const generate: Effect.Effect<Redacted.Redacted<string>> = Effect.sync(() =>
  Redacted.make(Crypto.randomBytes(32).toString("base64url"))
)

const ownerOnly = (stats: Fs.Stats): boolean =>
  (stats.mode & 0o077) === 0 && (process.getuid === undefined || stats.uid === process.getuid())

/**
 * Reads a token from a file. The file must be a regular file owned by the current user and not readable or
 * writable by anyone else (mode 0600 or stricter), like an SSH key; surrounding whitespace is ignored.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromFile = (path: string): Effect.Effect<Redacted.Redacted<string>, LspError.LspConfigurationError> =>
  Effect.gen(function*() {
    const text = yield* Effect.try({
      try: () => {
        const fd = Fs.openSync(path, Fs.constants.O_RDONLY | Fs.constants.O_NOFOLLOW)
        try {
          const stats = Fs.fstatSync(fd)
          if (!stats.isFile()) return Either.left("it is not a regular file")
          if (!ownerOnly(stats)) {
            return Either.left("it is accessible to other users (make it yours with mode 0600)")
          }
          if (stats.size > 4096) return Either.left("it is larger than 4096 bytes")
          return Either.right(Fs.readFileSync(fd, "utf8"))
        } finally {
          Fs.closeSync(fd)
        }
      },
      catch: (cause) => LspError.invalidConfig(`Cannot read the token file "${path}": ${String(cause)}.`, { path })
    })
    if (Either.isLeft(text)) {
      return yield* LspError.invalidConfig(`Refusing the token file "${path}": ${text.left}.`, { path })
    }
    return yield* checked(text.right.trim(), `the file "${path}"`)
  })

/**
 * Reads a token from an environment variable (through Effect's `ConfigProvider`, so tests can supply one).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromEnv = (name: string): Effect.Effect<Redacted.Redacted<string>, LspError.LspConfigurationError> =>
  Config.string(name).pipe(
    Effect.mapError(() =>
      LspError.invalidConfig(`The environment variable ${name} holds no token.`, { variable: name })
    ),
    Effect.flatMap((text) => checked(text.trim(), `the environment variable ${name}`))
  )

/**
 * Writes `token` to a new file readable by its owner only (mode 0600). Fails if the file exists.
 *
 * @since 0.1.0
 * @category utils
 */
export const writeFile = (
  path: string,
  token: Redacted.Redacted<string>
): Effect.Effect<void, LspError.LspConfigurationError> =>
  Effect.try({
    try: () => Fs.writeFileSync(path, `${Redacted.value(token)}\n`, { mode: 0o600, flag: "wx" }),
    catch: (cause) => LspError.invalidConfig(`Cannot write the token file "${path}": ${String(cause)}.`, { path })
  })

const digest = (text: string): Buffer => Crypto.createHash("sha256").update(text, "utf8").digest()

/**
 * True when `candidate` is the expected token. Both sides are hashed to equal-length digests first and
 * compared with `timingSafeEqual`, so the time taken says nothing about the token.
 *
 * @since 0.1.0
 * @category utils
 */
export const matches = (expected: Redacted.Redacted<string>, candidate: string): boolean =>
  Crypto.timingSafeEqual(digest(Redacted.value(expected)), digest(candidate))

/**
 * The tokens a WebSocket upgrade request presents: an `Authorization: Bearer …` header and any
 * `lsp-seam.bearer.…` subprotocol.
 *
 * @since 0.1.0
 * @category utils
 */
export const presented = (headers: {
  readonly authorization?: string | undefined
  readonly "sec-websocket-protocol"?: string | undefined
}): ReadonlyArray<string> => {
  const found: Array<string> = []
  const authorization = headers.authorization
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    if (match !== null) found.push(match[1]!)
  }
  const protocols = headers["sec-websocket-protocol"]
  if (protocols !== undefined) {
    for (const protocol of protocols.split(",")) {
      const trimmed = protocol.trim()
      if (trimmed.startsWith(bearerSubprotocolPrefix)) found.push(trimmed.slice(bearerSubprotocolPrefix.length))
    }
  }
  return found
}

/**
 * True when any presented token matches; every candidate is compared, so the count of candidates, not their
 * content, is all that timing can reveal.
 *
 * @since 0.1.0
 * @category utils
 */
export const authorize = (
  expected: Redacted.Redacted<string>,
  headers: Parameters<typeof presented>[0]
): boolean => presented(headers).reduce((ok, candidate) => matches(expected, candidate) || ok, false)
