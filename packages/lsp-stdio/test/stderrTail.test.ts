import { assert, describe, it } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import * as StderrTail from "../src/internal/process/stderrTail.js"

const utf8 = new TextEncoder()

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const result = new Uint8Array(parts.reduce((total, part) => total + part.length, 0))
  let offset = 0
  for (const part of parts) {
    result.set(part, offset)
    offset += part.length
  }
  return result
}

const appendAll = (tail: StderrTail.StderrTail, chunks: ReadonlyArray<Uint8Array>) =>
  Effect.forEach(chunks, tail.append, { discard: true })

describe("StderrTail", () => {
  it.effect("keeps everything while under the limit", () =>
    Effect.gen(function*() {
      const tail = yield* StderrTail.make(100)
      assert.deepStrictEqual(yield* tail.bytes, new Uint8Array(0))
      assert.strictEqual(yield* tail.text, "")
      yield* appendAll(tail, [utf8.encode("  hello\n"), utf8.encode("world  \n")])
      assert.deepStrictEqual(yield* tail.bytes, utf8.encode("  hello\nworld  \n"))
      assert.strictEqual(yield* tail.text, "hello\nworld")
    }))

  it.effect("keeps exactly the last maxBytes bytes", () =>
    Effect.gen(function*() {
      const tail = yield* StderrTail.make(5)
      yield* appendAll(tail, [utf8.encode("abc"), utf8.encode("defg"), utf8.encode("h")])
      assert.deepStrictEqual(yield* tail.bytes, utf8.encode("defgh"))
      yield* tail.append(utf8.encode("0123456789"))
      assert.deepStrictEqual(yield* tail.bytes, utf8.encode("56789"))
    }))

  it.effect("returns a copy of the retained bytes", () =>
    Effect.gen(function*() {
      const tail = yield* StderrTail.make(8)
      yield* tail.append(utf8.encode("abc"))
      const first = yield* tail.bytes
      first[0] = 0x7a
      assert.deepStrictEqual(yield* tail.bytes, utf8.encode("abc"))
    }))

  it.effect("cuts a multi-byte character byte-exactly, and drops its remains from the text", () =>
    Effect.gen(function*() {
      const tail = yield* StderrTail.make(6)
      yield* tail.append(utf8.encode("x😀end")) // 1 + 4 + 3 bytes: the limit cuts the emoji after its first byte
      assert.deepStrictEqual(yield* tail.bytes, utf8.encode("😀end").subarray(1))
      assert.strictEqual(yield* tail.text, "end")
    }))

  it.effect("decodes leniently: invalid bytes that were not cut by the limit show as U+FFFD", () =>
    Effect.gen(function*() {
      const tail = yield* StderrTail.make(100)
      yield* tail.append(new Uint8Array([0x80, 0x61, 0xff, 0x62]))
      assert.strictEqual(yield* tail.text, "\uFFFDa\uFFFDb")
    }))

  it.effect.prop(
    "equals the last maxBytes bytes of everything appended, however it was chunked",
    {
      maxBytes: FastCheck.integer({ min: 1, max: 600 }),
      chunks: FastCheck.array(FastCheck.uint8Array({ maxLength: 700 }), { maxLength: 30 })
    },
    ({ chunks, maxBytes }) =>
      Effect.gen(function*() {
        const tail = yield* StderrTail.make(maxBytes)
        yield* appendAll(tail, chunks)
        const all = concat(chunks)
        assert.deepStrictEqual(yield* tail.bytes, all.slice(Math.max(0, all.length - maxBytes)))
      })
  )
})
