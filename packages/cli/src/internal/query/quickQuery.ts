/**
 * The edge of `lsp-seam query <op> <file:line:col> --remote auto|PATH`: the common warm query answered without
 * the Effect runtime, `@effect/rpc` or the seam's Schemas, whose loading cost a warm query more than Node's own
 * start (docs/decisions.md, "A warm remote query in Node's start time"). It finds the daemon as `@lsp-seam/setup`
 * does (`LspDaemon.identifySync`), greets it and asks it over the host's RPC (`edgeWire.ts`), checks the
 * answer (`LspResultRead.plainLocations` or `plainHover`, held to the schema by property tests) and renders it
 * with the tool's renderer.
 *
 * It answers only what it can answer exactly as the full client does: a navigation operation or hover at a
 * valid position, `--cwd`, `--config` and `--json`, a daemon that greets with the expected identity, and a
 * plain locations or hover answer or a coded error (`LspErrorRead.plainError`). For anything else — another
 * operation or option, a position the tool would refuse, no daemon (it is never started here), another version,
 * an answer with notes, `LSP_REMOTE_UNAVAILABLE` — `run` resolves to `undefined` having written nothing, and
 * the caller runs the query through the full client, which reports it. Queries are read-only, so asking again
 * cannot do anything twice.
 */
import { LspErrorRead, LspResultRead } from "@lsp-seam/lsp"
import type { LspQuery } from "@lsp-seam/lsp"
import { LspRemoteAddress } from "@lsp-seam/lsp-remote"
import { LspDaemon, LspRemoteTarget } from "@lsp-seam/setup/remote"
import { type LspToolInput, LspToolRender } from "@lsp-seam/tool-lsp"
import * as Either from "effect/Either"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as EdgeWire from "./edgeWire.js"
import { queryArguments } from "./location.js"
import type { Parsed } from "./remoteQuery.js"

/** The operations whose answer is a list of locations, or a hover. */
export const operations: ReadonlyArray<string> = [
  "goToDefinition",
  "findReferences",
  "goToImplementation",
  "goToTypeDefinition",
  "hover"
]

/** The options this edge handles; any other sends the query to the full client. */
const handledOptions: ReadonlyArray<string> = ["remote", "cwd", "config"]

/**
 * The constants of the host's contract and of the tool that the edge repeats because their modules load the
 * Schemas; the edge's tests hold each equal to its source (`LspRpc.protocolRevision`, `LspRpc.version`,
 * `LspRpc.budgetHeader`, `LspToolConfig.defaults`).
 */
export const contract = {
  protocolRevision: 2,
  clientVersion: "0.1.0",
  budgetHeader: "lsp-seam-budget-ms",
  timeoutMs: 60_000,
  maxLocations: 100,
  maxResultChars: 16_000,
  connectTimeoutMs: 1_000
} as const

const isOneBased = (n: unknown): n is number => typeof n === "number" && Number.isInteger(n) && n >= 1

/** The tool's validated input for the parsed query, when the tool would accept it as it is. */
export const toolInput = (parsed: Parsed): LspToolInput.PositionInput | undefined => {
  if (!operations.includes(parsed.operation)) return undefined
  // `--body` asks for code, which a plain answer does not carry: the full client answers it.
  if (parsed.body === true) return undefined
  if (Object.keys(parsed.options).some((name) => !handledOptions.includes(name))) return undefined
  const args = queryArguments(parsed.operation as LspToolInput.ToolOperation, parsed.target)
  if (Either.isLeft(args)) return undefined
  const { file_path, line, character } = args.right
  // As the tool's FilePath and OneBased: anything else is the tool's to refuse, with its message.
  if (typeof file_path !== "string" || !/\S/.test(file_path) || !isOneBased(line) || !isOneBased(character)) {
    return undefined
  }
  return { operation: parsed.operation as LspToolInput.PositionInput["operation"], file_path, line, character }
}

/**
 * `LspToolInput.toQueryRequest` of a position input with a character, which the edge cannot import: that module
 * builds the tool's JSON Schema when it loads. The edge's tests hold the two equal.
 */
export const queryRequest = (input: LspToolInput.PositionInput, workspaceRoot: string): LspQuery.LspQueryRequest => ({
  operation: input.operation,
  filePath: input.file_path,
  position: { line: input.line - 1, character: (input.character ?? 1) - 1 },
  workspaceRoot
})

/** The socket and identity to expect for `--remote`: the daemon's for `auto`, any host's for a socket path. */
const target = (parsed: Parsed, workspace: string, environment: NodeJS.ProcessEnv) => {
  const remote = LspRemoteTarget.parse(parsed.options.remote ?? "")
  if (Either.isLeft(remote) || remote.right._tag === "WebSocket") return undefined
  if (remote.right._tag === "Socket") return { path: remote.right.path, expect: undefined }
  const identity = LspDaemon.identifySync(
    LspDaemon.resolveSource({ configFile: parsed.options.config, workingDirectory: workspace }),
    environment
  )
  if (identity === undefined) return undefined
  return {
    path: NodePath.join(LspRemoteAddress.defaultSocketDirectory(environment), LspDaemon.socketName(identity)),
    expect: identity
  }
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const isStrings = (u: unknown) => Array.isArray(u) && u.every((item) => typeof item === "string")

/**
 * Whether `Hello`'s answer is a well-formed `HelloResponse` from a host this client may use (as
 * `LspRemoteClient`'s greeting decides: the same wire revision and, for `auto`, version and fingerprint).
 */
const greets = (value: unknown, expect: LspDaemon.Identity | undefined): boolean =>
  isRecord(value) && value.protocolRevision === contract.protocolRevision && typeof value.version === "string" &&
  typeof value.fingerprint === "string" && Number.isInteger(value.pid) && typeof value.statusAvailable === "boolean" &&
  (value.roots === undefined || isStrings(value.roots)) &&
  (expect === undefined || value.version === expect.version && value.fingerprint === expect.fingerprint)

const errnoOf = (cause: unknown) =>
  typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined

/**
 * Writes to stdout (`fd` 1) or stderr (2) without making `process.stdout`/`process.stderr` (a stream costs a
 * few ms), as far as the file descriptor takes it at once; the rest, if it would block, through the stream. A
 * reader that went away (`EPIPE`) is not an error, as on the full path.
 */
const write = (fd: 1 | 2) => (text: string): Promise<void> => {
  const bytes = Buffer.from(text)
  let written = 0
  try {
    while (written < bytes.length) written += Fs.writeSync(fd, bytes, written)
    return Promise.resolve()
  } catch (cause) {
    if (errnoOf(cause) === "EPIPE") return Promise.resolve()
    if (errnoOf(cause) !== "EAGAIN") throw cause
  }
  const stream = fd === 1 ? process.stdout : process.stderr
  return new Promise((resolve) => {
    stream.on("error", resolve)
    stream.write(bytes.subarray(written), () => resolve())
  })
}

/**
 * A host's coded error as the full client reports it; not `LSP_REMOTE_UNAVAILABLE`, after which the full
 * client makes sure the daemon runs and asks once more.
 */
const codedError = (cause: unknown) => {
  if (!isRecord(cause) || cause._tag !== "Fail") return undefined
  const error = LspErrorRead.plainError(cause.error)
  return error === undefined || error.code === "LSP_REMOTE_UNAVAILABLE" ? undefined : error
}

/**
 * Asks the host; the checked answer, or `undefined` for anything the full client must handle (including no
 * answer within the tool's budget: the full client then reports the timeout).
 */
const ask = async (path: string, expect: LspDaemon.Identity | undefined, request: unknown) => {
  const connection = await EdgeWire.connect(path, contract.connectTimeoutMs)
  if (connection === undefined) return undefined
  const timer = setTimeout(connection.close, contract.timeoutMs)
  // Interrupted (Ctrl-C, or a caller's SIGTERM), as the full client is: the connection ends, so the host
  // interrupts the query (and cancels the server's request), and the command exits 130 without asking again.
  let interrupted = false
  const interrupt = () => {
    interrupted = true
    connection.close()
  }
  process.once("SIGINT", interrupt)
  process.once("SIGTERM", interrupt)
  try {
    const hello = await connection.call("Hello", { clientVersion: contract.clientVersion })
    if (interrupted) return { _tag: "Interrupted" } as const
    if (hello?._tag !== "Success" || !greets(hello.value, expect)) return undefined
    const answer = await connection.call("Query", request, [[contract.budgetHeader, String(contract.timeoutMs)]])
    if (interrupted) return { _tag: "Interrupted" } as const
    if (answer?._tag === "Failure") {
      const error = codedError(answer.cause)
      return error === undefined ? undefined : { _tag: "Failed", error } as const
    }
    const result = answer === undefined
      ? undefined
      : LspResultRead.plainLocations(answer.value) ?? LspResultRead.plainHover(answer.value)
    return result === undefined ? undefined : { _tag: "Answered", result } as const
  } finally {
    process.off("SIGINT", interrupt)
    process.off("SIGTERM", interrupt)
    clearTimeout(timer)
    connection.close()
  }
}

/**
 * Answers the parsed query and resolves to the exit code, or to `undefined`, having written nothing, when the
 * full client must answer it. `environment` (default `process.env`) is the one `--remote auto` resolves the
 * daemon in; `output` (default stdout) receives the answer, `errorOutput` (default stderr) a coded error.
 */
export const run = async (
  parsed: Parsed,
  options: {
    readonly environment?: NodeJS.ProcessEnv | undefined
    readonly output?: ((text: string) => Promise<void>) | undefined
    readonly errorOutput?: ((text: string) => Promise<void>) | undefined
  } = {}
): Promise<number | undefined> => {
  const input = toolInput(parsed)
  if (input === undefined) return undefined
  const workspace = NodePath.resolve(parsed.options.cwd ?? ".")
  const host = target(parsed, workspace, options.environment ?? process.env)
  if (host === undefined) return undefined
  const outcome = await ask(host.path, host.expect, queryRequest(input, workspace))
  if (outcome === undefined) return undefined
  if (outcome._tag === "Interrupted") return 130
  if (outcome._tag === "Failed") {
    await (options.errorOutput ?? write(2))(`error[${outcome.error.code}]: ${outcome.error.message}\n`)
    return 1
  }
  await (options.output ?? write(1))(
    parsed.json
      ? `${JSON.stringify(outcome.result, null, 2)}\n`
      : `${LspToolRender.render(outcome.result, contract, input)}\n`
  )
  return 0
}
