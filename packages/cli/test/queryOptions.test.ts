import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { queryArguments } from "../src/internal/query/location.js"
import { toolInput } from "../src/internal/query/quickQuery.js"
import { parse } from "../src/internal/query/remoteQuery.js"

// `--body` and `--new-name` as the command and the fast `query --remote` path read them.
describe("query options of issue 33", () => {
  it("--body becomes include_body for the operations that take it, and is a usage error elsewhere", () => {
    assert.deepStrictEqual(
      queryArguments("goToDefinition", "a.ts:1:2", { body: true }),
      Either.right({
        operation: "goToDefinition",
        file_path: "a.ts",
        line: 1,
        character: 2,
        symbol: undefined,
        include_body: true
      })
    )
    assert.deepStrictEqual(
      queryArguments("workspaceSymbol", "Circle", { body: true }),
      Either.right({ operation: "workspaceSymbol", query: "Circle", include_body: true })
    )
    assert.deepStrictEqual(
      queryArguments("documentSymbol", "a.ts", { body: false }),
      Either.right({
        operation: "documentSymbol",
        file_path: "a.ts"
      })
    )
    for (const operation of ["findReferences", "hover", "diagnostics", "incomingCalls"] as const) {
      assert.isTrue(Either.isLeft(queryArguments(operation, "a.ts:1:2", { body: true })), operation)
    }
  })

  it("--new-name is renamePreview's, which needs it", () => {
    assert.deepStrictEqual(
      queryArguments("renamePreview", "a.ts:1:2", { newName: "b" }),
      Either.right({
        operation: "renamePreview",
        file_path: "a.ts",
        line: 1,
        character: 2,
        symbol: undefined,
        new_name: "b"
      })
    )
    const missing = queryArguments("renamePreview", "a.ts:1:2")
    assert.isTrue(Either.isLeft(missing) && missing.left.message.includes("--new-name"))
    assert.isTrue(Either.isLeft(queryArguments("hover", "a.ts:1:2", { newName: "b" })))
    assert.isTrue(Either.isLeft(queryArguments("renamePreview", "a.ts:1:2", { newName: "b", body: true })))
  })

  it("the fast path reads --body as a flag and --new-name as a value", () => {
    assert.deepStrictEqual(
      parse(["query", "renamePreview", "a.ts:1:2", "--new-name", "b", "--remote", "auto"]),
      {
        operation: "renamePreview",
        target: "a.ts:1:2",
        options: { "new-name": "b", remote: "auto" },
        json: false
      }
    )
    assert.deepStrictEqual(
      parse(["query", "goToDefinition", "a.ts:1:2", "--body", "--remote=auto", "--json"]),
      { operation: "goToDefinition", target: "a.ts:1:2", options: { remote: "auto" }, json: true, body: true }
    )
  })

  it("the edge of query --remote leaves --body to the full client, which asks for the code", () => {
    const plain = parse(["query", "goToDefinition", "a.ts:1:2", "--remote", "auto"])!
    assert.isDefined(toolInput(plain))
    assert.isUndefined(toolInput(parse(["query", "goToDefinition", "a.ts:1:2", "--body", "--remote", "auto"])!))
  })

  it("--depth is impact's, passed on as a number for the tool to judge; a usage error elsewhere or not a number", () => {
    assert.deepStrictEqual(
      queryArguments("impact", "a.ts:3", { symbol: "parse", depth: "3" }),
      Either.right({
        operation: "impact",
        file_path: "a.ts",
        line: 3,
        character: undefined,
        symbol: "parse",
        depth: 3
      })
    )
    assert.deepStrictEqual(
      queryArguments("impact", "a.ts:1:2", { depth: "9" }),
      Either.right({ operation: "impact", file_path: "a.ts", line: 1, character: 2, symbol: undefined, depth: 9 })
    )
    const elsewhere = queryArguments("findReferences", "a.ts:1:2", { depth: "2" })
    assert.isTrue(Either.isLeft(elsewhere) && elsewhere.left.message.includes("--depth applies to impact only"))
    const words = queryArguments("impact", "a.ts:1:2", { depth: "two" })
    assert.isTrue(Either.isLeft(words) && words.left.message.includes("got two"))
  })

  it("the fast path reads --depth as a value", () => {
    assert.deepStrictEqual(
      parse(["query", "impact", "a.ts:1:2", "--depth", "3", "--remote", "auto"]),
      { operation: "impact", target: "a.ts:1:2", options: { depth: "3", remote: "auto" }, json: false }
    )
  })
})
