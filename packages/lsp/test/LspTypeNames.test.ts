/**
 * The public Schema types are named interfaces, so a compiler message names them (`LspLocation`) instead of
 * spelling out an anonymous struct cut short with `… 5 more …`. A small program with type errors is compiled
 * against the sources with the TypeScript compiler API and its messages read.
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodePath from "node:path"
import ts from "typescript"

const file = NodePath.join(import.meta.dirname, "typeNamesProgram.ts")

const program = `
import type { LspQuery, LspResult } from "../src/index.js"
declare const location: LspResult.LspLocation
declare const answer: LspResult.LspLocationsResult
declare const request: LspQuery.LspPositionRequest
declare const result: LspResult.LspQueryResult
export const a: number = location
export const b: number = answer
export const c: number = request
export const d: number = result
`

const messages = (): ReadonlyArray<string> => {
  const options: ts.CompilerOptions = {
    strict: true,
    exactOptionalPropertyTypes: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
    types: []
  }
  const host = ts.createCompilerHost(options)
  const getSourceFile = host.getSourceFile
  host.getSourceFile = (name, language, ...rest) =>
    name === file ? ts.createSourceFile(name, program, language) : getSourceFile(name, language, ...rest)
  const fileExists = host.fileExists
  host.fileExists = (name) => name === file || fileExists(name)
  return ts.getPreEmitDiagnostics(ts.createProgram([file], options, host))
    .filter((diagnostic) => diagnostic.file?.fileName === file)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
}

describe("compiler messages", () => {
  it("name the public result and request types", { timeout: 120_000 }, () => {
    const found = messages()
    assert.strictEqual(found.length, 4, found.join("\n---\n"))
    const [location, answer, request, result] = found
    assert.strictEqual(location, "Type 'LspLocation' is not assignable to type 'number'.")
    assert.strictEqual(answer, "Type 'LspLocationsResult' is not assignable to type 'number'.")
    assert.strictEqual(request, "Type 'LspPositionRequest' is not assignable to type 'number'.")
    // The union stays an alias (an interface cannot extend a union), of the named answers.
    assert.include(result, "Type 'LspLocationsResult' is not assignable to type 'number'.")
    for (const message of found) assert.notInclude(message, "more ...", message)
  })
})
