import { assert, describe, it } from "@effect/vitest"
import { LspProvider, LspResult, LspService } from "@lsp-seam/lsp"
import { Effect, Exit, FastCheck, Scope } from "effect"

// A deliberately naive model of the registry: lists and loops, no shared code with the real one.
interface Model {
  readonly providers: ReadonlyArray<{ readonly id: string; readonly extensions: ReadonlyArray<string> }>
}

const normalise = (key: string): string | undefined => {
  const withDot = key.toLowerCase().startsWith(".") ? key.toLowerCase() : "." + key.toLowerCase()
  if (withDot.length < 2) return undefined
  for (const c of withDot.slice(1)) if (c === "." || c === "/" || c === "\\") return undefined
  return withDot
}

const modelRegister = (model: Model, id: string, keys: ReadonlyArray<string>): [Model, string] => {
  if (id.trim() === "" || keys.length === 0) return [model, "LSP_INVALID_PROVIDER"]
  const extensions: Array<string> = []
  for (const key of keys) {
    const ext = normalise(key)
    if (ext === undefined || extensions.includes(ext)) return [model, "LSP_INVALID_PROVIDER"]
    extensions.push(ext)
  }
  for (const p of model.providers) {
    if (p.id === id) return [model, "LSP_CONFLICT"]
    for (const ext of extensions) if (p.extensions.includes(ext)) return [model, "LSP_CONFLICT"]
  }
  return [{ providers: [...model.providers, { id, extensions }] }, "success"]
}

const modelRoute = (model: Model, ext: string): string | undefined =>
  model.providers.find((p) => p.extensions.includes(ext))?.id

type Op =
  | { readonly _tag: "register"; readonly id: string; readonly keys: ReadonlyArray<string> }
  | { readonly _tag: "unregister"; readonly index: number }

const opArbitrary: FastCheck.Arbitrary<Op> = FastCheck.oneof(
  FastCheck.record({
    _tag: FastCheck.constant("register" as const),
    id: FastCheck.constantFrom("a", "b", "c", " a", "  "),
    keys: FastCheck.uniqueArray(FastCheck.constantFrom("ts", "TS", ".ts", ".py", "go", "rs", ".tar.gz", "a/b", ""), {
      maxLength: 4
    })
  }),
  FastCheck.record({ _tag: FastCheck.constant("unregister" as const), index: FastCheck.nat(5) })
)

const probes = [".ts", ".py", ".go", ".rs"]

describe("LspService against a model", () => {
  it.effect.prop(
    "any sequence of registrations and unregistrations routes exactly as the model",
    [FastCheck.array(opArbitrary, { maxLength: 25 })],
    ([ops]) =>
      Effect.gen(function*() {
        const service = yield* LspService.LspService
        let model: Model = { providers: [] }
        const live: Array<{ readonly id: string; readonly scope: Scope.CloseableScope }> = []
        for (const op of ops) {
          if (op._tag === "register") {
            const scope = yield* Scope.make()
            const keys = Object.fromEntries(op.keys.map((k) => [k, "lang"]))
            const provider = LspProvider.make({
              id: op.id,
              extensionToLanguage: keys,
              query: () => Effect.succeed(LspResult.locations([], `provider:${op.id}`))
            })
            const outcome = yield* service.registerProvider(provider).pipe(
              Scope.extend(scope),
              Effect.match({ onFailure: (e) => e.code as string, onSuccess: () => "success" })
            )
            const [next, expected] = modelRegister(model, op.id, op.keys)
            assert.strictEqual(outcome, expected, `register ${JSON.stringify(op)}`)
            if (outcome === "success") live.push({ id: op.id, scope })
            model = next
          } else if (live.length > 0) {
            const [removed] = live.splice(op.index % live.length, 1)
            yield* Scope.close(removed!.scope, Exit.void)
            model = { providers: model.providers.filter((p) => p.id !== removed!.id) }
          }
          for (const ext of probes) {
            const routed = yield* service.query({
              operation: "goToDefinition",
              filePath: `src/file${ext.toUpperCase()}`,
              position: { line: 0, character: 0 },
              workspaceRoot: "/ws"
            }).pipe(
              Effect.map((r) => r.kind === "locations" ? r.resolvedWorkspaceUri.slice("provider:".length) : "?"),
              Effect.catchAll((e) => Effect.succeed(e.code === "LSP_UNAVAILABLE" ? undefined : e.code))
            )
            assert.strictEqual(routed, modelRoute(model, ext), `route ${ext} after ${JSON.stringify(op)}`)
          }
        }
      }).pipe(Effect.scoped, Effect.provide(LspService.layer)),
    { fastCheck: { numRuns: 200 } }
  )
})
