import { NodeContext } from "@effect/platform-node"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as LspStdio from "../src/LspStdio.js"
import {
  allGone,
  assertNothingSurvives,
  fakeConfig,
  makeRecordFile,
  makeWorkspace,
  startedPids
} from "./support/fakeHost.js"

// No test may leave a language server (or anything it started) behind.
afterAll(assertNothingSurvives)

describe("LspStdio.diagnose", () => {
  it.scopedLive("reports what each server can do, and what went wrong with the others", () =>
    Effect.gen(function*() {
      const record = yield* makeRecordFile
      const workspace = yield* makeWorkspace()
      const fake = fakeConfig({
        recordFile: record,
        fake: { capabilities: { textDocumentSync: 2, hoverProvider: true, referencesProvider: {} } }
      })
      const config = {
        servers: {
          ...fake.servers,
          missing: { command: "no-such-language-server-xyz", extensionToLanguage: { nope: "nope" } },
          crashing: {
            ...fake.servers.fake,
            extensionToLanguage: { crash: "crash" },
            env: { FAKE_LSP: "{\"crash\":\"beforeInitialize\"}" }
          }
        }
      }
      const reports = yield* LspStdio.diagnose(config, workspace).pipe(Effect.provide(NodeContext.layer))
      const byId = Object.fromEntries(reports.map((r) => [r.providerId, r]))
      assert.isTrue(byId.fake?.usable)
      assert.strictEqual(byId.fake?.executable, process.execPath)
      assert.deepStrictEqual(byId.fake?.operations, {
        goToDefinition: false,
        findReferences: true,
        goToImplementation: false,
        hover: true,
        goToTypeDefinition: false,
        incomingCalls: false,
        outgoingCalls: false,
        documentSymbol: false,
        workspaceSymbol: false,
        diagnostics: true,
        renamePreview: false
      })
      assert.strictEqual(byId.fake?.positionEncoding, "utf-16")
      assert.strictEqual(byId.fake?.textDocumentSync, 2)
      assert.deepStrictEqual(byId.fake?.serverInfo, { name: "fake-server", version: "0.0.0" })
      assert.isNumber(byId.fake?.startMs)
      assert.isFalse(byId.missing?.usable)
      assert.strictEqual(byId.missing?.error?.code, "LSP_EXECUTABLE_NOT_FOUND")
      assert.isFalse(byId.crashing?.usable)
      assert.strictEqual(byId.crashing?.error?.code, "LSP_SERVER_EXITED")
      assert.strictEqual(byId.crashing?.executable, process.execPath, "found, even though it then failed")
      assert.isTrue(yield* allGone(startedPids(record)))
    }))
})
