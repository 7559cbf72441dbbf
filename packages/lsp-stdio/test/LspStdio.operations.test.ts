import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { type LspError, type LspQuery, LspService } from "@lsp-seam/lsp"
import { Deferred, Effect, Either, Exit, Fiber, Layer, Ref, Scope } from "effect"
import { pathToFileURL } from "node:url"
import * as LspStdio from "../src/LspStdio.js"
import * as Testing from "../src/testing.js"
import { makeWorkspace } from "./support/fakeHost.js"

// The operations beyond the reference's four, through the real host on fake servers: what is sent, how the
// answers are normalised and merged, and what is cancelled.

const range = (line: number, from: number, to: number) => ({
  start: { line, character: from },
  end: { line, character: to }
})

const allCapabilities = {
  textDocumentSync: 1,
  definitionProvider: true,
  referencesProvider: true,
  implementationProvider: true,
  hoverProvider: true,
  typeDefinitionProvider: true,
  callHierarchyProvider: true,
  documentSymbolProvider: true,
  workspaceSymbolProvider: true
}

interface Seen {
  readonly method: string
  readonly params: unknown
}

const server = (id: string, extension: string) => ({
  command: process.execPath,
  args: [id],
  extensionToLanguage: { [extension]: id },
  readiness: { quietMs: 1, progress: false, maxWaitMs: 1 },
  shutdownTimeoutMs: 1_000,
  killGraceMs: 200
})

type Request = LspQuery.LspQueryRequest extends infer R ? R extends unknown ? Omit<R, "workspaceRoot"> : never
  : never

const setup = (
  handlers: (id: string, uri: (file: string) => string) => Testing.FakeHandlers,
  options: {
    readonly files?: Record<string, string>
    readonly capabilities?: unknown
    /** Per server id, capabilities in place of `capabilities`. */
    readonly capabilitiesOf?: (id: string) => unknown
    readonly servers?: ReadonlyArray<readonly [string, string]>
    /** Per server id, configuration fields added to the default. */
    readonly configOf?: (id: string) => Record<string, unknown>
  } = {}
) =>
  Effect.gen(function*() {
    const workspace = yield* makeWorkspace(options.files ?? {})
    const uri = (file: string) => pathToFileURL(`${workspace}/${file}`).href
    const seen = yield* Ref.make<ReadonlyArray<Seen>>([])
    const starts = yield* Ref.make<ReadonlyArray<string>>([])
    const scope = yield* Effect.acquireRelease(Scope.make(), (scope) => Scope.close(scope, Exit.void))
    const servers = Object.fromEntries(
      (options.servers ?? [["fake", ".fake"]]).map((
        [id, ext]
      ) => [id, { ...server(id, ext), ...options.configOf?.(id) }])
    )
    const program = (process: Testing.MemoryProcess) => {
      const id = process.command.args[0] ?? ""
      return Effect.zipRight(
        Ref.update(starts, (all) => [...all, id]),
        Testing.fakeLanguageServer({
          capabilities: options.capabilitiesOf?.(id) ?? options.capabilities ?? allCapabilities,
          handlers: Object.fromEntries(
            Object.entries(handlers(id, uri)).map(([method, handle]) => [
              method,
              (request: Testing.FakeRequest) =>
                Effect.zipRight(
                  Ref.update(seen, (all) => [...all, { method, params: request.params }]),
                  handle(request)
                )
            ])
          )
        })(process)
      )
    }
    const context = yield* Layer.buildWithScope(
      LspStdio.layer({ servers }, { local: false }).pipe(
        Layer.provideMerge(LspService.layer),
        Layer.provide(Layer.mergeAll(Testing.layerMemoryExecutor(() => program), NodeFileSystem.layer, NodePath.layer))
      ),
      scope
    )
    const query = (request: Request) =>
      Effect.provide(LspService.query({ ...request, workspaceRoot: workspace }), context)
    return { query, seen, starts, uri, workspace }
  })

const right = <A>(either: Either.Either<A, LspError.LspError>): A => {
  if (Either.isLeft(either)) assert.fail(`${either.left.code}: ${either.left.message}`)
  return either.right
}

const methods = (seen: ReadonlyArray<Seen>) =>
  seen.map((entry) => entry.method).filter((method) => !["initialize", "shutdown"].includes(method))

describe("LspStdio: documentSymbol", () => {
  it.scopedLive("a DocumentSymbol tree is flattened in document order, with container paths and depths", () =>
    Effect.gen(function*() {
      const { query, uri } = yield* setup(() => ({
        "textDocument/documentSymbol": () =>
          Effect.succeed(Testing.result([
            { name: "later", kind: 12, range: range(9, 0, 20), selectionRange: range(9, 9, 14) },
            {
              name: "Shape",
              kind: 5,
              range: range(0, 0, 30),
              selectionRange: range(0, 6, 11),
              children: [
                { name: "area", kind: 6, detail: "(): number", range: range(2, 2, 20), selectionRange: range(2, 2, 6) },
                // No selectionRange: the range stands in.
                { name: "name", kind: 7, range: range(1, 2, 14) }
              ]
            }
          ]))
      }))
      const result = right(yield* Effect.either(query({ operation: "documentSymbol", filePath: "main.fake" })))
      assert.strictEqual(result.kind, "symbols")
      if (result.kind !== "symbols") return
      assert.deepStrictEqual(result.symbols.map((s) => [s.name, s.kind, s.containerName, s.depth]), [
        ["Shape", "Class", undefined, 0],
        ["name", "Property", "Shape", 1],
        ["area", "Method", "Shape", 1],
        ["later", "Function", undefined, 0]
      ])
      assert.deepStrictEqual(result.symbols[1]?.selectionRange, range(1, 2, 14))
      assert.strictEqual(result.symbols[2]?.detail, "(): number")
      assert.strictEqual(result.symbols[0]?.uri, uri("main.fake"))
    }))

  it.scopedLive("SymbolInformation answers give the same shape, nesting taken from the ranges", () =>
    Effect.gen(function*() {
      const { query } = yield* setup((_, uri) => ({
        "textDocument/documentSymbol": () =>
          Effect.succeed(Testing.result([
            {
              name: "area",
              kind: 6,
              containerName: "Shape",
              location: { uri: uri("main.fake"), range: range(2, 2, 20) }
            },
            {
              name: "Shape",
              kind: 5,
              location: {
                uri: uri("main.fake"),
                range: { start: { line: 0, character: 0 }, end: { line: 5, character: 1 } }
              }
            }
          ]))
      }))
      const result = right(yield* Effect.either(query({ operation: "documentSymbol", filePath: "main.fake" })))
      if (result.kind !== "symbols") return assert.fail(result.kind)
      assert.deepStrictEqual(result.symbols.map((s) => [s.name, s.containerName, s.depth]), [
        ["Shape", undefined, 0],
        ["area", "Shape", 1]
      ])
    }))

  it.scopedLive("a malformed symbol is LSP_MALFORMED_RESPONSE naming the field", () =>
    Effect.gen(function*() {
      const { query } = yield* setup(() => ({
        "textDocument/documentSymbol": () =>
          Effect.succeed(
            Testing.result([{ name: "x", kind: 99, range: range(0, 0, 1), selectionRange: range(0, 0, 1) }])
          )
      }))
      const error = yield* Effect.flip(query({ operation: "documentSymbol", filePath: "main.fake" }))
      assert.strictEqual(error.code, "LSP_MALFORMED_RESPONSE")
      assert.include(error.message, "result[0].kind")
    }))
})

describe("LspStdio: goToTypeDefinition", () => {
  it.scopedLive("asks textDocument/typeDefinition and answers locations", () =>
    Effect.gen(function*() {
      const { query, seen, uri, workspace } = yield* setup((_, uri) => ({
        "textDocument/typeDefinition": () =>
          Effect.succeed(Testing.result([{
            targetUri: uri("main.fake"),
            targetRange: range(0, 0, 9),
            targetSelectionRange: range(0, 4, 5)
          }]))
      }))
      const result = right(
        yield* Effect.either(query({
          operation: "goToTypeDefinition",
          filePath: "main.fake",
          position: { line: 1, character: 0 }
        }))
      )
      assert.deepStrictEqual(result, {
        kind: "locations",
        locations: [{ uri: uri("main.fake"), range: range(0, 4, 5) }],
        resolvedWorkspaceUri: pathToFileURL(workspace).href
      })
      assert.include(methods(yield* Ref.get(seen)), "textDocument/typeDefinition")
    }))
})

const item = (uri: string, name: string, line: number, data?: unknown) => ({
  name,
  kind: 12,
  uri,
  range: range(line, 0, 20),
  selectionRange: range(line, 9, 9 + name.length),
  ...(data === undefined ? {} : { data })
})

describe("LspStdio: call hierarchy", () => {
  it.scopedLive("incomingCalls prepares at the position and merges the calls of every prepared item", () =>
    Effect.gen(function*() {
      const { query, seen, uri } = yield* setup((_, uri) => ({
        "textDocument/prepareCallHierarchy": () =>
          Effect.succeed(
            Testing.result([item(uri("main.fake"), "add", 0, { id: 1 }), item(uri("main.fake"), "add", 4, { id: 2 })])
          ),
        "callHierarchy/incomingCalls": (request) =>
          Effect.succeed(Testing.result(
            JSON.stringify(request.params).includes("\"id\":1")
              // A call site listed twice (as pyright does) is one call site.
              ? [{
                from: item(uri("use.fake"), "total", 2),
                fromRanges: [range(3, 4, 7), range(3, 12, 15), range(3, 4, 7)]
              }]
              : [{ from: item(uri("use.fake"), "other", 8), fromRanges: [range(9, 0, 3)] }]
          ))
      }))
      const result = right(
        yield* Effect.either(query({
          operation: "incomingCalls",
          filePath: "main.fake",
          position: { line: 0, character: 0 }
        }))
      )
      if (result.kind !== "calls") return assert.fail(result.kind)
      assert.strictEqual(result.direction, "incoming")
      assert.deepStrictEqual(result.items.map((i) => i.selectionRange.start.line), [0, 4])
      assert.deepStrictEqual(result.calls.map((c) => [c.name, c.kind, c.fromUri, c.fromRanges.length]), [
        ["total", "Function", uri("use.fake"), 2],
        ["other", "Function", uri("use.fake"), 1]
      ])
      // The server's own item, data included, goes back to it.
      const asked = (yield* Ref.get(seen)).filter((entry) => entry.method === "callHierarchy/incomingCalls")
      assert.deepStrictEqual(asked.map((entry) => entry.params), [
        { item: item(uri("main.fake"), "add", 0, { id: 1 }) },
        { item: item(uri("main.fake"), "add", 4, { id: 2 }) }
      ])
    }))

  it.scopedLive("outgoingCalls' call sites lie in the prepared item's document", () =>
    Effect.gen(function*() {
      const { query, uri } = yield* setup((_, uri) => ({
        "textDocument/prepareCallHierarchy": () => Effect.succeed(Testing.result([item(uri("main.fake"), "total", 0)])),
        "callHierarchy/outgoingCalls": () =>
          Effect.succeed(Testing.result([{ to: item(uri("lib.fake"), "add", 7), fromRanges: [range(1, 2, 5)] }]))
      }))
      const result = right(
        yield* Effect.either(query({
          operation: "outgoingCalls",
          filePath: "main.fake",
          position: { line: 0, character: 0 }
        }))
      )
      if (result.kind !== "calls") return assert.fail(result.kind)
      assert.deepStrictEqual(result.calls.map((c) => [c.name, c.uri, c.fromUri]), [[
        "add",
        uri("lib.fake"),
        uri("main.fake")
      ]])
    }))

  it.scopedLive("nothing prepared is no calls; a malformed call is LSP_MALFORMED_RESPONSE", () =>
    Effect.gen(function*() {
      let prepared: unknown = null
      const { query, uri } = yield* setup(() => ({
        "textDocument/prepareCallHierarchy": () => Effect.sync(() => Testing.result(prepared)),
        "callHierarchy/incomingCalls": () => Effect.succeed(Testing.result([{ from: { name: "x" }, fromRanges: [] }]))
      }))
      const ask = query({ operation: "incomingCalls", filePath: "main.fake", position: { line: 0, character: 0 } })
      const empty = right(yield* Effect.either(ask))
      assert.deepStrictEqual(empty.kind === "calls" ? [empty.items, empty.calls] : [], [[], []])
      prepared = [item(uri("main.fake"), "add", 0)]
      const error = yield* Effect.flip(ask)
      assert.strictEqual(error.code, "LSP_MALFORMED_RESPONSE")
      assert.include(error.message, "result[0].from")
    }))

  it.scopedLive("interrupting the prepare step or the calls step sends $/cancelRequest for that request", () =>
    Effect.gen(function*() {
      const cancelled = yield* Ref.make<ReadonlyArray<string>>([])
      const waiting = yield* Ref.make<Deferred.Deferred<void> | undefined>(undefined)
      let hangIn = "textDocument/prepareCallHierarchy"
      const { query } = yield* setup((_, uri) => {
        const hangOr = (method: string, answer: unknown) => (request: Testing.FakeRequest) =>
          method !== hangIn ? Effect.succeed(Testing.result(answer)) : Effect.gen(function*() {
            const reached = yield* Ref.get(waiting)
            if (reached !== undefined) yield* Deferred.succeed(reached, undefined)
            yield* request.cancelled
            yield* Ref.update(cancelled, (all) => [...all, method])
            return Testing.error(-32800, "cancelled")
          })
        return {
          "textDocument/prepareCallHierarchy": hangOr("textDocument/prepareCallHierarchy", [
            item(uri("main.fake"), "add", 0)
          ]),
          "callHierarchy/incomingCalls": hangOr("callHierarchy/incomingCalls", [])
        }
      })
      for (const method of ["textDocument/prepareCallHierarchy", "callHierarchy/incomingCalls"]) {
        hangIn = method
        const reached = yield* Deferred.make<void>()
        yield* Ref.set(waiting, reached)
        const fiber = yield* Effect.fork(
          query({ operation: "incomingCalls", filePath: "main.fake", position: { line: 0, character: 0 } })
        )
        yield* Deferred.await(reached)
        yield* Fiber.interrupt(fiber)
        yield* Effect.repeat(Ref.get(cancelled), { until: (all) => all.includes(method) })
      }
      assert.deepStrictEqual(yield* Ref.get(cancelled), [
        "textDocument/prepareCallHierarchy",
        "callHierarchy/incomingCalls"
      ])
    }))

  it.scopedLive("a server without callHierarchyProvider is LSP_UNSUPPORTED_OPERATION", () =>
    Effect.gen(function*() {
      const { query } = yield* setup(() => ({}), { capabilities: { textDocumentSync: 1, hoverProvider: true } })
      for (const operation of ["incomingCalls", "goToTypeDefinition"] as const) {
        const error = yield* Effect.flip(
          query({ operation, filePath: "main.fake", position: { line: 0, character: 0 } })
        )
        assert.strictEqual(error.code, "LSP_UNSUPPORTED_OPERATION")
      }
      const symbols = yield* Effect.flip(query({ operation: "documentSymbol", filePath: "main.fake" }))
      assert.strictEqual(symbols.code, "LSP_UNSUPPORTED_OPERATION")
      assert.include(symbols.message, "documentSymbolProvider")
    }))
})

describe("LspStdio: workspaceSymbol", () => {
  const answering = (id: string, uri: (file: string) => string): Testing.FakeHandlers => ({
    "workspace/symbol": (request) =>
      Effect.succeed(Testing.result(
        id === "broken" ? "not symbols" : [{
          name: `${id}Symbol`,
          kind: 13,
          containerName: JSON.stringify(request.params),
          location: { uri: uri(`x.${id}`), range: range(0, 0, 1) }
        }]
      ))
  })

  it.scopedLive("with a file, only that file's server is asked", () =>
    Effect.gen(function*() {
      const { query, seen, starts } = yield* setup(answering, {
        servers: [["one", ".one"], ["two", ".two"]],
        files: { "a.one": "a\n", "b.two": "b\n" }
      })
      const result = right(
        yield* Effect.either(query({ operation: "workspaceSymbol", query: "sym", filePath: "a.one" }))
      )
      if (result.kind !== "symbols") return assert.fail(result.kind)
      assert.deepStrictEqual(result.symbols.map((s) => [s.name, s.provider]), [["oneSymbol", undefined]])
      assert.deepStrictEqual(yield* Ref.get(starts), ["one"])
      assert.deepStrictEqual(methods(yield* Ref.get(seen)), ["workspace/symbol"])
    }))

  it.scopedLive("without a file, every server with files here is asked and the answers merged, labelled", () =>
    Effect.gen(function*() {
      const { query, starts } = yield* setup(answering, {
        servers: [["one", ".one"], ["two", ".two"], ["none", ".none"]],
        files: { "sub/a.one": "a\n", "b.two": "b\n" }
      })
      const result = right(yield* Effect.either(query({ operation: "workspaceSymbol", query: "sym" })))
      if (result.kind !== "symbols") return assert.fail(result.kind)
      assert.deepStrictEqual(result.symbols.map((s) => [s.name, s.provider]), [["oneSymbol", "one"], [
        "twoSymbol",
        "two"
      ]])
      assert.deepStrictEqual(result.symbols[0]?.containerName, JSON.stringify({ query: "sym" }))
      // No .none file in the workspace: that server is not started.
      assert.deepStrictEqual([...(yield* Ref.get(starts))].sort(), ["one", "two"])
      assert.isUndefined(result.incomplete)
    }))

  it.scopedLive("without a file, a server that cannot search is skipped: not started, not asked, not blamed", () =>
    Effect.gen(function*() {
      const { query, seen, starts } = yield* setup(answering, {
        servers: [["one", ".one"], ["json", ".json"], ["yaml", ".yaml"]],
        files: { "a.one": "a\n", "b.json": "{}\n", "c.yaml": "c: 1\n" },
        // json is known not to search (as the presets say); yaml says so only once started.
        configOf: (id) => id === "json" ? { workspaceSymbols: false } : {},
        capabilitiesOf: (id) => id === "yaml" ? { textDocumentSync: 1, documentSymbolProvider: true } : allCapabilities
      })
      for (let round = 0; round < 2; round++) {
        const result = right(yield* Effect.either(query({ operation: "workspaceSymbol", query: "sym" })))
        if (result.kind !== "symbols") return assert.fail(result.kind)
        assert.deepStrictEqual(result.symbols.map((s) => s.name), ["oneSymbol"])
        assert.isUndefined(result.incomplete, "a server that cannot search is not a failure")
      }
      // json never started; yaml started once, found unable, and not started or asked again.
      assert.deepStrictEqual([...(yield* Ref.get(starts))].sort(), ["one", "yaml"])
      assert.deepStrictEqual(methods(yield* Ref.get(seen)).filter((m) => m === "workspace/symbol").length, 2)
      // With a file, the same server still says it cannot: that question was about it.
      const refused = yield* Effect.flip(query({ operation: "workspaceSymbol", query: "sym", filePath: "c.yaml" }))
      assert.strictEqual(refused.code, "LSP_UNSUPPORTED_OPERATION")
    }))

  it.scopedLive("without a file, a file that cannot be opened is passed over for the next one", () =>
    Effect.gen(function*() {
      const { query } = yield* setup(answering, {
        servers: [["one", ".one"]],
        // The walk's first file looks binary (a NUL byte): the server is given the next one.
        files: { "a.one": "a\u0000b\n", "b.one": "b\n" }
      })
      const result = right(yield* Effect.either(query({ operation: "workspaceSymbol", query: "sym" })))
      if (result.kind !== "symbols") return assert.fail(result.kind)
      // Opening a.one would have failed the search (LSP_SOURCE_BINARY).
      assert.deepStrictEqual(result.symbols.map((s) => s.name), ["oneSymbol"])
    }))

  it.scopedLive("a server that fails leaves the others' symbols, flagged provider-failed", () =>
    Effect.gen(function*() {
      const { query } = yield* setup(answering, {
        servers: [["one", ".one"], ["broken", ".broken"]],
        files: { "a.one": "a\n", "b.broken": "b\n" }
      })
      const result = right(yield* Effect.either(query({ operation: "workspaceSymbol", query: "sym" })))
      if (result.kind !== "symbols") return assert.fail(result.kind)
      assert.deepStrictEqual(result.symbols.map((s) => s.name), ["oneSymbol"])
      assert.isTrue(result.incomplete)
      assert.deepStrictEqual(result.incompleteReasons?.map((r) => r.reason), ["provider-failed"])
      assert.include(result.incompleteReasons?.[0]?.message ?? "", "LSP_MALFORMED_RESPONSE")
    }))

  it.scopedLive("a server that fails while the others find nothing fails the search, not an empty answer", () =>
    Effect.gen(function*() {
      const { query } = yield* setup((id, uri) => ({
        "workspace/symbol": (request) =>
          id === "one" ? Effect.succeed(Testing.result([])) : answering(id, uri)["workspace/symbol"]!(request)
      }), {
        servers: [["one", ".one"], ["broken", ".broken"]],
        files: { "a.one": "a\n", "b.broken": "b\n" }
      })
      const failed = yield* Effect.flip(query({ operation: "workspaceSymbol", query: "sym" }))
      assert.strictEqual(failed.code, "LSP_MALFORMED_RESPONSE")
    }))
})

describe("LspStdio: renamePreview", () => {
  const renameCapabilities = { ...allCapabilities, renameProvider: { prepareProvider: true } }

  it.scopedLive("a server without renameProvider is LSP_UNSUPPORTED_OPERATION, and nothing is asked", () =>
    Effect.gen(function*() {
      const { query, seen } = yield* setup(() => ({}))
      const failure = yield* Effect.flip(
        query({ operation: "renamePreview", filePath: "main.fake", position: { line: 1, character: 0 }, newName: "y" })
      )
      assert.strictEqual(failure.code, "LSP_UNSUPPORTED_OPERATION")
      assert.include(failure.message, "renameProvider")
      assert.notInclude(methods(yield* Ref.get(seen)), "textDocument/rename")
    }))

  it.scopedLive("prepareRename null is LSP_CANNOT_RENAME, and the rename is not asked", () =>
    Effect.gen(function*() {
      const { query, seen } = yield* setup(() => ({
        "textDocument/prepareRename": () => Effect.succeed(Testing.result(null))
      }), { capabilities: renameCapabilities })
      const failure = yield* Effect.flip(
        query({ operation: "renamePreview", filePath: "main.fake", position: { line: 1, character: 0 }, newName: "y" })
      )
      assert.strictEqual(failure.code, "LSP_CANNOT_RENAME")
      assert.notInclude(methods(yield* Ref.get(seen)), "textDocument/rename")
    }))

  it.scopedLive("a WorkspaceEdit is listed, sorted, with the replaced text; outside edits and file operations flagged", () =>
    Effect.gen(function*() {
      const { query, seen, uri, workspace } = yield* setup((_, uri) => ({
        "textDocument/prepareRename": () => Effect.succeed(Testing.result(range(1, 0, 1))),
        "textDocument/rename": () =>
          Effect.succeed(Testing.result({
            documentChanges: [
              { textDocument: { uri: uri("main.fake"), version: 1 }, edits: [{ range: range(1, 0, 1), newText: "y" }] },
              { textDocument: { uri: uri("main.fake"), version: 1 }, edits: [{ range: range(0, 4, 5), newText: "y" }] },
              {
                textDocument: { uri: "file:///elsewhere/lib.fake", version: null },
                edits: [{ range: range(3, 2, 3), newText: "y" }]
              },
              { kind: "rename", oldUri: uri("main.fake"), newUri: uri("y.fake") },
              { kind: "delete", uri: "file:///elsewhere/old.fake" }
            ]
          }))
      }), { capabilities: renameCapabilities })
      const result = right(
        yield* Effect.either(query({
          operation: "renamePreview",
          filePath: "main.fake",
          position: { line: 1, character: 0 },
          newName: "y"
        }))
      )
      assert.deepStrictEqual(result, {
        kind: "edits",
        edits: [
          { uri: "file:///elsewhere/lib.fake", range: range(3, 2, 3), newText: "y", outsideWorkspace: true },
          { uri: uri("main.fake"), range: range(0, 4, 5), newText: "y", oldText: "x" },
          { uri: uri("main.fake"), range: range(1, 0, 1), newText: "y", oldText: "x" }
        ],
        resourceOperations: [
          { kind: "rename", uri: uri("main.fake"), newUri: uri("y.fake") },
          { kind: "delete", uri: "file:///elsewhere/old.fake", outsideWorkspace: true }
        ],
        resolvedWorkspaceUri: pathToFileURL(workspace).href
      })
      const asked = (yield* Ref.get(seen)).find((entry) => entry.method === "textDocument/rename")
      assert.deepStrictEqual(asked?.params, {
        textDocument: { uri: uri("main.fake") },
        position: { line: 1, character: 0 },
        newName: "y"
      })
    }))

  it.scopedLive("`changes` are read when there are no documentChanges; a refused rename is LSP_CANNOT_RENAME", () =>
    Effect.gen(function*() {
      let refuse = false
      const { query, uri } = yield* setup((_, uri) => ({
        "textDocument/rename": () =>
          Effect.succeed(
            refuse
              ? Testing.error(-32803, "Cannot rename a built-in.")
              : Testing.result({ changes: { [uri("main.fake")]: [{ range: range(0, 4, 5), newText: "z" }] } })
          )
      }), { capabilities: { ...allCapabilities, renameProvider: true } })
      const ask = query({
        operation: "renamePreview",
        filePath: "main.fake",
        position: { line: 0, character: 4 },
        newName: "z"
      })
      const result = right(yield* Effect.either(ask))
      assert.deepStrictEqual(result.kind === "edits" ? result.edits : [], [
        { uri: uri("main.fake"), range: range(0, 4, 5), newText: "z", oldText: "x" }
      ])
      refuse = true
      const failure = yield* Effect.flip(ask)
      assert.strictEqual(failure.code, "LSP_CANNOT_RENAME")
      assert.include(failure.message, "Cannot rename a built-in.")
    }))

  it.scopedLive("a malformed WorkspaceEdit is LSP_MALFORMED_RESPONSE naming the field", () =>
    Effect.gen(function*() {
      const { query } = yield* setup(() => ({
        "textDocument/rename": () =>
          Effect.succeed(Testing.result({ documentChanges: [{ textDocument: { uri: "" }, edits: [] }] }))
      }), { capabilities: { ...allCapabilities, renameProvider: true } })
      const failure = yield* Effect.flip(
        query({ operation: "renamePreview", filePath: "main.fake", position: { line: 0, character: 4 }, newName: "z" })
      )
      assert.strictEqual(failure.code, "LSP_MALFORMED_RESPONSE")
      assert.include(failure.message, "documentChanges[0]")
    }))
})

describe("LspStdio: bodies", () => {
  it.scopedLive("a location no symbol encloses gets its own lines; one outside the workspace gets none", () =>
    Effect.gen(function*() {
      const { query } = yield* setup((_, uri) => ({
        "textDocument/definition": () =>
          Effect.succeed(Testing.result([
            { uri: uri("main.fake"), range: range(1, 0, 1) },
            { uri: uri("lib.fake"), range: range(1, 2, 3) },
            { uri: "file:///elsewhere/x.fake", range: range(0, 0, 1) }
          ])),
        "textDocument/documentSymbol": (request) =>
          Effect.succeed(Testing.result(
            (request.params as { textDocument: { uri: string } }).textDocument.uri === uri("lib.fake")
              ? [{
                name: "f",
                kind: 12,
                range: { start: { line: 0, character: 0 }, end: { line: 2, character: 1 } },
                selectionRange: range(0, 9, 10)
              }]
              : []
          ))
      }), { files: { "lib.fake": "function f() {\r\n  x\r\n}\nafter\n" } })
      const result = right(
        yield* Effect.either(query({
          operation: "goToDefinition",
          filePath: "main.fake",
          position: { line: 1, character: 0 },
          includeBody: true
        }))
      )
      assert.deepStrictEqual(result.kind === "locations" ? result.locations.map((l) => l.body) : [], [
        { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 1 } }, text: "x" },
        {
          range: { start: { line: 0, character: 0 }, end: { line: 2, character: 1 } },
          text: "function f() {\r\n  x\r\n}"
        },
        undefined
      ])
    }))
})
