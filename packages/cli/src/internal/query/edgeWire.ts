/**
 * The host's RPC as the remote query's edge (`quickQuery.ts`) speaks it, without the Effect runtime: the
 * `@effect/rpc` socket protocol with `RpcSerialization.makeNdjson` that `LspRemoteClient` uses — one JSON
 * message per line, a `Request` (`id`, `tag`, `payload`, `headers`) out, an `Exit` for that `requestId` back —
 * over the Unix socket of a host. Anything else (a lost or refused connection, a `Defect`, a line that is not
 * such a message, a line over the client's size limit) is `undefined`: the edge then leaves the query to the
 * full client, which reports it. What an `Exit` carries is checked by the caller.
 */
import * as Fs from "node:fs"
import * as Net from "node:net"

/** An `Exit` as the wire encodes it (`Schema.Exit`): a success's value, or a failure's encoded cause. */
export type WireExit =
  | { readonly _tag: "Success"; readonly value: unknown }
  | { readonly _tag: "Failure"; readonly cause: unknown }

export interface EdgeConnection {
  /** Sends one request and waits for its exit (`undefined`: the connection failed or said something else). */
  readonly call: (
    tag: string,
    payload: unknown,
    headers?: ReadonlyArray<readonly [string, string]>
  ) => Promise<WireExit | undefined>
  /** Ends the connection; a call still waiting resolves to `undefined`. */
  readonly close: () => void
}

/** As `LspRemoteClient.defaultMaxResponseBytes`: the largest response line accepted. */
export const maxResponseBytes = 64 * 1024 * 1024

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const exitOf = (message: Record<string, unknown>): WireExit | undefined => {
  const exit = message.exit
  if (!isRecord(exit)) return undefined
  if (exit._tag === "Success" && "value" in exit) return { _tag: "Success", value: exit.value }
  if (exit._tag === "Failure" && "cause" in exit) return { _tag: "Failure", cause: exit.cause }
  return undefined
}

/**
 * The socket's owner may be the user or root, as `LspRemoteClient` requires of every socket it connects to
 * (another user's socket is someone else's host: no query is sent to it).
 */
const ownedSocket = (path: string): boolean => {
  const uid = process.getuid?.()
  if (uid === undefined) return true
  try {
    const stats = Fs.lstatSync(path)
    return stats.uid === uid || stats.uid === 0
  } catch {
    return false
  }
}

/**
 * Connects to the host at `path`, or `undefined` when nothing of ours answers within `connectTimeoutMs`.
 * Requests go one at a time: `call` is not meant to be used concurrently.
 */
export const connect = (path: string, connectTimeoutMs: number): Promise<EdgeConnection | undefined> =>
  new Promise((resolve) => {
    if (!ownedSocket(path)) return resolve(undefined)
    const socket = Net.createConnection({ path })
    let buffered = ""
    let pending: { readonly id: string; readonly done: (exit: WireExit | undefined) => void } | undefined
    let failed = false
    const fail = () => {
      failed = true
      socket.destroy()
      pending?.done(undefined)
      pending = undefined
    }
    const timer = setTimeout(() => {
      fail()
      resolve(undefined)
    }, connectTimeoutMs)
    socket.setEncoding("utf8")
    socket.on("error", () => {
      clearTimeout(timer)
      fail()
      resolve(undefined)
    })
    socket.on("close", fail)
    socket.on("data", (chunk: string) => {
      buffered += chunk
      if (buffered.length > maxResponseBytes) return fail()
      let newline: number
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, newline)
        buffered = buffered.slice(newline + 1)
        let message: unknown
        try {
          message = JSON.parse(line)
        } catch {
          return fail()
        }
        if (!isRecord(message)) return fail()
        // A keep-alive answer is no answer; anything else that is not our exit ends the connection.
        if (message._tag === "Pong") continue
        if (message._tag !== "Exit" || pending === undefined || message.requestId !== pending.id) return fail()
        const exit = exitOf(message)
        if (exit === undefined) return fail()
        const { done } = pending
        pending = undefined
        done(exit)
      }
    })
    socket.once("connect", () => {
      clearTimeout(timer)
      let next = 0
      resolve({
        call: (tag, payload, headers = []) =>
          new Promise((done) => {
            if (failed || pending !== undefined) return done(undefined)
            const id = String(next++)
            pending = { id, done }
            socket.write(`${JSON.stringify({ _tag: "Request", id, tag, payload, headers })}\n`)
          }),
        close: () => {
          // A call still waiting ends with `undefined` (and the host interrupts its query).
          if (pending !== undefined) return fail()
          socket.removeAllListeners("close")
          // The host sees the end of the connection; this process need not wait for its reply.
          socket.end()
          socket.unref()
        }
      })
    })
  })
