/**
 * A bounded tail of a server's stderr: the host drains stderr into it forever and attaches the retained
 * text to "server exited" errors. Only the last `maxBytes` bytes are kept, byte-exact, whatever the size
 * and number of chunks.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"

/**
 * @since 0.1.0
 * @category models
 */
export interface StderrTail {
  /** Retains the chunk, discarding the oldest bytes beyond the limit. */
  readonly append: (chunk: Uint8Array) => Effect.Effect<void>
  /** A copy of the retained bytes, oldest first (a multi-byte character may be cut at the start). */
  readonly bytes: Effect.Effect<Uint8Array>
  /**
   * The retained bytes as text, trimmed. Decoding is lenient (invalid sequences become U+FFFD), except that
   * a character cut in half by the limit is dropped rather than shown as garbage.
   */
  readonly text: Effect.Effect<string>
}

/**
 * The last `capacity` bytes appended. Storage grows by doubling up to `capacity`, so a quiet server costs
 * little, and then wraps around, so a chatty one never costs more.
 */
class RingBuffer {
  private storage = new Uint8Array(0)
  /** Index of the oldest retained byte (meaningful once the storage wraps). */
  private start = 0
  private length = 0
  /** True once any byte has been discarded. */
  truncated = false

  constructor(private readonly capacity: number) {}

  append(chunk: Uint8Array): void {
    if (chunk.length >= this.capacity) {
      this.truncated ||= this.length > 0 || chunk.length > this.capacity
      this.reserve(this.capacity)
      this.storage.set(chunk.subarray(chunk.length - this.capacity))
      this.start = 0
      this.length = this.capacity
      return
    }
    this.reserve(Math.min(this.capacity, this.length + chunk.length))
    const size = this.storage.length
    const writeAt = (this.start + this.length) % size
    const firstPart = Math.min(chunk.length, size - writeAt)
    this.storage.set(chunk.subarray(0, firstPart), writeAt)
    this.storage.set(chunk.subarray(firstPart), 0)
    const overflow = this.length + chunk.length - size
    if (overflow > 0) {
      this.truncated = true
      this.start = (this.start + overflow) % size
      this.length = size
    } else {
      this.length += chunk.length
    }
  }

  toArray(): Uint8Array {
    const size = this.storage.length
    const firstPart = Math.min(this.length, size - this.start)
    const result = new Uint8Array(this.length)
    result.set(this.storage.subarray(this.start, this.start + firstPart))
    result.set(this.storage.subarray(0, this.length - firstPart), firstPart)
    return result
  }

  /** Grows the storage (unwrapping it) so that it holds at least `needed` bytes, up to the capacity. */
  private reserve(needed: number): void {
    if (needed <= this.storage.length) return
    const grown = new Uint8Array(Math.min(this.capacity, Math.max(needed, this.storage.length * 2, 256)))
    grown.set(this.toArray())
    this.storage = grown
    this.start = 0
  }
}

const utf8 = new TextDecoder("utf-8")

const isContinuationByte = (byte: number) => (byte & 0xc0) === 0x80

/**
 * Makes an empty tail keeping at most `maxBytes` bytes (an integer ≥ 1).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (maxBytes: number): Effect.Effect<StderrTail> =>
  Effect.sync(() => {
    const buffer = new RingBuffer(maxBytes)
    return {
      append: (chunk) => Effect.sync(() => buffer.append(chunk)),
      bytes: Effect.sync(() => buffer.toArray()),
      text: Effect.sync(() => {
        const bytes = buffer.toArray()
        let start = 0
        // A UTF-8 character has at most three continuation bytes.
        if (buffer.truncated) { while (start < 3 && start < bytes.length && isContinuationByte(bytes[start]!)) start++ }
        return utf8.decode(bytes.subarray(start)).trim()
      })
    }
  })
