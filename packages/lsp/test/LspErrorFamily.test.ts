import { assert, describe, it } from "@effect/vitest"
import { LspError, LspErrorRead } from "@lsp-seam/lsp"
import { Effect, Schema } from "effect"

/** Which family every code belongs to, written out: a code moved to another family changes this table. */
const table: Record<LspError.LspErrorCode, LspErrorRead.Family> = {
  LSP_INVALID_ARGUMENTS: "LspArgumentsError",
  LSP_WORKSPACE_REQUIRED: "LspArgumentsError",
  LSP_POSITION_OUT_OF_RANGE: "LspArgumentsError",
  LSP_SYMBOL_NOT_FOUND: "LspArgumentsError",
  LSP_INVALID_WORKSPACE: "LspSourceError",
  LSP_SOURCE_NOT_FOUND: "LspSourceError",
  LSP_SOURCE_OUTSIDE_WORKSPACE: "LspSourceError",
  LSP_SOURCE_NOT_A_FILE: "LspSourceError",
  LSP_SOURCE_BINARY: "LspSourceError",
  LSP_SOURCE_INVALID_UTF8: "LspSourceError",
  LSP_SOURCE_TOO_LARGE: "LspSourceError",
  LSP_INVALID_CONFIG: "LspConfigurationError",
  LSP_EXECUTABLE_NOT_FOUND: "LspConfigurationError",
  LSP_INVALID_PROVIDER: "LspConfigurationError",
  LSP_CONFLICT: "LspConfigurationError",
  LSP_WORKSPACE_NOT_READY: "LspConfigurationError",
  LSP_SERVER_EXITED: "LspServerError",
  LSP_SERVER_START_FAILED: "LspServerError",
  LSP_SERVER_ERROR: "LspServerError",
  LSP_PROTOCOL_ERROR: "LspServerError",
  LSP_TRANSPORT_FAILED: "LspServerError",
  LSP_CRASH_LOOP: "LspServerError",
  LSP_MALFORMED_RESPONSE: "LspServerError",
  LSP_RESPONSE_TOO_LARGE: "LspServerError",
  LSP_TIMEOUT: "LspTimeoutError",
  LSP_REMOTE_UNAVAILABLE: "LspRemoteError",
  LSP_REMOTE_UNAUTHORIZED: "LspRemoteError",
  LSP_REMOTE_INCOMPATIBLE: "LspRemoteError",
  LSP_REMOTE_FORBIDDEN: "LspRemoteError",
  LSP_UNAVAILABLE: "LspOperationError",
  LSP_UNSUPPORTED_OPERATION: "LspOperationError",
  LSP_CANNOT_RENAME: "LspOperationError",
  LSP_DISPOSED: "LspOperationError",
  LSP_ABORTED: "LspOperationError"
}

const classes = [
  LspError.LspArgumentsError,
  LspError.LspSourceError,
  LspError.LspConfigurationError,
  LspError.LspServerError,
  LspError.LspTimeoutError,
  LspError.LspRemoteError,
  LspError.LspOperationError
] as const

const encode = Schema.encodeSync(LspError.LspError)
const decode = Schema.decodeUnknownSync(LspError.LspError)

/** Which family a failed effect was caught as, by `catchTags`. */
const caughtAs = (error: LspError.LspError) =>
  Effect.fail(error).pipe(
    Effect.catchTags({
      LspTimeoutError: (e) => Effect.succeed(`timeout ${e.code}`),
      LspSourceError: (e) => Effect.succeed(`source ${e.code}`),
      LspRemoteError: (e) => Effect.succeed(`remote ${e.code}`),
      LspConfigurationError: (e) => Effect.succeed(`configuration ${e.code}`)
    }),
    Effect.catchAll((e) => Effect.succeed(`uncaught ${e._tag}`))
  )

describe("LspError families", () => {
  it("every code belongs to exactly one family, the one its error is made in", () => {
    assert.sameMembers(Object.keys(table), [...LspErrorRead.codes])
    assert.strictEqual(new Set(LspErrorRead.codes).size, LspErrorRead.codes.length)
    for (const code of LspErrorRead.codes) {
      const holders = Object.entries(LspErrorRead.families).filter(([, members]) => {
        const codes: ReadonlyArray<string> = members
        return codes.includes(code)
      })
      assert.deepStrictEqual(holders.map(([family]) => family), [table[code]], code)
      // Only the family's class accepts the code.
      const accepting = classes.filter((c) => {
        const literals: ReadonlyArray<string> = c.fields.code.literals
        return literals.includes(code)
      }).map((c) => c._tag)
      assert.deepStrictEqual(accepting, [table[code]], code)
      const error = LspError.make(code, "m", { where: code })
      assert.strictEqual(error._tag, table[code])
      assert.strictEqual(error.code, code)
      assert.isTrue(LspError.isLspError(error))
      assert.deepStrictEqual(decode(JSON.parse(JSON.stringify(encode(error)))), error)
    }
  })

  it("the constructors build the family of their code, typed as it", () => {
    const timeout: LspError.LspTimeoutError = LspError.timeout("late")
    const source: LspError.LspSourceError = LspError.sourceNotFound("gone")
    const remote: LspError.LspRemoteError = LspError.remoteForbidden("not served")
    const configuration: LspError.LspConfigurationError = LspError.executableNotFound("no such command")
    const aborted: LspError.LspOperationError = LspError.aborted("abandoned")
    assert.deepStrictEqual(
      [timeout, source, remote, configuration, aborted].map((e) => [e._tag, e.code]),
      [
        ["LspTimeoutError", "LSP_TIMEOUT"],
        ["LspSourceError", "LSP_SOURCE_NOT_FOUND"],
        ["LspRemoteError", "LSP_REMOTE_FORBIDDEN"],
        ["LspConfigurationError", "LSP_EXECUTABLE_NOT_FOUND"],
        ["LspOperationError", "LSP_ABORTED"]
      ]
    )
    assert.instanceOf(timeout, LspError.LspTimeoutError)
    assert.notInstanceOf(source, LspError.LspTimeoutError)
  })

  it.effect("catchTag and catchTags split timeout, source, remote and configuration failures", () =>
    Effect.gen(function*() {
      const seen = yield* Effect.forEach([
        LspError.timeout("late"),
        LspError.sourceBinary("a NUL byte"),
        LspError.remoteUnauthorized("wrong token"),
        LspError.executableNotFound("no such command"),
        LspError.invalidConfig("bad"),
        LspError.serverExited("gone"),
        LspError.invalidArguments("line 0")
      ], caughtAs)
      assert.deepStrictEqual(seen, [
        "timeout LSP_TIMEOUT",
        "source LSP_SOURCE_BINARY",
        "remote LSP_REMOTE_UNAUTHORIZED",
        "configuration LSP_EXECUTABLE_NOT_FOUND",
        "configuration LSP_INVALID_CONFIG",
        "uncaught LspServerError",
        "uncaught LspArgumentsError"
      ])
      const source = yield* Effect.fail(LspError.make("LSP_SOURCE_NOT_FOUND", "gone")).pipe(
        Effect.catchTag("LspSourceError", (e) => Effect.succeed(e.code))
      )
      assert.strictEqual(source, "LSP_SOURCE_NOT_FOUND")
    }))

  it("withReason keeps the family, and a code outside its family does not decode", () => {
    const exited = LspError.withReason(LspError.serverExited("gone"), { _tag: "ServerExited" })
    assert.strictEqual(exited._tag, "LspServerError")
    assert.instanceOf(exited, LspError.LspServerError)
    const misplaced = { ...encode(LspError.timeout("late")), code: "LSP_SOURCE_NOT_FOUND" }
    assert.throws(() => decode(misplaced))
    assert.isUndefined(LspErrorRead.plainError(misplaced))
    assert.throws(() => decode({ _tag: "LspError", code: "LSP_TIMEOUT", message: "late" }))
  })
})
