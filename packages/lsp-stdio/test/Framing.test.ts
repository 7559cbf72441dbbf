import { assert, describe, it } from "@effect/vitest"
import { LspError } from "@lsp-seam/lsp"
import { Cause, Chunk, Effect, Exit, FastCheck, Stream } from "effect"
import * as Framing from "../src/Framing.js"

const utf8 = new TextEncoder()
const bytes = (text: string) => utf8.encode(text)

const concat = (...parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const result = new Uint8Array(parts.reduce((total, part) => total + part.length, 0))
  let offset = 0
  for (const part of parts) {
    result.set(part, offset)
    offset += part.length
  }
  return result
}

/** A frame with a hand-written header block (`header` excludes the blank line). */
const frame = (header: string, body: string) => concat(bytes(`${header}\r\n\r\n`), bytes(body))

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

const byteByByte = (input: Uint8Array) => Array.from({ length: input.length }, (_, i) => input.subarray(i, i + 1))

const defaults: Framing.FramingOptions = { maxMessageBytes: 1_000_000 }

const decodeChunks = (chunks: ReadonlyArray<Uint8Array>, options: Framing.FramingOptions = defaults) => {
  const decoder = Framing.makeDecoder(options)
  return chunks.flatMap((chunk) => decoder.push(chunk))
}

/** What `f` throws (it must throw). */
const thrown = (f: () => unknown): unknown => {
  try {
    f()
  } catch (error) {
    return error
  }
  return assert.fail("expected an exception")
}

/** Runs `f`, which must throw a framing error, and returns its `detail.reason`. */
const failureOf = (f: () => unknown): unknown => {
  const error = thrown(f)
  if (!LspError.isLspError(error)) return assert.fail(`expected an LspError, got ${String(error)}`)
  assert.strictEqual(error.code, "LSP_PROTOCOL_ERROR")
  return error.detail?.reason
}

const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

describe("Framing.encode", () => {
  it("writes Content-Length in bytes, then the UTF-8 JSON body", () => {
    const message = { text: "é😀" }
    const encoded = Framing.encode(message)
    const body = bytes(JSON.stringify(message))
    assert.strictEqual(JSON.stringify(message).length, 14) // UTF-16 code units
    assert.strictEqual(body.length, 17) // bytes: é takes 2, 😀 takes 4
    assert.deepStrictEqual(encoded, concat(bytes(`Content-Length: ${body.length}\r\n\r\n`), body))
  })

  it("refuses values that have no JSON form", () => {
    assert.throws(() => Framing.encode(undefined), TypeError)
    assert.throws(() => Framing.encode({ n: 1n }), TypeError)
  })
})

describe("Framing.makeDecoder", () => {
  it("decodes several messages in one chunk", () => {
    const input = concat(Framing.encode({ a: 1 }), Framing.encode([2]), Framing.encode("three"))
    assert.deepStrictEqual(decodeChunks([input]), [{ a: 1 }, [2], "three"])
  })

  it("decodes messages split anywhere, including inside the header and inside a multi-byte character", () => {
    const messages = [{ text: "é😀中" }, { jsonrpc: "2.0", id: 1, result: null }]
    const input = concat(...messages.map(Framing.encode))
    assert.deepStrictEqual(decodeChunks(byteByByte(input)), messages)
    // A cut between the two bytes of "é" and inside "Content-Length".
    const split = input.indexOf(0xc3) + 1
    assert.deepStrictEqual(decodeChunks(cut(input, [3, split])), messages)
  })

  it("keeps nothing back: a message is returned by the push that completes it", () => {
    const decoder = Framing.makeDecoder(defaults)
    const input = Framing.encode({ ok: true })
    assert.deepStrictEqual(decoder.push(input.subarray(0, input.length - 1)), [])
    assert.deepStrictEqual(decoder.push(input.subarray(input.length - 1)), [{ ok: true }])
    assert.deepStrictEqual(decoder.push(new Uint8Array(0)), [])
  })

  it("matches header names case-insensitively and ignores other headers", () => {
    const input = concat(
      frame("content-length: 2", "{}"),
      frame("CONTENT-LENGTH:3", "[1]"),
      frame("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncOnTeNt-LeNgTh :  4 \r\nX-Other: a:b", "true"),
      frame("Content-Length: 1\r\nContent-Length: 1", "7")
    )
    assert.deepStrictEqual(decodeChunks(byteByByte(input)), [{}, [1], true, 7])
  })

  it("skips banner lines and blank lines before a header block, with CRLF or bare LF", () => {
    const input = concat(
      bytes("Starting server v1.2\nready — αβγ\r\n\r\n\n"),
      Framing.encode({ first: 1 }),
      bytes("another banner\n"),
      Framing.encode({ second: 2 })
    )
    assert.deepStrictEqual(decodeChunks(byteByByte(input)), [{ first: 1 }, { second: 2 }])
    assert.deepStrictEqual(decodeChunks([input]), [{ first: 1 }, { second: 2 }])
  })

  it("accepts a header block of exactly maxHeaderBytes and rejects one byte more", () => {
    const options = { maxMessageBytes: 100, maxHeaderBytes: 40 }
    // "Content-Length: 2\r\n" (19) + "X: <pad>\r\n" + "\r\n" (2) = 40 bytes
    const exact = frame(`Content-Length: 2\r\nX: ${"a".repeat(14)}`, "{}")
    assert.strictEqual(exact.indexOf(0x7b), 40)
    assert.deepStrictEqual(decodeChunks([exact], options), [{}])
    assert.deepStrictEqual(decodeChunks(byteByByte(exact), options), [{}])
    const over = frame(`Content-Length: 2\r\nX: ${"a".repeat(15)}`, "{}")
    assert.strictEqual(failureOf(() => decodeChunks([over], options)), "HeaderTooLarge")
    assert.strictEqual(failureOf(() => decodeChunks(byteByByte(over), options)), "HeaderTooLarge")
  })

  it("fails on a header block over 64 KiB by default, without waiting for its end", () => {
    const decoder = Framing.makeDecoder(defaults)
    decoder.push(bytes("Content-Length: 2\r\n"))
    const huge = bytes(`X-Padding: ${"x".repeat(65_536)}`) // no line end: it must not be buffered forever
    assert.strictEqual(failureOf(() => decoder.push(huge)), "HeaderTooLarge")
  })

  it("bounds an endless banner line the same way", () => {
    const decoder = Framing.makeDecoder({ maxMessageBytes: 100, maxHeaderBytes: 1024 })
    decoder.push(bytes("b".repeat(1024)))
    assert.strictEqual(failureOf(() => decoder.push(bytes("b"))), "HeaderTooLarge")
  })

  it("requires a Content-Length", () => {
    assert.strictEqual(failureOf(() => decodeChunks([frame("Content-Type: json", "{}")])), "MissingContentLength")
  })

  it("rejects an invalid Content-Length", () => {
    for (const value of ["abc", "-5", "+5", "1.5", "", "0x10", "1 2", "٣"]) {
      assert.strictEqual(
        failureOf(() => decodeChunks([frame(`Content-Length: ${value}`, "{}")])),
        "InvalidContentLength",
        value
      )
    }
  })

  it("rejects conflicting Content-Length headers", () => {
    assert.strictEqual(
      failureOf(() => decodeChunks([frame("Content-Length: 2\r\nContent-Length: 3", "{} ")])),
      "ConflictingContentLength"
    )
  })

  it("rejects a line without ':' inside a header block", () => {
    assert.strictEqual(failureOf(() => decodeChunks([frame("Content-Length: 2\r\nbanner", "{}")])), "MalformedHeader")
  })

  it("rejects a declared length over maxMessageBytes before any body byte arrives", () => {
    const options = { maxMessageBytes: 10 }
    assert.deepStrictEqual(decodeChunks([frame("Content-Length: 10", "1234567890")], options), [1234567890])
    const decoder = Framing.makeDecoder(options)
    // Only the header line, not even the blank line: the length alone decides.
    assert.strictEqual(failureOf(() => decoder.push(bytes("Content-Length: 11\r\n"))), "MessageTooLarge")
    assert.strictEqual(
      failureOf(() => Framing.makeDecoder(options).push(bytes(`Content-Length: ${"9".repeat(400)}\r\n`))),
      "MessageTooLarge"
    )
    // The same with a complete header block in one chunk, as writers usually send it.
    assert.strictEqual(failureOf(() => decodeChunks([frame("Content-Length: 11", "")], options)), "MessageTooLarge")
    assert.strictEqual(
      failureOf(() => decodeChunks([frame(`Content-Length: ${"9".repeat(400)}`, "")], options)),
      "MessageTooLarge"
    )
  })

  it("applies maxHeaderBytes to the shortest header too", () => {
    const input = Framing.encode({})
    assert.strictEqual(
      failureOf(() => decodeChunks([input], { maxMessageBytes: 100, maxHeaderBytes: 20 })),
      "HeaderTooLarge"
    )
    assert.deepStrictEqual(decodeChunks([input], { maxMessageBytes: 100, maxHeaderBytes: 21 }), [{}])
  })

  it("rejects a body that is not valid UTF-8 or not JSON", () => {
    const invalidUtf8 = concat(bytes("Content-Length: 3\r\n\r\n\""), new Uint8Array([0xff]), bytes("\""))
    assert.strictEqual(failureOf(() => decodeChunks([invalidUtf8])), "InvalidUtf8")
    // An over-long encoding of "/" and a lone surrogate encoded in UTF-8 are invalid too.
    const overlong = concat(bytes("Content-Length: 4\r\n\r\n\""), new Uint8Array([0xc0, 0xaf]), bytes("\""))
    assert.strictEqual(failureOf(() => decodeChunks([overlong])), "InvalidUtf8")
    const surrogate = concat(bytes("Content-Length: 5\r\n\r\n\""), new Uint8Array([0xed, 0xa0, 0x80]), bytes("\""))
    assert.strictEqual(failureOf(() => decodeChunks([surrogate])), "InvalidUtf8")
    assert.strictEqual(failureOf(() => decodeChunks([frame("Content-Length: 5", "{oops")])), "InvalidJson")
    assert.strictEqual(failureOf(() => decodeChunks([frame("Content-Length: 0", "")])), "InvalidJson")
  })

  it("decodes large bodies, ASCII or not, whole in one chunk or spread over many", () => {
    const ascii = {
      jsonrpc: "2.0",
      id: 1,
      result: Array.from({ length: 3000 }, (_, i) => ({ uri: `file:///a${i}.ts` }))
    }
    const accented = { ...ascii, id: 2, result: [...ascii.result, { uri: "file:///données/é/😀.ts" }] }
    const input = concat(Framing.encode(ascii), Framing.encode(accented))
    assert.isAbove(input.length, 100_000)
    const expected = [ascii, accented]
    assert.deepStrictEqual(decodeChunks([input]), expected)
    // 1000-byte chunks: every body spans many chunks, and the emoji's bytes are split at some chunk boundary.
    const chunks = cut(input, Array.from({ length: Math.ceil(input.length / 1000) }, (_, i) => i * 1000))
    assert.deepStrictEqual(decodeChunks(chunks), expected)
    const emoji = input.indexOf(0xf0)
    assert.deepStrictEqual(decodeChunks(cut(input, [emoji + 1, emoji + 3])), expected)
  })

  it("rejects invalid UTF-8 in a body spread over many chunks, and in a large ASCII-looking one", () => {
    const body = concat(bytes(`"${"a".repeat(5000)}`), new Uint8Array([0xe9]), bytes(`${"b".repeat(5000)}"`))
    const input = concat(bytes(`Content-Length: ${body.length}\r\n\r\n`), body)
    assert.strictEqual(failureOf(() => decodeChunks([input])), "InvalidUtf8")
    assert.strictEqual(failureOf(() => decodeChunks(cut(input, [100, 3000, 5024, 5025, 9000]))), "InvalidUtf8")
  })

  it("checks and decodes bodies of 64 KiB or more as it does small ones (another decoding path)", () => {
    const filler = "a".repeat(70_000)
    const framed = (body: Uint8Array) => concat(bytes(`Content-Length: ${body.length}\r\n\r\n`), body)
    for (const invalid of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe9]]) {
      const body = concat(bytes(`["${filler}`), new Uint8Array(invalid), bytes("é\"]"))
      assert.strictEqual(failureOf(() => decodeChunks([framed(body)])), "InvalidUtf8", `bytes ${invalid.join(" ")}`)
    }
    const bom = new Uint8Array([0xef, 0xbb, 0xbf])
    assert.deepStrictEqual(decodeChunks([framed(concat(bom, bytes(`["${filler}é"]`)))]), [[`${filler}é`]])
    assert.deepStrictEqual(decodeChunks([framed(concat(bom, bytes(`["${filler}"]`)))]), [[filler]])
    assert.deepStrictEqual(decodeChunks([framed(bytes(`["${filler}😀"]`))]), [[`${filler}😀`]])
  })

  it("skips a UTF-8 byte order mark at the start of a body, as vscode-jsonrpc does", () => {
    const input = concat(bytes("Content-Length: 7\r\n\r\n"), new Uint8Array([0xef, 0xbb, 0xbf]), bytes("[42]"))
    assert.deepStrictEqual(decodeChunks([input]), [[42]])
    assert.deepStrictEqual(decodeChunks(byteByByte(input)), [[42]])
  })

  it("stays failed: every later push throws the same error", () => {
    const decoder = Framing.makeDecoder(defaults)
    const first = thrown(() => decoder.push(frame("Content-Length: 1", "x")))
    assert.isTrue(LspError.isLspError(first))
    assert.strictEqual(thrown(() => decoder.push(Framing.encode({}))), first)
  })

  it("pushInto keeps the messages that precede a fault in the same chunk", () => {
    const decoder = Framing.makeDecoder(defaults)
    const output: Array<unknown> = []
    const input = concat(Framing.encode(1), Framing.encode(2), frame("Content-Length: 1", "x"))
    assert.throws(() => decoder.pushInto(input, output))
    assert.deepStrictEqual(output, [1, 2])
  })

  it.prop(
    "decodes any sequence of JSON messages, however it is cut",
    {
      messages: FastCheck.array(
        FastCheck.oneof(
          FastCheck.jsonValue({ stringUnit: "binary" }),
          FastCheck.jsonValue({ stringUnit: "grapheme" })
        ),
        { maxLength: 8 }
      ),
      cuts: FastCheck.array(FastCheck.nat(), { maxLength: 40 })
    },
    ({ cuts, messages }) => {
      const input = concat(...messages.map(Framing.encode))
      assert.deepStrictEqual(decodeChunks(cut(input, cuts)), messages.map(roundTrip))
    }
  )

  /** Byte soup biased towards the interesting parts of the grammar. */
  const garbage = FastCheck.array(
    FastCheck.oneof(
      FastCheck.uint8Array({ maxLength: 24 }),
      FastCheck.constantFrom("Content-Length:", "content-length: ", "\r\n", "\n", "\r\n\r\n", ":", " ", "{}", "\"é"),
      FastCheck.integer({ min: 0, max: 200 }).map(String),
      FastCheck.jsonValue().map((value) => Framing.encode(value))
    ).map((part) => typeof part === "string" ? bytes(part) : part),
    { maxLength: 30 }
  ).map((parts) => concat(...parts))

  it.prop(
    "never throws anything but a coded protocol error on arbitrary input",
    { input: garbage, cuts: FastCheck.array(FastCheck.nat(), { maxLength: 20 }) },
    ({ cuts, input }) => {
      try {
        decodeChunks(cut(input, cuts), { maxMessageBytes: 150, maxHeaderBytes: 64 })
      } catch (error) {
        assert.isTrue(LspError.isLspError(error) && error.code === "LSP_PROTOCOL_ERROR", String(error))
      }
    }
  )
})

describe("Framing.decode", () => {
  it.effect("turns a byte stream into messages", () =>
    Effect.gen(function*() {
      const input = concat(Framing.encode({ a: "ü" }), Framing.encode([1, 2, 3]))
      const messages = yield* Stream.fromIterable(byteByByte(input)).pipe(
        Framing.decode(defaults),
        Stream.runCollect
      )
      assert.deepStrictEqual(Chunk.toReadonlyArray(messages), [{ a: "ü" }, [1, 2, 3]])
    }))

  it.effect("emits the messages before a fault, then fails with the protocol error", () =>
    Effect.gen(function*() {
      const input = concat(Framing.encode("kept"), frame("Content-Length: 1", "x"), Framing.encode("never"))
      const seen: Array<unknown> = []
      const exit = yield* Stream.make(input).pipe(
        Framing.decode(defaults),
        Stream.runForEach((message) => Effect.sync(() => seen.push(message))),
        Effect.exit
      )
      assert.deepStrictEqual(seen, ["kept"])
      assert.isTrue(
        Exit.isFailure(exit) && Cause.isFailType(exit.cause) && exit.cause.error.code === "LSP_PROTOCOL_ERROR"
      )
    }))

  it.effect("passes the input's own failure through", () =>
    Effect.gen(function*() {
      const upstream = LspError.transportFailed("pipe closed")
      const failure = yield* Stream.concat(Stream.make(Framing.encode(1)), Stream.fail(upstream)).pipe(
        Framing.decode(defaults),
        Stream.runDrain,
        Effect.flip
      )
      assert.strictEqual(failure, upstream)
    }))

  it.effect("ends quietly when the input ends, even mid-message", () =>
    Effect.gen(function*() {
      const input = concat(Framing.encode(1), Framing.encode(2).subarray(0, 10))
      const messages = yield* Stream.make(input).pipe(Framing.decode(defaults), Stream.runCollect)
      assert.deepStrictEqual(Chunk.toReadonlyArray(messages), [1])
    }))

  it.effect("decodes each run of the stream with a fresh decoder", () =>
    Effect.gen(function*() {
      const stream = Stream.make(Framing.encode(1)).pipe(Framing.decode(defaults))
      assert.deepStrictEqual(Chunk.toReadonlyArray(yield* Stream.runCollect(stream)), [1])
      assert.deepStrictEqual(Chunk.toReadonlyArray(yield* Stream.runCollect(stream)), [1])
    }))

  it.effect.prop(
    "fails only with a protocol error on arbitrary input, never with a defect",
    { input: FastCheck.uint8Array({ maxLength: 300 }), cuts: FastCheck.array(FastCheck.nat(), { maxLength: 10 }) },
    ({ cuts, input }) =>
      Effect.gen(function*() {
        const exit = yield* Stream.fromIterable(cut(input, cuts)).pipe(
          Framing.decode({ maxMessageBytes: 100 }),
          Stream.runDrain,
          Effect.exit
        )
        if (Exit.isFailure(exit)) {
          assert.isTrue(Cause.isFailType(exit.cause) && exit.cause.error.code === "LSP_PROTOCOL_ERROR")
        }
      })
  )
})
