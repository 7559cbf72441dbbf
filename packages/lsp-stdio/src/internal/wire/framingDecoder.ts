/**
 * The incremental LSP frame decoder: a byte-level state machine that never decodes header bytes as text
 * and copies each body at most once.
 *
 * @internal
 */
import { LspError } from "@lsp-seam/lsp"
import { Buffer, isAscii, isUtf8 } from "node:buffer"

const LF = 0x0a
const CR = 0x0d
const COLON = 0x3a
const SPACE = 0x20
const TAB = 0x09
const DIGIT_0 = 0x30
const DIGIT_9 = 0x39

const ascii = (text: string) => Uint8Array.from(text, (char) => char.charCodeAt(0))

/**
 * Bodies at least this long are checked first (pure ASCII is read as Latin-1, other valid UTF-8 by Node's
 * decoder); shorter ones go through one `TextDecoder` call, which costs less for them.
 */
const largeBodyBytes = 65_536

/** "content-length", lower case, as bytes. */
const CONTENT_LENGTH = ascii("content-length")

/** The header prefix every mainstream writer emits, byte for byte. */
const CANONICAL_PREFIX = ascii("Content-Length: ")

/** Why a stream of frames was rejected; carried in the error's `detail.reason`. */
export type FramingFailure =
  | "HeaderTooLarge"
  | "MalformedHeader"
  | "MissingContentLength"
  | "InvalidContentLength"
  | "ConflictingContentLength"
  | "MessageTooLarge"
  | "InvalidUtf8"
  | "InvalidJson"

const failure = (reason: FramingFailure, message: string, detail?: Record<string, unknown>): LspError.LspLocalError =>
  LspError.protocolError(message, { reason, ...detail })

const isBlank = (byte: number) => byte === SPACE || byte === TAB

/** Shows a few header bytes in an error message without trusting them to be text. */
const preview = (bytes: Uint8Array, start: number, end: number): string => {
  const shown = Math.min(end, start + 40)
  let text = ""
  for (let i = start; i < shown; i++) {
    const byte = bytes[i]!
    text += byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : "?"
  }
  return end > shown ? `${text}...` : text
}

/** How many bytes of an oversized body's start and end are kept, to find its `id` and `method`. */
const EDGE_BYTES = 1024

/**
 * The largest oversized body passed over rather than refused: a length beyond it is no answer a server
 * means to send (a corrupted header, say), and waiting for that many bytes would hold the query up.
 */
export const maxSkippedBytes = 1024 * 1024 * 1024

/**
 * A message whose declared length is over `maxMessageBytes`, skipped without keeping its body (with
 * `oversized: "skip"`): its size, and the `id` and `method` found at its top level near its start or end, when
 * they were there. The stream goes on with the next message.
 */
export class OversizedMessage {
  constructor(
    readonly bytes: number,
    readonly id: number | string | undefined,
    readonly method: string | undefined
  ) {}
}

/** The top-level members of an object's text, up to where its first nested value starts. */
const topLevelHead = (text: string) => {
  const open = text.indexOf("{")
  if (open < 0) return ""
  const rest = text.slice(open + 1)
  const nested = rest.search(/[[{]/)
  return nested < 0 ? rest : rest.slice(0, nested)
}

/** The top-level members of an object's text after its last nested value ends. */
const topLevelTail = (text: string) => {
  const close = text.lastIndexOf("}")
  if (close < 0) return ""
  const before = text.slice(0, close)
  const nested = Math.max(before.lastIndexOf("}"), before.lastIndexOf("]"))
  return nested < 0 ? before : before.slice(nested + 1)
}

const idIn = (members: string): number | string | undefined => {
  const match = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(members)
  if (match === null) return undefined
  return match[1]!.startsWith("\"") ? JSON.parse(match[1]!) as string : Number(match[1])
}

const methodIn = (members: string): string | undefined => /"method"\s*:\s*"([^"\\]*)"/.exec(members)?.[1]

/**
 * A growable byte buffer for a header line split across chunks. Doubling keeps a line fed one byte at a
 * time linear; the caller checks that `length` never exceeds `limit`, and the storage never does either.
 */
class LineBuffer {
  bytes = new Uint8Array(64)
  length = 0

  constructor(private readonly limit: number) {}

  append(chunk: Uint8Array, start: number, end: number): void {
    const needed = this.length + end - start
    if (needed > this.bytes.length) {
      const grown = new Uint8Array(Math.min(this.limit, Math.max(needed, this.bytes.length * 2)))
      grown.set(this.bytes.subarray(0, this.length))
      this.bytes = grown
    }
    this.bytes.set(chunk.subarray(start, end), this.length)
    this.length = needed
  }

  clear(): void {
    this.length = 0
    // Do not keep a large line's buffer alive for the rest of the connection.
    if (this.bytes.length > 4096) this.bytes = new Uint8Array(64)
  }
}

/**
 * Decodes `Content-Length` framed JSON messages from byte chunks split anywhere.
 *
 * Memory held between calls is bounded by `maxHeaderBytes` (a partial header line) plus the declared length
 * of the message being received (at most `maxMessageBytes`). The first fatal input poisons the decoder:
 * that call and every later one throw the same `LSP_PROTOCOL_ERROR`.
 */
export class FramingDecoder {
  private readonly maxMessageBytes: number
  private readonly maxHeaderBytes: number
  private readonly utf8 = new TextDecoder("utf-8", { fatal: true })

  /** A header or banner line that is not complete yet (it has no LF so far). */
  private readonly line: LineBuffer
  /** True once a header line (one with ':') of the current block has been seen; banners precede it. */
  private inBlock = false
  /** Bytes of the completed lines of the current header block. */
  private blockBytes = 0
  private contentLength = -1

  /** Length of the body being received, or -1 while reading headers. */
  private bodyLength = -1
  /** The body, allocated only when it spans chunks. */
  private body: Uint8Array | undefined = undefined
  private bodyFilled = 0

  private failed: LspError.LspLocalError | undefined = undefined

  /** Whether an oversized message is skipped (its length is known) rather than fatal. */
  private readonly skipOversized: boolean
  /** While skipping an oversized body: its first and last bytes, to find its id and method. */
  private skipping: { head: Uint8Array; headFilled: number; tail: Uint8Array } | undefined = undefined

  constructor(
    options: {
      readonly maxMessageBytes: number
      readonly maxHeaderBytes: number
      readonly oversized?: "fail" | "skip"
    }
  ) {
    this.maxMessageBytes = options.maxMessageBytes
    this.maxHeaderBytes = options.maxHeaderBytes
    this.skipOversized = options.oversized === "skip"
    this.line = new LineBuffer(options.maxHeaderBytes)
  }

  /**
   * Appends every message completed by `chunk` to `output`, in order. On fatal input it throws after
   * appending the messages that preceded the fault, so none of them is lost.
   */
  pushInto(chunk: Uint8Array, output: Array<unknown>): void {
    if (this.failed !== undefined) throw this.failed
    try {
      let offset = 0
      while (offset < chunk.length) {
        if (this.bodyLength >= 0) offset = this.readBody(chunk, offset, output)
        else offset = this.readCanonicalHeader(chunk, offset) ?? this.readHeaderLine(chunk, offset)
      }
    } catch (error) {
      if (LspError.isLspLocalError(error)) this.failed = error
      throw error
    }
  }

  /**
   * The fast path for the header nearly every server sends, `Content-Length: N\r\n\r\n`, whole in this
   * chunk: it sets the body length and returns the offset after the header, or returns `undefined` and
   * leaves everything else (other headers, banners, splits, errors) to the general line-by-line path.
   */
  private readCanonicalHeader(chunk: Uint8Array, offset: number): number | undefined {
    if (this.inBlock || this.line.length > 0 || chunk.length - offset < CANONICAL_PREFIX.length + 5) return undefined
    for (let i = 0; i < CANONICAL_PREFIX.length; i++) {
      if (chunk[offset + i] !== CANONICAL_PREFIX[i]) return undefined
    }
    const digitsStart = offset + CANONICAL_PREFIX.length
    let end = digitsStart
    let value = 0
    for (; end < chunk.length && end - digitsStart < 15; end++) {
      const byte = chunk[end]!
      if (byte < DIGIT_0 || byte > DIGIT_9) break
      value = value * 10 + byte - DIGIT_0
    }
    const headerEnd = end + 4
    if (
      end === digitsStart || value === 0 || value > this.maxMessageBytes || headerEnd - offset > this.maxHeaderBytes ||
      headerEnd > chunk.length || chunk[end] !== CR || chunk[end + 1] !== LF || chunk[end + 2] !== CR ||
      chunk[end + 3] !== LF
    ) return undefined
    this.bodyLength = value
    return headerEnd
  }

  /** Consumes bytes up to and including the next LF, or all of them into the line buffer. */
  private readHeaderLine(chunk: Uint8Array, offset: number): number {
    const newline = chunk.indexOf(LF, offset)
    const partEnd = newline === -1 ? chunk.length : newline + 1
    const lineBytes = this.line.length + partEnd - offset
    if (this.blockBytes + lineBytes > this.maxHeaderBytes) {
      throw failure(
        "HeaderTooLarge",
        `The server sent a message header larger than ${this.maxHeaderBytes} bytes.`,
        { limit: this.maxHeaderBytes }
      )
    }
    if (newline === -1) {
      this.line.append(chunk, offset, chunk.length)
      return chunk.length
    }
    if (this.line.length === 0) {
      this.endLine(chunk, offset, newline, lineBytes)
    } else {
      this.line.append(chunk, offset, newline)
      this.endLine(this.line.bytes, 0, this.line.length, lineBytes)
      this.line.clear()
    }
    return partEnd
  }

  /** Handles one complete line `bytes[start, end)` (LF excluded; a trailing CR is dropped here). */
  private endLine(bytes: Uint8Array, start: number, end: number, size: number): void {
    if (end > start && bytes[end - 1] === CR) end--
    if (start === end) {
      // A blank line ends a header block; before one it is just noise between messages.
      if (this.inBlock) this.endHeaderBlock()
      return
    }
    let colon = start
    while (colon < end && bytes[colon] !== COLON) colon++
    if (colon === end) {
      if (this.inBlock) {
        throw failure(
          "MalformedHeader",
          `The server sent a header line without ':' ("${preview(bytes, start, end)}").`
        )
      }
      return // a banner line printed before the first header
    }
    this.inBlock = true
    this.blockBytes += size
    if (this.isContentLength(bytes, start, colon)) this.setContentLength(bytes, colon + 1, end)
  }

  private isContentLength(bytes: Uint8Array, start: number, end: number): boolean {
    while (start < end && isBlank(bytes[start]!)) start++
    while (end > start && isBlank(bytes[end - 1]!)) end--
    if (end - start !== CONTENT_LENGTH.length) return false
    for (let i = 0; i < CONTENT_LENGTH.length; i++) {
      // ASCII letters only differ from their lower case by bit 0x20; '-' (0x2d) already has it set.
      if ((bytes[start + i]! | 0x20) !== CONTENT_LENGTH[i]) return false
    }
    return true
  }

  private setContentLength(bytes: Uint8Array, start: number, end: number): void {
    while (start < end && isBlank(bytes[start]!)) start++
    while (end > start && isBlank(bytes[end - 1]!)) end--
    let value = 0
    for (let i = start; i < end; i++) {
      const byte = bytes[i]!
      if (byte < DIGIT_0 || byte > DIGIT_9) {
        throw failure(
          "InvalidContentLength",
          `The server sent an invalid Content-Length ("${preview(bytes, start, end)}").`
        )
      }
      value = value * 10 + byte - DIGIT_0
    }
    if (start === end) throw failure("InvalidContentLength", "The server sent an empty Content-Length.")
    // Past 15 digits `value` may have lost precision; it is far beyond any limit anyway.
    if (end - start <= 15 && value > this.maxMessageBytes && value <= maxSkippedBytes && this.skipOversized) {
      // Its length is known, so the stream can be followed past it without keeping it.
      this.skipping = { head: new Uint8Array(EDGE_BYTES), headFilled: 0, tail: new Uint8Array(0) }
      this.bodyFilled = 0
    } else if (end - start > 15 || value > this.maxMessageBytes) {
      throw failure(
        "MessageTooLarge",
        `The server announced a message of ${
          end - start > 15 ? "more than 10^15" : value
        } bytes; the limit is ${this.maxMessageBytes} bytes (maxMessageBytes).`,
        { limit: this.maxMessageBytes }
      )
    }
    if (this.contentLength >= 0 && this.contentLength !== value) {
      throw failure(
        "ConflictingContentLength",
        `The server sent two different Content-Length headers (${this.contentLength} and ${value}).`
      )
    }
    this.contentLength = value
  }

  private endHeaderBlock(): void {
    if (this.contentLength < 0) {
      throw failure("MissingContentLength", "The server sent a message header without Content-Length.")
    }
    this.bodyLength = this.contentLength
    this.inBlock = false
    this.blockBytes = 0
    this.contentLength = -1
    if (this.bodyLength === 0) this.parse(new Uint8Array(0))
  }

  /** Passes over an oversized body, keeping only its edges; then reports it as an `OversizedMessage`. */
  private skipBody(chunk: Uint8Array, offset: number, output: Array<unknown>): number {
    const skipping = this.skipping!
    const taken = Math.min(chunk.length - offset, this.bodyLength - this.bodyFilled)
    const piece = chunk.subarray(offset, offset + taken)
    const toHead = Math.min(EDGE_BYTES - skipping.headFilled, piece.length)
    skipping.head.set(piece.subarray(0, toHead), skipping.headFilled)
    skipping.headFilled += toHead
    const tail = new Uint8Array(Math.min(EDGE_BYTES, skipping.tail.length + piece.length))
    const fromPiece = Math.min(piece.length, tail.length)
    tail.set(skipping.tail.subarray(skipping.tail.length - (tail.length - fromPiece)), 0)
    tail.set(piece.subarray(piece.length - fromPiece), tail.length - fromPiece)
    skipping.tail = tail
    this.bodyFilled += taken
    if (this.bodyFilled === this.bodyLength) {
      const head = topLevelHead(Buffer.from(skipping.head.subarray(0, skipping.headFilled)).toString("latin1"))
      const end = topLevelTail(Buffer.from(skipping.tail).toString("latin1"))
      output.push(new OversizedMessage(this.bodyLength, idIn(head) ?? idIn(end), methodIn(head) ?? methodIn(end)))
      this.skipping = undefined
      this.bodyLength = -1
      this.bodyFilled = 0
    }
    return offset + taken
  }

  private readBody(chunk: Uint8Array, offset: number, output: Array<unknown>): number {
    if (this.skipping !== undefined) return this.skipBody(chunk, offset, output)
    const available = chunk.length - offset
    if (this.body === undefined) {
      if (available >= this.bodyLength) {
        // The whole body is in this chunk: parse it in place, without copying.
        const end = offset + this.bodyLength
        this.bodyLength = -1
        output.push(this.parse(chunk.subarray(offset, end)))
        return end
      }
      // Every byte is written before the body is read, so it need not be zeroed first.
      this.body = Buffer.allocUnsafeSlow(this.bodyLength)
      this.bodyFilled = 0
    }
    const taken = Math.min(available, this.bodyLength - this.bodyFilled)
    this.body.set(chunk.subarray(offset, offset + taken), this.bodyFilled)
    this.bodyFilled += taken
    if (this.bodyFilled === this.bodyLength) {
      const body = this.body
      this.body = undefined
      this.bodyLength = -1
      output.push(this.parse(body))
    }
    return offset + taken
  }

  private parse(body: Uint8Array): unknown {
    let text: string | undefined
    if (body.length < largeBodyBytes) {
      try {
        text = this.utf8.decode(body)
      } catch {
        text = undefined
      }
    } else if (isAscii(body)) {
      // ASCII is valid UTF-8 that reads the same as Latin-1, and a large Latin-1 string is a plain copy
      // (kept outside the JavaScript heap) while UTF-8 decoding walks the bytes.
      text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("latin1")
    } else if (isUtf8(body)) {
      // Validated first, Node's decoder is ~15% faster than TextDecoder on large bodies. A leading byte
      // order mark is dropped, as TextDecoder does.
      const bom = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0
      text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8", bom)
    }
    if (text === undefined) {
      throw failure("InvalidUtf8", "The server sent a message body that is not valid UTF-8.")
    }
    try {
      return JSON.parse(text)
    } catch (error) {
      throw failure(
        "InvalidJson",
        `The server sent a message body that is not valid JSON (${error instanceof Error ? error.message : error}).`
      )
    }
  }
}
