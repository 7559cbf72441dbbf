import { assert, describe, it } from "@effect/vitest"
import type { LspError } from "@lsp-seam/lsp"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { normalizeCalls, normalizePrepared } from "../src/internal/answers/normalizeCalls.js"
import { normalizeDocumentSymbols, normalizeWorkspaceSymbols } from "../src/internal/answers/normalizeSymbols.js"

const range = (line: number, from = 0, to = 1) => ({ start: { line, character: from }, end: { line, character: to } })
const node = (name: string, line: number, children?: ReadonlyArray<unknown>) => ({
  name,
  kind: 12,
  range: range(line, 0, 50),
  selectionRange: range(line, 9, 9 + name.length),
  ...(children === undefined ? {} : { children })
})

const right = <A>(result: Either.Either<A, LspError.LspError>): A => {
  if (Either.isLeft(result)) assert.fail(`${result.left.code}: ${result.left.message}`)
  return result.right
}

const malformed = (result: Either.Either<unknown, LspError.LspError>, fragment: string) => {
  if (Either.isRight(result)) assert.fail(`expected LSP_MALFORMED_RESPONSE, got ${JSON.stringify(result.right)}`)
  assert.strictEqual(result.left.code, "LSP_MALFORMED_RESPONSE")
  assert.include(result.left.message, fragment)
}

describe("normalizeDocumentSymbols", () => {
  it("null and an empty array are no symbols; a missing result is malformed", () => {
    assert.deepStrictEqual(right(normalizeDocumentSymbols(null, "file:///a")), [])
    assert.deepStrictEqual(right(normalizeDocumentSymbols([], "file:///a")), [])
    malformed(normalizeDocumentSymbols(Option.none(), "file:///a"), "has no result")
    malformed(normalizeDocumentSymbols({}, "file:///a"), "expected null or an array")
  })

  it("siblings sent out of order come in document order, at every depth", () => {
    const tree = [node("b", 5), node("a", 0, [node("a2", 3), node("a1", 1, [node("deep", 2)])])]
    assert.deepStrictEqual(
      right(normalizeDocumentSymbols(tree, "file:///a")).map((s) => `${s.depth}:${s.containerName ?? ""}:${s.name}`),
      ["0::a", "1:a:a1", "2:a.a1:deep", "1:a:a2", "0::b"]
    )
  })

  it("a malformed child is named by its path", () => {
    malformed(
      normalizeDocumentSymbols([node("a", 0, [{ name: "x", kind: 12 }])], "file:///a"),
      "result[0].children[0].range"
    )
  })

  it("mixing SymbolInformation and DocumentSymbol is malformed", () => {
    malformed(
      normalizeDocumentSymbols(
        [node("a", 0), { name: "b", kind: 12, location: { uri: "file:///a", range: range(1) } }],
        "file:///a"
      ),
      "mixes"
    )
  })

  it("nesting deeper than any program is refused rather than walked", () => {
    let deep: unknown = node("leaf", 0)
    for (let i = 0; i < 300; i++) deep = node(`n${i}`, 0, [deep])
    malformed(normalizeDocumentSymbols([deep], "file:///a"), "nested more than")
  })
})

describe("normalizeWorkspaceSymbols", () => {
  it("keeps the server's order; a WorkspaceSymbol naming only its document starts at 0:0", () => {
    const symbols = right(normalizeWorkspaceSymbols([
      { name: "z", kind: 5, location: { uri: "file:///z", range: range(4) }, containerName: "m" },
      { name: "a", kind: 12, location: { uri: "file:///a" } }
    ]))
    assert.deepStrictEqual(symbols.map((s) => [s.name, s.kind, s.containerName, s.range.start.line]), [
      ["z", "Class", "m", 4],
      ["a", "Function", undefined, 0]
    ])
  })

  it("an unknown symbol kind is malformed", () => {
    malformed(normalizeWorkspaceSymbols([{ name: "a", kind: 0, location: { uri: "file:///a" } }]), "result[0].kind")
  })
})

describe("normalizeCalls", () => {
  const item = { name: "f", kind: 12, uri: "file:///f", range: range(0), selectionRange: range(0), data: [1] }

  it("keeps each prepared item's raw value to send back", () => {
    const prepared = right(normalizePrepared("incomingCalls", [item]))
    assert.deepStrictEqual(prepared[0]?.raw, item)
    assert.deepStrictEqual(prepared[0]?.item, {
      name: "f",
      kind: "Function",
      uri: "file:///f",
      range: range(0),
      selectionRange: range(0)
    })
  })

  it("incoming call sites lie in the caller's document, outgoing ones in the prepared item's", () => {
    const prepared = right(normalizePrepared("incomingCalls", [item]))[0]!.item
    const caller = { ...item, name: "g", uri: "file:///g" }
    const incoming = right(normalizeCalls("incomingCalls", prepared, [{ from: caller, fromRanges: [range(3)] }]))
    assert.strictEqual(incoming[0]?.fromUri, "file:///g")
    const outgoing = right(normalizeCalls("outgoingCalls", prepared, [{ to: caller, fromRanges: [range(3)] }]))
    assert.strictEqual(outgoing[0]?.fromUri, "file:///f")
  })

  it("a call without fromRanges, or a callee without a uri, is malformed", () => {
    const prepared = right(normalizePrepared("outgoingCalls", [item]))[0]!.item
    malformed(normalizeCalls("outgoingCalls", prepared, [{ to: item }]), "result[0].fromRanges")
    malformed(
      normalizeCalls("outgoingCalls", prepared, [{ to: { ...item, uri: undefined }, fromRanges: [] }]),
      "result[0].to.uri"
    )
  })
})
