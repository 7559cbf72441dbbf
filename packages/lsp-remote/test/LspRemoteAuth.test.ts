import { assert, describe, it } from "@effect/vitest"
import { LspRemoteAuth } from "@lsp-seam/lsp-remote"
import { ConfigProvider, Effect, Either, Redacted } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { tempDir } from "./support.js"

const token = "abcdefghijklmnop-0123456789_~."

describe("LspRemoteAuth", () => {
  it("accepts header- and subprotocol-safe tokens of 16 to 1024 characters only", () => {
    assert.isTrue(Either.isRight(LspRemoteAuth.make(token)))
    const bad = ["short", "x".repeat(1025), "has space in it!!!", "comma,separated,token", "ünïcödé-ünïcödé-ü"]
    for (const text of bad) {
      const made = LspRemoteAuth.make(text)
      assert.isTrue(Either.isLeft(made), text)
      if (Either.isLeft(made)) assert.strictEqual(made.left.code, "LSP_INVALID_CONFIG")
    }
  })

  it("matches only the exact token", () => {
    const expected = Redacted.make(token)
    assert.isTrue(LspRemoteAuth.matches(expected, token))
    assert.isFalse(LspRemoteAuth.matches(expected, `${token}x`))
    assert.isFalse(LspRemoteAuth.matches(expected, token.slice(1)))
    assert.isFalse(LspRemoteAuth.matches(expected, ""))
  })

  it("finds the token in an Authorization header or a bearer subprotocol", () => {
    const expected = Redacted.make(token)
    assert.isTrue(LspRemoteAuth.authorize(expected, { authorization: `Bearer ${token}` }))
    assert.isTrue(LspRemoteAuth.authorize(expected, { authorization: `bearer   ${token}` }))
    assert.isTrue(
      LspRemoteAuth.authorize(expected, {
        "sec-websocket-protocol": `${LspRemoteAuth.subprotocol}, ${LspRemoteAuth.bearerSubprotocolPrefix}${token}`
      })
    )
    assert.isFalse(LspRemoteAuth.authorize(expected, {}))
    assert.isFalse(LspRemoteAuth.authorize(expected, { authorization: `Basic ${token}` }))
    assert.isFalse(LspRemoteAuth.authorize(expected, { "sec-websocket-protocol": token }))
    assert.isFalse(
      LspRemoteAuth.authorize(expected, {
        authorization: "Bearer wrong-wrong-wrong-wrong",
        "sec-websocket-protocol": `${LspRemoteAuth.bearerSubprotocolPrefix}also-wrong-also-wrong`
      })
    )
  })

  it.effect("generates distinct valid tokens", () =>
    Effect.gen(function*() {
      const a = Redacted.value(yield* LspRemoteAuth.generate)
      const b = Redacted.value(yield* LspRemoteAuth.generate)
      assert.notStrictEqual(a, b)
      assert.isTrue(Either.isRight(LspRemoteAuth.make(a)))
    }))

  it.scoped("reads a token file only when it is private to its owner", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "token")
      yield* LspRemoteAuth.writeFile(file, Redacted.make(token))
      assert.strictEqual(Fs.statSync(file).mode & 0o777, 0o600)
      assert.strictEqual(Redacted.value(yield* LspRemoteAuth.fromFile(file)), token)
      const again = yield* Effect.flip(LspRemoteAuth.writeFile(file, Redacted.make(token)))
      assert.strictEqual(again.code, "LSP_INVALID_CONFIG")
      Fs.chmodSync(file, 0o640)
      const shared = yield* Effect.flip(LspRemoteAuth.fromFile(file))
      assert.strictEqual(shared.code, "LSP_INVALID_CONFIG")
      assert.include(shared.message, "other users")
      Fs.chmodSync(file, 0o600)
      const link = Path.join(dir, "link")
      Fs.symlinkSync(file, link)
      assert.strictEqual((yield* Effect.flip(LspRemoteAuth.fromFile(link))).code, "LSP_INVALID_CONFIG")
      assert.strictEqual(
        (yield* Effect.flip(LspRemoteAuth.fromFile(Path.join(dir, "none")))).code,
        "LSP_INVALID_CONFIG"
      )
      const junk = Path.join(dir, "junk")
      Fs.writeFileSync(junk, "not a token\n", { mode: 0o600 })
      assert.strictEqual((yield* Effect.flip(LspRemoteAuth.fromFile(junk))).code, "LSP_INVALID_CONFIG")
    }))

  it.effect("reads a token from an environment variable", () =>
    Effect.gen(function*() {
      const provider = ConfigProvider.fromMap(new Map([["LSP_SEAM_TOKEN", ` ${token}\n`], ["BAD", "nope"]]))
      const read = yield* Effect.withConfigProvider(LspRemoteAuth.fromEnv("LSP_SEAM_TOKEN"), provider)
      assert.strictEqual(Redacted.value(read), token)
      const missing = yield* Effect.flip(Effect.withConfigProvider(LspRemoteAuth.fromEnv("NONE"), provider))
      assert.strictEqual(missing.code, "LSP_INVALID_CONFIG")
      const bad = yield* Effect.flip(Effect.withConfigProvider(LspRemoteAuth.fromEnv("BAD"), provider))
      assert.strictEqual(bad.code, "LSP_INVALID_CONFIG")
      assert.notInclude(bad.message, "nope")
    }))
})
