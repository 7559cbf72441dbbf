/**
 * More TypeScript projects than `maxProjects`, against real tsserver from the repository root (DESIGN §9): the
 * projects that can reach the asked file are searched first — one that references it in tsconfig, one whose
 * package.json depends on its package — and examples and fixtures last, whatever their names sort as; a question
 * about one place carries no flag about other projects; and an earlier question about an example does not widen
 * the next answer.
 */
import { assert, describe, it } from "@effect/vitest"
import { LspResult, LspService } from "@lsp-seam/lsp"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as Scratch from "./support/scratchRepository.js"
import * as TypeScriptHost from "./support/typescriptHost.js"

const compilerOptions = { strict: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", types: [] }

/** lib is asked about; app depends on its package, linked references its tsconfig; the rest are examples. */
const makeMonorepo = () => {
  const files: Record<string, string> = {}
  const project = (directory: string, extra: Record<string, unknown> = {}) => {
    files[`${directory}/tsconfig.json`] = JSON.stringify({ compilerOptions, include: ["src"], ...extra })
  }
  const caller = (directory: string, depth: string) => {
    files[`${directory}/src/main.ts`] = `import { greet } from "${depth}packages/lib/src/index.js"\n\n` +
      `export function run(): string {\n  return greet("${directory}")\n}\n`
  }
  files["package.json"] = JSON.stringify({ name: "mono", private: true })
  files["packages/lib/package.json"] = JSON.stringify({ name: "@mono/lib" })
  project("packages/lib", { compilerOptions: { ...compilerOptions, composite: true } })
  files["packages/lib/src/index.ts"] = "export function greet(who: string): string {\n  return `hello ${who}`\n}\n"
  // Sorted by name, the examples and fixtures come first: a host that takes projects in name order misses these two.
  files["packages/zapp/package.json"] = JSON.stringify({ name: "@mono/zapp", dependencies: { "@mono/lib": "*" } })
  project("packages/zapp")
  caller("packages/zapp", "../../../")
  project("packages/zlinked", { references: [{ path: "../lib" }] })
  caller("packages/zlinked", "../../../")
  for (const example of ["examples/basic", "examples/fancy", "examples/more", "fixtures/one"]) {
    project(example)
    caller(example, "../../../")
  }
  return Scratch.make("relevance", files)
}

// The asked file's project and two more.
const hostLayer = TypeScriptHost.layer(3)

const greetAt = { filePath: "packages/lib/src/index.ts", position: { line: 0, character: 16 } }

const summary = (root: string, result: LspResult.LspQueryResult) => ({
  places: result.kind === "locations"
    ? result.locations.map((l) => `${Scratch.relative(root, l.uri)}:${l.range.start.line}`).sort()
    : result.kind === "calls"
    ? result.calls.map((c) => `${c.name} ${Scratch.relative(root, c.uri)}`).sort()
    : [],
  reasons: LspResult.incompleteReasonsOf(result).map((reason) => `${reason.reason}: ${reason.message}`)
})

const ask = (root: string, operation: "findReferences" | "incomingCalls" | "hover" | "goToDefinition") =>
  Effect.map(LspService.query({ operation, ...greetAt, workspaceRoot: root }), (result) => summary(root, result))

describe("relevant TypeScript projects first", () => {
  it.live(
    "the projects that reach the asked file are searched; the flag names the skipped examples",
    () =>
      Effect.gen(function*() {
        const root = makeMonorepo()
        const callers = yield* ask(root, "incomingCalls")
        assert.deepStrictEqual(callers.places, ["run packages/zapp/src/main.ts", "run packages/zlinked/src/main.ts"])
        assert.strictEqual(callers.reasons.length, 1)
        assert.include(
          callers.reasons[0]!,
          "4 project(s) of this workspace (examples/basic/tsconfig.json, examples/fancy/tsconfig.json, " +
            "examples/more/tsconfig.json, fixtures/one/tsconfig.json)"
        )

        // Questions about one place say nothing about other projects.
        const hover = yield* ask(root, "hover")
        assert.deepStrictEqual(hover.reasons, [])
        const definition = yield* ask(root, "goToDefinition")
        assert.deepStrictEqual(definition.reasons, [])
        NodeFs.rmSync(root, { recursive: true, force: true })
      }).pipe(Effect.provide(hostLayer)),
    120_000
  )

  it.live("an earlier question about an example does not widen the next answer", () =>
    Effect.gen(function*() {
      const root = makeMonorepo()
      const fresh = yield* ask(root, "findReferences").pipe(Effect.provide(hostLayer))
      assert.deepStrictEqual(fresh.places, [
        "packages/lib/src/index.ts:0",
        "packages/zapp/src/main.ts:0",
        "packages/zapp/src/main.ts:3",
        "packages/zlinked/src/main.ts:0",
        "packages/zlinked/src/main.ts:3"
      ])
      const busy = yield* Effect.gen(function*() {
        yield* LspService.query({
          operation: "hover",
          filePath: "examples/basic/src/main.ts",
          position: { line: 3, character: 9 },
          workspaceRoot: root
        })
        return yield* ask(root, "findReferences")
      }).pipe(Effect.provide(hostLayer))
      assert.deepStrictEqual(busy, fresh)
      NodeFs.rmSync(root, { recursive: true, force: true })
    }), 120_000)
})
