import { assert, describe, it } from "@effect/vitest"
import { LspDeadline, LspError, type LspQuery, LspResult, LspService } from "@lsp-seam/lsp"
import * as Testing from "@lsp-seam/lsp/testing"
import { Effect, Fiber, TestClock } from "effect"

// A small code base the fake provider answers from, as a language server would: the target `total` is
// declared in src/math.ts; its uses sit in functions, a method, a module-level const, the top level of a
// file, a local variable of a function, and a test file. Lines are zero-based.
const root = "/w"
const uri = (path: string) => `file://${root}/${path}`
const range = (line: number, from: number, to: number): LspQuery.LspRange => ({
  start: { line, character: from },
  end: { line, character: to }
})
const block = (from: number, to: number): LspQuery.LspRange => ({
  start: { line: from, character: 0 },
  end: { line: to, character: 1 }
})

interface Decl {
  readonly name: string
  readonly kind: LspResult.SymbolKindName
  readonly file: string
  readonly lines: readonly [number, number]
  readonly depth?: number
}
const symbol = ({ depth = 0, file, kind, lines, name }: Decl): LspResult.LspSymbol => ({
  name,
  kind,
  uri: uri(file),
  range: block(lines[0], lines[1]),
  selectionRange: range(lines[0], 9, 9 + name.length),
  depth
})

const declarations: ReadonlyArray<Decl> = [
  { name: "total", kind: "Function", file: "src/math.ts", lines: [0, 2] },
  { name: "report", kind: "Function", file: "src/report.ts", lines: [0, 5] },
  { name: "line", kind: "Variable", file: "src/report.ts", lines: [1, 1], depth: 1 },
  { name: "Cart", kind: "Class", file: "src/cart.ts", lines: [0, 9] },
  { name: "sum", kind: "Method", file: "src/cart.ts", lines: [2, 4], depth: 1 },
  { name: "config", kind: "Constant", file: "src/config.ts", lines: [0, 3] },
  { name: "limit", kind: "Property", file: "src/config.ts", lines: [1, 1], depth: 1 },
  { name: "main", kind: "Function", file: "src/main.ts", lines: [0, 3] },
  { name: "start", kind: "Function", file: "src/start.ts", lines: [0, 3] },
  { name: "ping", kind: "Function", file: "src/cycle.ts", lines: [0, 2] },
  { name: "pong", kind: "Function", file: "src/cycle.ts", lines: [3, 5] },
  { name: "adds", kind: "Function", file: "test/math.test.ts", lines: [0, 4] }
]
const declared = (name: string) => declarations.find((d) => d.name === name)!

/** findReferences of `total`: its declaration first, as servers give it, then its uses. */
const references: ReadonlyArray<LspResult.LspLocation> = [
  { uri: uri("src/math.ts"), range: range(0, 9, 14) },
  { uri: uri("src/report.ts"), range: range(1, 15, 20) }, // in a local of report: report's
  { uri: uri("src/report.ts"), range: range(3, 2, 7) },
  { uri: uri("src/cart.ts"), range: range(3, 4, 9) }, // in Cart.sum
  { uri: uri("src/config.ts"), range: range(1, 16, 21) }, // in config.limit: the const's
  { uri: uri("src/index.ts"), range: range(4, 0, 5) }, // top level
  { uri: uri("src/cycle.ts"), range: range(1, 2, 7) }, // in ping
  { uri: uri("test/math.test.ts"), range: range(2, 4, 9) } // in a test
]

const call = (caller: string, at: LspQuery.LspRange): LspResult.LspCall => {
  const d = declared(caller)
  const s = symbol(d)
  return {
    name: d.name,
    kind: d.kind,
    uri: s.uri,
    range: s.range,
    selectionRange: s.selectionRange,
    fromUri: s.uri,
    fromRanges: [at]
  }
}

/** Who calls whom: report ← main ← start; sum ← main; ping ⇄ pong (a cycle); config is used, never called. */
const callers: Readonly<Record<string, ReadonlyArray<LspResult.LspCall>>> = {
  report: [call("main", range(1, 2, 8))],
  sum: [call("main", range(2, 2, 5))],
  main: [call("start", range(1, 2, 6))],
  start: [],
  config: [],
  ping: [call("pong", range(4, 2, 6))],
  pong: [call("ping", range(1, 10, 14))],
  Cart: []
}

interface World {
  readonly incomingCalls?: (name: string) => Testing.FakeAnswer
  readonly references?: LspResult.LspLocationsResult
}

const answers = (world: World = {}) => (query: LspQuery.LspProviderQuery): Testing.FakeAnswer => {
  switch (query.operation) {
    case "findReferences":
      return Testing.succeed(world.references ?? LspResult.locations(references, uri("").slice(0, -1)))
    case "goToDefinition":
      return Testing.succeed(LspResult.locations([references[0]!], uri("").slice(0, -1)))
    case "documentSymbol": {
      const file = query.filePath.slice(root.length + 1)
      return Testing.succeed(
        LspResult.symbols(declarations.filter((d) => d.file === file).map(symbol), uri("").slice(0, -1))
      )
    }
    case "incomingCalls": {
      const name = query.symbol ?? ""
      if (world.incomingCalls !== undefined) return world.incomingCalls(name)
      const d = declared(name)
      return Testing.succeed(LspResult.calls("incoming", [symbol(d)], callers[name] ?? [], uri("").slice(0, -1)))
    }
    default:
      return Testing.fail(LspError.unsupportedOperation(`not in this world: ${query.operation}`))
  }
}

const ask = (options: { readonly depth?: number; readonly maxGroups?: number } = {}) =>
  LspService.query({
    operation: "impact",
    filePath: "src/math.ts",
    position: { line: 0, character: 10 },
    workspaceRoot: root,
    ...options
  })

const impactOf = (result: LspResult.LspQueryResult) => {
  assert.strictEqual(result.kind, "impact")
  return result.kind === "impact" ? result : assert.fail("not an impact answer")
}

const withWorld = (world?: World) =>
  Testing.registerFakeProvider({ id: "ts", extensionToLanguage: { ts: "typescript" }, script: answers(world) })

const names = (answer: LspResult.LspImpactResult, level: number) =>
  answer.nodes.filter((n) => n.level === level).map((n) => n.name)

describe("impact", () => {
  it.scoped("groups the uses by the declaration each sits in, the declaration itself not counted", () =>
    Effect.gen(function*() {
      yield* withWorld()
      const answer = impactOf(yield* ask({ depth: 1 }))
      assert.strictEqual(answer.references, 7)
      assert.deepStrictEqual(answer.target?.name, "total")
      // Sorted by file; a use in a local variable is its function's, in a property its const's; test code last.
      assert.deepStrictEqual(names(answer, 0), ["sum", "config", "ping", "index.ts", "report", "adds"])
      const report = answer.nodes.find((n) => n.name === "report")!
      assert.strictEqual(report.uses.length, 2)
      const top = answer.nodes.find((n) => n.name === "index.ts")!
      assert.strictEqual(top.kind, "File")
      assert.deepStrictEqual(answer.testFiles, [uri("test/math.test.ts")])
      assert.isTrue(answer.nodes.find((n) => n.name === "adds")!.test)
      assert.isUndefined(answer.incomplete)
    }).pipe(Effect.provide(LspService.layer)))

  it.scoped("follows callers level after level, each once, through a cycle, tests not followed", () =>
    Effect.gen(function*() {
      const fake = yield* withWorld()
      const answer = impactOf(yield* ask({ depth: 3 }))
      assert.deepStrictEqual(names(answer, 1).sort(), ["main", "pong"])
      assert.deepStrictEqual(names(answer, 2), ["start"])
      assert.deepStrictEqual(names(answer, 3), [])
      const id = (name: string) => answer.nodes.find((n) => n.name === name)!.id
      // main calls report and sum; pong calls ping, and ping (level 0) calls pong back: an edge, not a node.
      assert.deepStrictEqual(
        answer.nodes.find((n) => n.name === "main")!.calls,
        [id("sum"), id("report")].sort((a, b) => a - b)
      )
      assert.deepStrictEqual(answer.nodes.find((n) => n.name === "ping")!.calls, [id("pong")])
      assert.deepStrictEqual(answer.levels.map((l) => [l.level, l.found, l.shown, l.cut, l.tests]), [
        [0, 6, 6, 0, 1],
        [1, 2, 2, 0, 0],
        [2, 1, 1, 0, 0],
        [3, 0, 0, 0, 0]
      ])
      // The test and the file's top level are never asked for callers.
      const asked = (yield* fake.queries).filter((q) => q.operation === "incomingCalls").map((q) =>
        "symbol" in q ? q.symbol : undefined
      )
      assert.notInclude(asked, "adds")
      assert.notInclude(asked, "index.ts")
      assert.strictEqual(new Set(asked).size, asked.length)
    }).pipe(Effect.provide(LspService.layer)))

  it.scoped("without a call hierarchy the uses are still grouped, and the answer says callers were not searched", () =>
    Effect.gen(function*() {
      yield* withWorld({
        incomingCalls: () => Testing.fail(LspError.unsupportedOperation("no callHierarchyProvider"))
      })
      const answer = impactOf(yield* ask())
      assert.strictEqual(names(answer, 0).length, 6)
      assert.deepStrictEqual(names(answer, 1), [])
      assert.isTrue(answer.incomplete)
      assert.deepStrictEqual(answer.incompleteReasons?.map((r) => r.reason), ["no-call-hierarchy"])
    }).pipe(Effect.provide(LspService.layer)))

  it.scoped("caps each level, counts what it cut, and follows only what it kept", () =>
    Effect.gen(function*() {
      const fake = yield* withWorld()
      const answer = impactOf(yield* ask({ maxGroups: 2 }))
      assert.deepStrictEqual(names(answer, 0), ["sum", "config"])
      assert.deepStrictEqual(answer.levels[0], { level: 0, found: 6, shown: 2, cut: 4, tests: 0 })
      assert.deepStrictEqual(answer.incompleteReasons?.map((r) => r.reason), ["capped"])
      const asked = (yield* fake.queries).filter((q) => q.operation === "incomingCalls").map((q) =>
        "symbol" in q ? q.symbol : undefined
      )
      assert.deepStrictEqual(asked.slice(0, 2).sort(), ["config", "sum"])
      assert.notInclude(asked, "report")
    }).pipe(Effect.provide(LspService.layer)))

  it.scoped("carries what the references could not search", () =>
    Effect.gen(function*() {
      const partial = LspResult.markIncomplete(LspResult.locations(references, uri("").slice(0, -1)), {
        reason: "projects-not-searched",
        message: "2 projects were not searched: packages/a, packages/b"
      })
      yield* withWorld({ references: partial })
      const answer = impactOf(yield* ask({ depth: 1 }))
      assert.deepStrictEqual(answer.incompleteReasons?.map((r) => r.reason), ["projects-not-searched"])
    }).pipe(Effect.provide(LspService.layer)))

  it.scoped("at the caller's deadline it answers with the levels it finished, flagged", () =>
    Effect.gen(function*() {
      yield* withWorld({
        incomingCalls: (name) =>
          Testing.succeed(LspResult.calls("incoming", [symbol(declared(name))], callers[name] ?? [], "file:///w"), {
            delay: "1 minute"
          })
      })
      const fiber = yield* Effect.fork(LspDeadline.within(10_000)(ask()))
      yield* TestClock.adjust("10 seconds")
      const answer = impactOf(yield* Fiber.join(fiber))
      assert.strictEqual(names(answer, 0).length, 6)
      assert.deepStrictEqual(names(answer, 1), [])
      assert.deepStrictEqual(answer.incompleteReasons?.map((r) => r.reason), ["deadline"])
    }).pipe(Effect.provide(LspService.layer)))
})
