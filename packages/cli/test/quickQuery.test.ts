import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { LspRpc } from "@lsp-seam/lsp-remote"
import { LspDaemon, LspRemoteConnection } from "@lsp-seam/setup/remote"
import { LspToolConfig, LspToolInput } from "@lsp-seam/tool-lsp"
import { Effect, Either, FastCheck } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as QuickQuery from "../src/internal/query/quickQuery.js"
import { parse } from "../src/internal/query/remoteQuery.js"
import { scopedTempDir } from "./support/cli.js"

// The remote query's edge repeats a few things it cannot import without loading the Schemas; each is held
// equal here to what it repeats. Its answers themselves are compared with the full client's in
// quickQuery.e2e.test.ts.
describe("the remote query's edge", () => {
  it("repeats the wire's and the tool's constants exactly", () => {
    assert.strictEqual(QuickQuery.contract.protocolRevision, LspRpc.protocolRevision)
    assert.strictEqual(QuickQuery.contract.clientVersion, LspRpc.version)
    assert.strictEqual(QuickQuery.contract.budgetHeader, LspRpc.budgetHeader)
    assert.strictEqual(QuickQuery.contract.timeoutMs, LspToolConfig.defaults.timeoutMs)
    assert.strictEqual(QuickQuery.contract.maxLocations, LspToolConfig.defaults.maxLocations)
    assert.strictEqual(QuickQuery.contract.maxResultChars, LspToolConfig.defaults.maxResultChars)
  })

  // Targets near the valid ones: any line and character the command's parser reads as a number.
  const number = FastCheck.oneof(
    FastCheck.integer({ min: -2, max: 40 }).map(String),
    FastCheck.constantFrom("1.5", "+3", "007", "1e2", "", "x", " 1")
  )
  const target = FastCheck.tuple(
    FastCheck.constantFrom("a.ts", "src/b c.ts", " ", "", "C:\\x.ts", "a:b.ts"),
    number,
    number
  ).map(([file, line, character]) => `${file}:${line}:${character}`)
  const operation = FastCheck.constantFrom(...LspToolInput.allOperations)

  it.prop("takes a query only as the tool takes it, and asks the host what the tool would ask", {
    operation,
    target
  }, ({ operation, target }) => {
    const parsed = parse(["query", operation, target, "--remote", "auto"])
    assert.isDefined(parsed)
    const input = QuickQuery.toolInput(parsed!)
    if (input === undefined) return
    assert.include(QuickQuery.operations, operation)
    // What the tool makes of the same arguments: the same input, and the same seam request.
    const validated = LspToolInput.validate({ ...input, symbol: undefined })
    assert.deepStrictEqual(Either.getOrThrow(validated), input)
    assert.deepStrictEqual(
      QuickQuery.queryRequest(input, "/w"),
      LspToolInput.toQueryRequest(Either.getOrThrow(validated), "/w")
    )
  }, { fastCheck: { numRuns: 500 } })

  it("leaves to the full client what it does not handle", () => {
    const declined = [
      ["query", "documentSymbol", "a.ts", "--remote", "auto"],
      ["query", "goToDefinition", "a.ts:1:1", "--remote", "auto", "--symbol", "x"],
      ["query", "goToDefinition", "a.ts:0:1", "--remote", "auto"],
      ["query", "goToDefinition", "a.ts:1", "--remote", "auto"],
      ["query", "findReferences", "a.ts:1:1", "--remote", "auto", "--token-file", "t"]
    ]
    for (const args of declined) assert.isUndefined(QuickQuery.toolInput(parse(args)!), args.join(" "))
  })

  it.scoped("finds the daemon the full client finds: identifySync is identify", () =>
    Effect.gen(function*() {
      const dir = yield* scopedTempDir("edge-identity")
      const bin = NodePath.join(dir, "bin")
      NodeFs.mkdirSync(bin)
      // An executable preset command on PATH changes the presets, hence the fingerprint.
      NodeFs.writeFileSync(NodePath.join(bin, "clangd"), "#!/bin/sh\n", { mode: 0o755 })
      NodeFs.writeFileSync(NodePath.join(bin, "gopls"), "not executable\n", { mode: 0o644 })
      const config = NodePath.join(dir, "lsp-seam.json")
      NodeFs.writeFileSync(config, JSON.stringify({ $schema: "x", servers: {} }))
      const environments = [{ PATH: "" }, { PATH: bin }, { PATH: `relative:${bin}:/nonexistent` }]
      const sources: ReadonlyArray<LspDaemon.ConfigSource> = [
        { _tag: "Presets" },
        { _tag: "File", path: config },
        { _tag: "Inline", config: { servers: { a: { command: "x" } } } }
      ]
      const fingerprints = new Set<string>()
      for (const environment of environments) {
        for (const source of sources) {
          const expected = yield* LspRemoteConnection.identifyDaemon(source, environment)
          assert.deepStrictEqual(LspDaemon.identifySync(source, environment), expected)
          fingerprints.add(expected.fingerprint)
        }
      }
      assert.isAtLeast(fingerprints.size, 4, "the cases differ")
      // A file that cannot be read or parsed is the full client's to report.
      NodeFs.writeFileSync(config, "{")
      assert.isUndefined(LspDaemon.identifySync({ _tag: "File", path: config }))
      assert.isUndefined(LspDaemon.identifySync({ _tag: "File", path: NodePath.join(dir, "none.json") }))
    }).pipe(Effect.provide(NodeContext.layer)))
})
