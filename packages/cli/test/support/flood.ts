/**
 * A token holder that floods a host and never reads: a raw WebSocket (or Unix socket) connection that sends
 * batches of `Status` requests as fast as the kernel takes them and never reads a byte of the answers. Shared
 * by `serve.flood.e2e.test.ts` and the flood benchmark (bench/flood.ts).
 */
import * as Crypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as Net from "node:net"

/** `size` Status requests as ndjson lines, their ids counting up from `first`. */
export const statusBatch = (first: number, size: number): string =>
  Array.from({ length: size }, (_, i) => `{"_tag":"Request","id":"${first + i}","tag":"Status","headers":[]}\n`)
    .join("")

/** A masked WebSocket text frame (a client must mask, RFC 6455 § 5.3). */
export const textFrame = (text: string): Buffer => {
  const payload = Buffer.from(text, "utf8")
  const length = payload.length
  const header = length < 126
    ? Buffer.from([0x81, 0x80 | length])
    : length < 65_536
    ? Buffer.from([0x81, 0x80 | 126, length >> 8, length & 0xff])
    : Buffer.concat([Buffer.from([0x81, 0x80 | 127]), bigEndian64(length)])
  const mask = Crypto.randomBytes(4)
  const masked = Buffer.alloc(length)
  for (let i = 0; i < length; i++) masked[i] = payload[i]! ^ mask[i & 3]!
  return Buffer.concat([header, mask, masked])
}

const bigEndian64 = (n: number) => {
  const bytes = Buffer.alloc(8)
  bytes.writeBigUInt64BE(BigInt(n))
  return bytes
}

export interface Flooder {
  /** Status requests written so far (handed to the kernel or buffered by this process). */
  readonly sent: () => number
  /** Whether the host has closed the connection. */
  readonly closed: () => boolean
  /** Stops writing and closes the connection. */
  readonly stop: () => void
}

/**
 * Connects, then writes `batch`-line batches of Status requests until stopped, waiting for the kernel to take
 * each batch before the next (so this process holds at most one); never reads an answer. `connect` opens the
 * connection and resolves once requests may be sent (for a WebSocket: after the `101`).
 */
const flood = async (socket: Net.Socket, encode: (text: string) => Buffer, batch: number): Promise<Flooder> => {
  let sent = 0
  let closed = false
  let stopped = false
  socket.on("close", () => (closed = true))
  socket.on("error", () => (closed = true))
  // Never read: the answers stay in the kernel's buffers, then the host's.
  socket.pause()
  const loop = async () => {
    while (!stopped && !closed) {
      const more = socket.write(encode(statusBatch(sent, batch)))
      sent += batch
      if (!more) {
        await new Promise<void>((resolve) => {
          const done = () => {
            socket.off("drain", done)
            socket.off("close", done)
            resolve()
          }
          socket.once("drain", done)
          socket.once("close", done)
        })
      }
      // Let the event loop breathe between batches the kernel took at once.
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
  }
  void loop()
  return {
    sent: () => sent,
    closed: () => closed,
    stop: () => {
      stopped = true
      socket.destroy()
    }
  }
}

const connected = (socket: Net.Socket) =>
  new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve)
    socket.once("error", reject)
  })

/** A flooder on `ws://127.0.0.1:port/lsp-seam`, presenting `token` as the bearer subprotocol. */
export const floodWebSocket = async (port: number, token: string, batch = 10_000): Promise<Flooder> => {
  const socket = Net.createConnection({ host: "127.0.0.1", port })
  await connected(socket)
  const upgraded = new Promise<void>((resolve, reject) => {
    let head = ""
    const onData = (chunk: Buffer) => {
      head += chunk.toString("latin1")
      if (!head.includes("\r\n\r\n")) return
      socket.off("data", onData)
      if (head.startsWith("HTTP/1.1 101")) resolve()
      else reject(new Error(`the host refused the upgrade: ${head.split("\r\n")[0]}`))
    }
    socket.on("data", onData)
  })
  socket.write(
    "GET /lsp-seam HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
      `Sec-WebSocket-Key: ${Crypto.randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n` +
      `Sec-WebSocket-Protocol: lsp-seam.rpc.v1, lsp-seam.bearer.${token}\r\n\r\n`
  )
  await upgraded
  return flood(socket, textFrame, batch)
}

/** A flooder on the Unix socket `path`. */
export const floodSocket = async (path: string, batch = 10_000): Promise<Flooder> => {
  const socket = Net.createConnection({ path })
  await connected(socket)
  return flood(socket, (text) => Buffer.from(text, "utf8"), batch)
}

/** The resident memory of process `pid` in bytes (`VmRSS`), or undefined once it is gone. */
export const residentBytes = (pid: number): number | undefined => {
  try {
    const kib = /VmRSS:\s+([0-9]+) kB/.exec(NodeFs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]
    return kib === undefined ? undefined : Number(kib) * 1024
  } catch {
    return undefined
  }
}
