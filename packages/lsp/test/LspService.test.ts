import { assert, describe, it } from "@effect/vitest"
import { LspError, LspProvider, LspResult, LspService } from "@lsp-seam/lsp"
import * as Testing from "@lsp-seam/lsp/testing"
import { Effect, Exit, Layer, Scope } from "effect"

const request = (filePath: string, operation: "hover" | "goToDefinition" = "goToDefinition") => ({
  operation,
  filePath,
  position: { line: 0, character: 0 },
  workspaceRoot: "/ws"
})

const answer = LspResult.locations([], "file:///ws")

const provider = (id: string, extensionToLanguage: Record<string, string>, result = answer) =>
  LspProvider.make({ id, extensionToLanguage, query: () => Effect.succeed(result) })

/** The error code of a failed effect, or "success". */
const codeOf = <A, R>(effect: Effect.Effect<A, LspError.LspError, R>) =>
  effect.pipe(
    Effect.match({ onFailure: (error) => error.code, onSuccess: () => "success" as const })
  )

const register = (p: LspProvider.LspProvider) => codeOf(LspService.registerProvider(p))

describe("LspService registration rules", () => {
  const cases: ReadonlyArray<readonly [string, LspProvider.LspProvider, LspError.LspErrorCode]> = [
    ["blank id", provider("  ", { ts: "typescript" }), "LSP_INVALID_PROVIDER"],
    ["empty id", provider("", { ts: "typescript" }), "LSP_INVALID_PROVIDER"],
    ["empty map", provider("p", {}), "LSP_INVALID_PROVIDER"],
    ["multi-dot key", provider("p", { ".tar.gz": "x" }), "LSP_INVALID_PROVIDER"],
    ["empty key", provider("p", { "": "x" }), "LSP_INVALID_PROVIDER"],
    ["double dot key", provider("p", { "..ts": "x" }), "LSP_INVALID_PROVIDER"],
    ["slash key", provider("p", { "a/b": "x" }), "LSP_INVALID_PROVIDER"],
    ["backslash key", provider("p", { ".a\\b": "x" }), "LSP_INVALID_PROVIDER"],
    ["blank language id", provider("p", { ts: " " }), "LSP_INVALID_PROVIDER"],
    [
      "keys normalising to one extension",
      provider("p", { ts: "typescript", ".TS": "typescript" }),
      "LSP_INVALID_PROVIDER"
    ]
  ]
  for (const [name, p, code] of cases) {
    it.scoped(name, () =>
      Effect.gen(function*() {
        assert.strictEqual(yield* register(p), code)
      }).pipe(Effect.provide(LspService.layer)))
  }

  it.scoped("rejects a provider that is not one (plain JavaScript input)", () =>
    Effect.gen(function*() {
      const notAProvider = JSON.parse("{\"id\":\"p\",\"extensionToLanguage\":{\"ts\":\"typescript\"}}")
      assert.strictEqual(yield* register(notAProvider), "LSP_INVALID_PROVIDER")
      const badMap = { id: "p", extensionToLanguage: { ts: 1 }, query: () => Effect.succeed(answer) }
      assert.strictEqual(yield* register(JSON.parse(JSON.stringify(badMap)) as never), "LSP_INVALID_PROVIDER")
    }).pipe(Effect.provide(LspService.layer)))

  it.scoped("does not trim ids: ' a' and 'a' are different providers", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* register(provider("a", { ts: "typescript" })), "success")
      assert.strictEqual(yield* register(provider(" a", { py: "python" })), "success")
    }).pipe(Effect.provide(LspService.layer)))

  it.scoped("normalises keys: 'TS' routes '.ts' files with the language id", () =>
    Effect.gen(function*() {
      const fake = yield* Testing.registerFakeProvider({
        id: "ts",
        extensionToLanguage: { TS: "typescript" },
        script: [Testing.succeed(answer)]
      })
      yield* LspService.query(request("src/Main.Ts"))
      const [received] = yield* fake.queries
      assert.strictEqual(received?.languageId, "typescript")
      assert.strictEqual(received?.filePath, "src/Main.Ts")
    }).pipe(Effect.provide(LspService.layer)))

  it.scoped("an id held by another provider is a conflict", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* register(provider("p", { ts: "typescript" })), "success")
      assert.strictEqual(yield* register(provider("p", { py: "python" })), "LSP_CONFLICT")
    }).pipe(Effect.provide(LspService.layer)))

  it.scoped("an extension held by another provider is a conflict, whatever its spelling", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* register(provider("a", { ".ts": "typescript" })), "success")
      assert.strictEqual(yield* register(provider("b", { TS: "typescript" })), "LSP_CONFLICT")
    }).pipe(Effect.provide(LspService.layer)))
})

describe("LspService atomicity and scopes", () => {
  it.scoped("a registration failing on its last extension reserves nothing", () =>
    Effect.gen(function*() {
      yield* LspService.registerProvider(provider("owner", { rs: "rust" }))
      const failing = provider("late", { py: "python", go: "go", rs: "rust" })
      assert.strictEqual(yield* register(failing), "LSP_CONFLICT")
      // Neither the id nor the earlier extensions were kept.
      assert.strictEqual(yield* codeOf(LspService.query(request("a.py"))), "LSP_UNAVAILABLE")
      assert.strictEqual(yield* codeOf(LspService.query(request("a.go"))), "LSP_UNAVAILABLE")
      assert.strictEqual(yield* register(provider("late", { py: "python", go: "go" })), "success")
      assert.strictEqual(yield* codeOf(LspService.query(request("a.py"))), "success")
    }).pipe(Effect.provide(LspService.layer)))

  it.scoped("closing the scope releases the id and every extension; the id can register again", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      yield* LspService.registerProvider(provider("p", { ts: "typescript", tsx: "typescriptreact" })).pipe(
        Scope.extend(scope)
      )
      assert.strictEqual(yield* codeOf(LspService.query(request("a.tsx"))), "success")
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(yield* codeOf(LspService.query(request("a.ts"))), "LSP_UNAVAILABLE")
      assert.strictEqual(yield* codeOf(LspService.query(request("a.tsx"))), "LSP_UNAVAILABLE")
      assert.strictEqual(yield* register(provider("p", { ts: "typescript", tsx: "typescriptreact" })), "success")
      assert.strictEqual(yield* codeOf(LspService.query(request("a.tsx"))), "success")
    }).pipe(Effect.provide(LspService.layer)))

  it.scoped("a stale release does not remove a newer registration of the same id", () =>
    Effect.gen(function*() {
      const first = yield* Scope.make()
      yield* LspService.registerProvider(provider("p", { ts: "typescript" })).pipe(Scope.extend(first))
      yield* Scope.close(first, Exit.void)
      yield* LspService.registerProvider(provider("p", { ts: "typescript" }))
      yield* Scope.close(first, Exit.void)
      assert.strictEqual(yield* codeOf(LspService.query(request("a.ts"))), "success")
    }).pipe(Effect.provide(LspService.layer)))

  it.effect("after the service's own scope closes, it refuses work with LSP_DISPOSED", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const service = yield* LspService.make.pipe(Scope.extend(scope))
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(yield* codeOf(service.query(request("a.ts"))), "LSP_DISPOSED")
      assert.strictEqual(
        yield* codeOf(Effect.scoped(service.registerProvider(provider("p", { ts: "typescript" })))),
        "LSP_DISPOSED"
      )
    }))

  it.effect("a provider Layer registers for the Layer's lifetime and fails the build on conflict", () =>
    Effect.gen(function*() {
      const both = Layer.mergeAll(
        LspService.layerProvider(provider("a", { ts: "typescript" })),
        LspService.layerProvider(provider("b", { ts: "typescript" }))
      ).pipe(Layer.provideMerge(LspService.layer))
      const exit = yield* Effect.exit(Effect.scoped(Layer.build(both)))
      assert.isTrue(Exit.isFailure(exit))
      const one = LspService.layerProvider(provider("a", { ts: "typescript" })).pipe(
        Layer.provideMerge(LspService.layer)
      )
      const code = yield* codeOf(LspService.query(request("x.ts"))).pipe(Effect.provide(one))
      assert.strictEqual(code, "success")
    }))
})

describe("LspService routing", () => {
  const twoProviders = (order: "ab" | "ba") =>
    Effect.gen(function*() {
      const a = yield* Testing.makeFakeProvider({
        id: "a",
        extensionToLanguage: { ts: "typescript" },
        script: [Testing.succeed(LspResult.locations([], "file:///a"))]
      })
      const b = yield* Testing.makeFakeProvider({
        id: "b",
        extensionToLanguage: { py: "python" },
        script: [Testing.succeed(LspResult.locations([], "file:///b"))]
      })
      for (const fake of order === "ab" ? [a, b] : [b, a]) yield* LspService.registerProvider(fake.provider)
      const ts = yield* LspService.query(request("x.ts"))
      const py = yield* LspService.query(request("x.PY"))
      return [ts, py]
    })

  it.scoped("routes by final extension, independent of registration order", () =>
    Effect.gen(function*() {
      for (const order of ["ab", "ba"] as const) {
        const [ts, py] = yield* Effect.scoped(twoProviders(order)).pipe(Effect.provide(LspService.layer))
        assert.deepStrictEqual(ts, LspResult.locations([], "file:///a"))
        assert.deepStrictEqual(py, LspResult.locations([], "file:///b"))
      }
    }))

  it.scoped("no route is LSP_UNAVAILABLE, including files without an extension and dotfiles", () =>
    Effect.gen(function*() {
      yield* LspService.registerProvider(provider("p", { ts: "typescript" }))
      for (const path of ["a.py", "Makefile", ".ts", "foo."]) {
        assert.strictEqual(yield* codeOf(LspService.query(request(path))), "LSP_UNAVAILABLE")
      }
    }).pipe(Effect.provide(LspService.layer)))

  it.scoped("a provider's failure reaches the caller unchanged", () =>
    Effect.gen(function*() {
      const failure = LspError.serverError("boom", { jsonRpcCode: -32603 })
      yield* Testing.registerFakeProvider({
        id: "p",
        extensionToLanguage: { ts: "typescript" },
        script: [Testing.fail(failure)]
      })
      const error = yield* Effect.flip(LspService.query(request("a.ts")))
      assert.strictEqual(error, failure)
    }).pipe(Effect.provide(LspService.layer)))

  it.scoped("an invalid request is LSP_INVALID_ARGUMENTS and never reaches a provider", () =>
    Effect.gen(function*() {
      const fake = yield* Testing.registerFakeProvider({
        id: "p",
        extensionToLanguage: { ts: "typescript" },
        script: [Testing.succeed(answer)]
      })
      const bad = { ...request("a.ts"), position: { line: -1, character: 0 } }
      assert.strictEqual(yield* codeOf(LspService.query(bad)), "LSP_INVALID_ARGUMENTS")
      // JSON on which Schema's own union check throws (see LspDecode): refused the same way.
      const unreadable = { ...request("a.ts"), operation: JSON.parse("{\"toString\":0}") }
      assert.strictEqual(yield* codeOf(LspService.query(unreadable)), "LSP_INVALID_ARGUMENTS")
      assert.strictEqual((yield* fake.queries).length, 0)
    }).pipe(Effect.provide(LspService.layer)))

  it.scoped("a provider answer that breaks the contract is LSP_MALFORMED_RESPONSE", () =>
    Effect.gen(function*() {
      yield* LspService.registerProvider(provider("loc", { ts: "typescript" }))
      // Locations answering hover: wrong kind for the operation.
      assert.strictEqual(yield* codeOf(LspService.query(request("a.ts", "hover"))), "LSP_MALFORMED_RESPONSE")
      const broken = JSON.parse("{\"kind\":\"locations\",\"locations\":[{\"uri\":1}],\"resolvedWorkspaceUri\":\"x\"}")
      yield* LspService.registerProvider(provider("broken", { py: "python" }, broken))
      assert.strictEqual(yield* codeOf(LspService.query(request("a.py"))), "LSP_MALFORMED_RESPONSE")
      const unreadable = JSON.parse("{\"kind\":{\"toString\":0}}")
      yield* LspService.registerProvider(provider("unreadable", { go: "go" }, unreadable))
      assert.strictEqual(yield* codeOf(LspService.query(request("a.go"))), "LSP_MALFORMED_RESPONSE")
    }).pipe(Effect.provide(LspService.layer)))
})
