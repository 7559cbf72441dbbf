/**
 * Differential checks against the reference implementation, vscode-jsonrpc: what its writer frames, our
 * decoder reads back identically, and what our encoder frames, its reader reads back identically.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import { PassThrough } from "node:stream"
import type { RequestMessage } from "vscode-jsonrpc/node.js"
import { StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node.js"
import * as Framing from "../src/Framing.js"

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const result = new Uint8Array(parts.reduce((total, part) => total + part.length, 0))
  let offset = 0
  for (const part of parts) {
    result.set(part, offset)
    offset += part.length
  }
  return result
}

/** Cuts `input` at the given positions (taken modulo its length). */
const cut = (input: Uint8Array, positions: ReadonlyArray<number>): Array<Uint8Array> => {
  const points = [...new Set(positions.map((p) => input.length === 0 ? 0 : p % input.length))].sort((a, b) => a - b)
  const chunks: Array<Uint8Array> = []
  let start = 0
  for (const point of points) {
    chunks.push(input.subarray(start, point))
    start = point
  }
  chunks.push(input.subarray(start))
  return chunks
}

/** Frames `messages` with vscode-jsonrpc's writer and returns the bytes it wrote. */
const writeWithReference = (messages: ReadonlyArray<RequestMessage>) =>
  Effect.promise(async () => {
    const stream = new PassThrough()
    const written: Array<Uint8Array> = []
    stream.on("data", (chunk: Buffer) => written.push(new Uint8Array(chunk)))
    const writer = new StreamMessageWriter(stream)
    for (const message of messages) await writer.write(message)
    writer.dispose()
    stream.end()
    await new Promise((resolve) => stream.once("end", resolve))
    return concat(written)
  })

/** Feeds `chunks` to vscode-jsonrpc's reader and returns the first `count` messages it reads. */
const readWithReference = (chunks: ReadonlyArray<Uint8Array>, count: number) =>
  Effect.promise(() =>
    new Promise<Array<unknown>>((resolve, reject) => {
      const stream = new PassThrough()
      const reader = new StreamMessageReader(stream)
      const read: Array<unknown> = []
      const done = () => {
        reader.dispose()
        resolve(read)
      }
      reader.onError(reject)
      reader.listen((message) => {
        read.push(message)
        if (read.length === count) done()
      })
      if (count === 0) done()
      for (const chunk of chunks) stream.write(chunk)
    })
  )

const message: FastCheck.Arbitrary<RequestMessage> = FastCheck.record({
  id: FastCheck.nat(),
  method: FastCheck.string({ unit: "grapheme", minLength: 1, maxLength: 20 }),
  value: FastCheck.oneof(
    FastCheck.jsonValue({ stringUnit: "binary" }),
    FastCheck.jsonValue({ stringUnit: "grapheme" })
  )
}).map(({ id, method, value }) => ({ jsonrpc: "2.0", id, method, params: { value } }))

const messages = FastCheck.array(message, { minLength: 1, maxLength: 6 })
const cuts = FastCheck.array(FastCheck.nat(), { maxLength: 20 })

const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

describe("Framing against vscode-jsonrpc", () => {
  it.effect.prop(
    "decodes what vscode-jsonrpc's writer frames",
    { messages, cuts },
    ({ cuts, messages }) =>
      Effect.gen(function*() {
        const bytes = yield* writeWithReference(messages)
        const decoder = Framing.makeDecoder({ maxMessageBytes: 10_000_000 })
        const decoded = cut(bytes, cuts).flatMap((chunk) => decoder.push(chunk))
        assert.deepStrictEqual(decoded, messages.map(roundTrip))
      }),
    { fastCheck: { numRuns: 50 } }
  )

  it.effect.prop(
    "frames what vscode-jsonrpc's reader decodes identically",
    { messages, cuts },
    ({ cuts, messages }) =>
      Effect.gen(function*() {
        const bytes = concat(messages.map(Framing.encode))
        const read = yield* readWithReference(cut(bytes, cuts), messages.length)
        assert.deepStrictEqual(read, messages.map(roundTrip))
      }),
    { fastCheck: { numRuns: 50 } }
  )

  it.effect("agrees byte for byte with vscode-jsonrpc's writer", () =>
    Effect.gen(function*() {
      const sample: RequestMessage = { jsonrpc: "2.0", id: 7, method: "textDocument/hover", params: { text: "é😀中" } }
      const reference = yield* writeWithReference([sample])
      assert.deepStrictEqual(Framing.encode(sample), reference)
    }))
})
