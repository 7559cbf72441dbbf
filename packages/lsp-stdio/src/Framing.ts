/**
 * LSP base-protocol framing: `Content-Length: N\r\n\r\n` followed by N bytes of UTF-8 JSON.
 *
 * Decoding works on bytes, never on decoded text: chunks may split a message anywhere (inside the header
 * or inside a multi-byte character), several messages may share a chunk, header names are matched
 * case-insensitively, unknown headers are ignored and banner lines (lines without ':') printed before a
 * header block are skipped. Every violation is a fatal `LSP_PROTOCOL_ERROR` whose `detail.reason` says
 * which rule was broken.
 *
 * @since 0.1.0
 */
import { LspError } from "@lsp-seam/lsp"
import * as Cause from "effect/Cause"
import * as Channel from "effect/Channel"
import * as Chunk from "effect/Chunk"
import * as Stream from "effect/Stream"
import * as internal from "./internal/wire/framingDecoder.js"

/**
 * Why a stream of frames was rejected: the `detail.reason` of the protocol error.
 *
 * @since 0.1.0
 * @category models
 */
export type { FramingFailure } from "./internal/wire/framingDecoder.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface FramingOptions {
  /** The largest body accepted, in bytes; a larger declared length fails before any body byte is kept. */
  readonly maxMessageBytes: number
  /** The largest header block accepted, in bytes (default 65536). */
  readonly maxHeaderBytes?: number
  /**
   * What a message over `maxMessageBytes` does: `"fail"` (the default) poisons the decoder;
   * `"skip"` passes over its body without keeping it and yields an `OversizedMessage` in its place, so the
   * stream goes on (its length is known). A length over 1 GiB is refused either way.
   */
  readonly oversized?: "fail" | "skip"
}

/**
 * What a decoder with `oversized: "skip"` yields for a message over the limit: its size, and the `id` and
 * `method` found at its top level near its start or end, when they are there.
 *
 * @since 0.1.0
 * @category models
 */
export { OversizedMessage } from "./internal/wire/framingDecoder.js"

/**
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxHeaderBytes = 65_536

/**
 * A synchronous, incremental frame decoder. It holds at most one partial header line (bounded by
 * `maxHeaderBytes`) and one partial body (bounded by `maxMessageBytes`) between calls.
 *
 * @since 0.1.0
 * @category models
 */
export interface Decoder {
  /**
   * Feeds bytes and returns the messages they complete, in order. Throws the fatal `LspError`
   * (`LSP_PROTOCOL_ERROR`) on invalid input; once failed, every later call throws the same error.
   */
  readonly push: (chunk: Uint8Array) => ReadonlyArray<unknown>
  /**
   * Like `push`, but appends to `output`, so the messages completed before a fault in the same chunk are
   * kept when it throws.
   */
  readonly pushInto: (chunk: Uint8Array, output: Array<unknown>) => void
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const makeDecoder = (options: FramingOptions): Decoder => {
  const decoder = new internal.FramingDecoder({
    maxMessageBytes: options.maxMessageBytes,
    maxHeaderBytes: options.maxHeaderBytes ?? defaultMaxHeaderBytes,
    oversized: options.oversized ?? "fail"
  })
  return {
    push: (chunk) => {
      const output: Array<unknown> = []
      decoder.pushInto(chunk, output)
      return output
    },
    pushInto: (chunk, output) => decoder.pushInto(chunk, output)
  }
}

/**
 * Feeds every chunk to `decoder` and returns the messages they complete, and what the decoder threw, if
 * anything: the messages completed before a fault are kept.
 *
 * @since 0.1.0
 * @category decoding
 */
export const pushAll = (
  decoder: Decoder,
  chunks: Iterable<Uint8Array>
): { readonly messages: Array<unknown>; readonly fault: unknown } => {
  const messages: Array<unknown> = []
  try {
    for (const chunk of chunks) decoder.pushInto(chunk, messages)
  } catch (fault) {
    return { messages, fault }
  }
  return { messages, fault: undefined }
}

const utf8 = new TextEncoder()

/**
 * Frames one message: the `Content-Length` header (the body's length in bytes) and the UTF-8 JSON body.
 * Throws a `TypeError` when `message` has no JSON form (`undefined`, a function, a BigInt, a cycle).
 *
 * @since 0.1.0
 * @category encoding
 */
export const encode = (message: unknown): Uint8Array => {
  const json: string | undefined = JSON.stringify(message)
  if (json === undefined) throw new TypeError(`A ${typeof message} cannot be sent as a JSON message.`)
  const body = utf8.encode(json)
  const header = `Content-Length: ${body.length}\r\n\r\n`
  const frame = new Uint8Array(header.length + body.length)
  utf8.encodeInto(header, frame)
  frame.set(body, header.length)
  return frame
}

/**
 * Decodes a byte stream into the JSON values it frames (unvalidated). Messages decoded before a fault
 * are emitted, then the stream fails with the protocol error. A partial message at the end of the input
 * is dropped: what an early end means is the caller's business.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode =
  (options: FramingOptions) =>
  <E, R>(self: Stream.Stream<Uint8Array, E, R>): Stream.Stream<unknown, E | LspError.LspLocalError, R> =>
    Stream.pipeThroughChannel(
      self,
      Channel.suspend(() => {
        const decoder = makeDecoder(options)
        const loop: Channel.Channel<
          Chunk.Chunk<unknown>,
          Chunk.Chunk<Uint8Array>,
          E | LspError.LspLocalError,
          E,
          unknown,
          unknown
        > = Channel.readWithCause({
          onInput: (chunks: Chunk.Chunk<Uint8Array>) => {
            const { fault, messages } = pushAll(decoder, chunks)
            const emitted = messages.length === 0 ? Channel.void : Channel.write(Chunk.unsafeFromArray(messages))
            if (fault === undefined) return Channel.zipRight(emitted, loop)
            // The decoder only throws LspErrors; anything else is a bug and surfaces as a defect.
            return Channel.zipRight(
              emitted,
              LspError.isLspLocalError(fault) ? Channel.fail(fault) : Channel.failCause(Cause.die(fault))
            )
          },
          onFailure: (cause: Cause.Cause<E>) => Channel.failCause(cause),
          onDone: () => Channel.void
        })
        return loop
      })
    )
