/**
 * The decoder fuzz, in a process of its own (started by bench/fuzz.ts with --expose-gc, which kills it when it
 * stops reporting progress: a decoder that loops forever shows up as a silent child). Also runnable by hand.
 * Prints `progress <n>` lines, then one JSON line.
 *
 * Usage: node --expose-gc --import tsx bench/fuzzChild.ts <streams> <seed>
 *
 * Each stream gets a fresh decoder (`FramingDecoder`, the class `Framing.makeDecoder` wraps: its `push` is
 * `pushInto` a fresh array) with small limits and is fed in random chunks. A stream must end: every push
 * returns, or throws an `LspError` with code LSP_PROTOCOL_ERROR, after which the decoder stays failed. The
 * decoder's own buffers (the partial header line and the partial body; private fields, read by reflection)
 * are measured after every push.
 */
import "./support/register.js"

const { FramingDecoder } = await import("../packages/lsp-stdio/src/internal/wire/framingDecoder.js")
const { LspError } = await import("@lsp-seam/lsp")
const { prng } = await import("./support/prng.js")

const [streamsArgument = "100000", seedArgument = "7"] = process.argv.slice(2)
const streams = Number(streamsArgument)
const seed = Number(seedArgument)
const maxMessageBytes = 64 * 1024
const maxHeaderBytes = 1024

const random = prng(seed)
const int = (below: number) => Math.floor(random() * below)
const chance = (p: number) => random() < p
const pick = <A>(items: ReadonlyArray<A>): A => items[int(items.length)]!

const ascii = (text: string) => Uint8Array.from(text, (char) => char.charCodeAt(0) & 0xff)
const utf8 = new TextEncoder()
const concat = (parts: ReadonlyArray<Uint8Array>) => {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

const randomBytes = (length: number) => {
  const bytes = new Uint8Array(length)
  for (let i = 0; i < length; i++) bytes[i] = int(256)
  return bytes
}

const headerAlphabet = ascii("Content-Lengthcontent-length: 0123456789\r\n\r\n:::  \t{}\"")
const headerish = (length: number) => {
  const bytes = new Uint8Array(length)
  for (let i = 0; i < length; i++) bytes[i] = headerAlphabet[int(headerAlphabet.length)]!
  return bytes
}

const randomJson = (size: number): unknown => {
  const value: Record<string, unknown> = { jsonrpc: "2.0", id: int(1000) }
  if (chance(0.5)) value.method = pick(["textDocument/hover", "$/progress", "window/logMessage", "ünïcödé/😀"])
  value.params = { text: "x".repeat(size), n: random(), list: [1, "two", null, true] }
  return value
}

/** A valid frame, with optional extra headers, case changes, banners; returns the bytes and the message. */
const validFrame = (): { readonly bytes: Uint8Array; readonly message: unknown } => {
  const size = chance(0.05) ? maxMessageBytes - 200 - int(1000) : int(chance(0.2) ? 4000 : 200)
  const message = randomJson(Math.max(0, size))
  const body = utf8.encode(JSON.stringify(message))
  const name = pick(["Content-Length", "content-length", "CONTENT-LENGTH", "Content-length"])
  const headers = [`${name}: ${body.length}`]
  if (chance(0.2)) headers.push("Content-Type: application/vscode-jsonrpc; charset=utf-8")
  if (chance(0.1)) headers.unshift("X-Extra:  value ")
  const banner = chance(0.05) ? "starting the server\r\n" : ""
  return { bytes: concat([ascii(`${banner}${headers.join("\r\n")}\r\n\r\n`), body]), message }
}

const mutate = (bytes: Uint8Array): Uint8Array => {
  let out = bytes
  for (let n = 1 + int(3); n > 0; n--) {
    if (out.length === 0) return randomBytes(int(64))
    const at = int(out.length)
    switch (int(6)) {
      case 0: { // flip a byte
        const copy = out.slice()
        copy[at] = int(256)
        out = copy
        break
      }
      case 1: // insert random bytes
        out = concat([out.subarray(0, at), randomBytes(1 + int(16)), out.subarray(at)])
        break
      case 2: // delete a range
        out = concat([out.subarray(0, at), out.subarray(Math.min(out.length, at + 1 + int(32)))])
        break
      case 3: // duplicate a range
        out = concat([out.subarray(0, at), out.subarray(at, at + 1 + int(64)), out.subarray(at)])
        break
      case 4: // truncate
        out = out.subarray(0, at)
        break
      default: // insert header-like noise
        out = concat([out.subarray(0, at), headerish(1 + int(32)), out.subarray(at)])
    }
  }
  return out
}

const kinds = ["garbage", "headerish", "valid", "mutated", "hugeLength", "endlessHeader"] as const
type Kind = typeof kinds[number]

const generate = (kind: Kind): { readonly bytes: Uint8Array; readonly expected?: ReadonlyArray<unknown> } => {
  switch (kind) {
    case "garbage":
      return { bytes: randomBytes(chance(0.05) ? int(16_384) : int(2048)) }
    case "headerish":
      return { bytes: headerish(int(2048)) }
    case "valid": {
      const frames = Array.from({ length: 1 + int(4) }, validFrame)
      return { bytes: concat(frames.map((f) => f.bytes)), expected: frames.map((f) => f.message) }
    }
    case "mutated":
      return { bytes: mutate(concat(Array.from({ length: 1 + int(3) }, () => validFrame().bytes))) }
    case "hugeLength": {
      const digits = chance(0.5)
        ? String(maxMessageBytes + 1 + int(10_000_000))
        : Array.from({ length: 1 + int(30) }, () => String(int(10))).join("")
      return { bytes: concat([ascii(`Content-Length: ${digits}\r\n\r\n`), randomBytes(int(4096))]) }
    }
    case "endlessHeader": {
      const shape = int(3)
      if (shape === 0) return { bytes: ascii(`X-Padding: ${"a".repeat(512 + int(8192))}`) }
      if (shape === 1) return { bytes: ascii("X-Header: value\r\n".repeat(20 + int(200))) }
      // Banner lines (no ':') are skipped without being kept; endless ones must still hold no memory.
      return { bytes: ascii("banner line without colon\n".repeat(20 + int(400))) }
    }
  }
}

const chunks = (bytes: Uint8Array): Array<Uint8Array> => {
  const mode = int(4)
  if (mode === 0 || bytes.length === 0) return [bytes]
  const maxChunk = mode === 1 ? 1 : mode === 2 ? 64 : 4096
  const out: Array<Uint8Array> = []
  for (let offset = 0; offset < bytes.length;) {
    const size = 1 + int(maxChunk)
    out.push(bytes.subarray(offset, offset + size))
    offset += size
  }
  return out
}

/** Bytes the decoder holds between calls: its header-line buffer and its partial body, read by reflection. */
let measurable = true
const held = (decoder: object): number => {
  const line: unknown = Reflect.get(decoder, "line")
  const lineBytes: unknown = typeof line === "object" && line !== null ? Reflect.get(line, "bytes") : undefined
  const body: unknown = Reflect.get(decoder, "body")
  if (!(lineBytes instanceof Uint8Array) || !(body === undefined || body instanceof Uint8Array)) {
    measurable = false
    return 0
  }
  return lineBytes.length + (body?.length ?? 0)
}

const reasons = new Map<string, number>()
const byKind = new Map<string, { streams: number; ended: number; rejected: number; bytes: number }>()
const failures: Array<string> = []
let validWrong = 0
let notPoisoned = 0
let peakHeld = 0
let peakHeap = 0
let peakRss = 0
let maxStreamMs = 0
let totalBytes = 0
let pushes = 0

const gc = () => {
  const collect: unknown = Reflect.get(globalThis, "gc")
  if (typeof collect === "function") { for (let i = 0; i < 3; i++) collect() }
}
gc()
const heapBefore = process.memoryUsage().heapUsed
const rssBefore = process.memoryUsage().rss
const started = performance.now()

for (let n = 0; n < streams; n++) {
  const kind = kinds[int(kinds.length)]!
  const { bytes, expected } = generate(kind)
  const stats = byKind.get(kind) ?? { streams: 0, ended: 0, rejected: 0, bytes: 0 }
  byKind.set(kind, stats)
  stats.streams++
  stats.bytes += bytes.length
  totalBytes += bytes.length
  const decoder = new FramingDecoder({ maxMessageBytes, maxHeaderBytes })
  const output: Array<unknown> = []
  const start = performance.now()
  let rejected: unknown = undefined
  for (const chunk of chunks(bytes)) {
    pushes++
    try {
      decoder.pushInto(chunk, output)
    } catch (error) {
      rejected = error
      break
    } finally {
      peakHeld = Math.max(peakHeld, held(decoder))
    }
  }
  maxStreamMs = Math.max(maxStreamMs, performance.now() - start)
  if (rejected === undefined) {
    stats.ended++
    if (expected !== undefined && JSON.stringify(output) !== JSON.stringify(expected)) validWrong++
  } else if (LspError.isLspError(rejected) && rejected.code === "LSP_PROTOCOL_ERROR") {
    stats.rejected++
    const detail: unknown = rejected.detail
    const reason = typeof detail === "object" && detail !== null ? String(Reflect.get(detail, "reason")) : "?"
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1)
    if (expected !== undefined) validWrong++
    try {
      decoder.pushInto(new Uint8Array([0x7b]), [])
      notPoisoned++
    } catch (again) {
      if (again !== rejected) notPoisoned++
    }
  } else if (failures.length < 20) {
    failures.push(
      `${kind} stream ${n}: ${rejected instanceof Error ? rejected.stack ?? rejected.message : String(rejected)}`
    )
  } else {
    failures.push("…")
  }
  if (n % 1000 === 999) {
    const { heapUsed, rss } = process.memoryUsage()
    peakHeap = Math.max(peakHeap, heapUsed)
    peakRss = Math.max(peakRss, rss)
    process.stdout.write(`progress ${n + 1}\n`)
  }
}
const seconds = (performance.now() - started) / 1000
gc()
const after = process.memoryUsage()

process.stdout.write(
  `${
    JSON.stringify({
      streams,
      seed,
      maxMessageBytes,
      maxHeaderBytes,
      seconds,
      totalBytes,
      pushes,
      byKind: Object.fromEntries(byKind),
      reasons: Object.fromEntries(reasons),
      failures: failures.length,
      failureSamples: failures.slice(0, 20),
      validWrong,
      notPoisoned,
      maxStreamMs,
      heldMeasured: measurable,
      peakHeldBytes: peakHeld,
      heap: { before: heapBefore, peak: peakHeap, after: after.heapUsed },
      rss: { before: rssBefore, peak: peakRss, after: after.rss }
    })
  }\n`
)
