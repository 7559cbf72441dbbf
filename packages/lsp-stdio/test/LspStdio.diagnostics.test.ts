import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { LspDeadline, type LspResult, LspService } from "@lsp-seam/lsp"
import { Deferred, Effect, Exit, Fiber, Layer, Option, Ref, Schema, Scope, TestClock } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath_ from "node:path"
import { pathToFileURL } from "node:url"
import * as Framing from "../src/Framing.js"
import * as LspStdio from "../src/LspStdio.js"
import * as Testing from "../src/testing.js"
import { makeWorkspace } from "./support/fakeHost.js"
import { settle, waitFor } from "./support/settle.js"

// The diagnostics wait on the Effect clock: a fake server pushes (or pulls) what each test scripts, and only
// TestClock moves time.

const range = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 1 } })
const diagnostic = (line: number, message: string, severity = 1) => ({
  range: range(line),
  message,
  severity,
  source: "fake"
})

const Asked = Schema.Struct({ textDocument: Schema.Struct({ uri: Schema.String }) })
const Opened = Schema.Struct({ textDocument: Schema.Struct({ uri: Schema.String, version: Schema.Number }) })

type Publish = (uri: string, version: number | undefined, diagnostics: ReadonlyArray<unknown>) => Effect.Effect<void>

/**
 * A host over one fake server; `onSync` runs for every didOpen/didChange the server receives, with a way to
 * publish. `documentSync` defaults to retained.
 */
const setup = (
  onSync: (uri: string, version: number, publish: Publish) => Effect.Effect<void>,
  options: {
    readonly documentSync?: "retained" | "transient"
    readonly capabilities?: unknown
    readonly handlers?: Testing.FakeHandlers
    /** Publish an empty, versionless set this many milliseconds after each didClose, as many servers do. */
    readonly clearOnCloseAfterMs?: number
    /** Registered (`client/registerCapability`) when the host says `initialized`, as pyright does. */
    readonly registrations?: ReadonlyArray<unknown>
    /** Register pull diagnostics this many milliseconds after the first didOpen instead. */
    readonly registerAfterOpenMs?: number
    /** The server's `diagnosticsPull` setting. */
    readonly diagnosticsPull?: "tsserver"
  } = {}
) =>
  Effect.gen(function*() {
    const workspace = yield* makeWorkspace({ "main.fake": "let x = 1\n", "other.fake": "y\n" })
    const syncs = yield* Ref.make(0)
    const scope = yield* Effect.acquireRelease(Scope.make(), (scope) => Scope.close(scope, Exit.void))
    const program = (process: Testing.MemoryProcess) => {
      const publish: Publish = (uri, version, diagnostics) =>
        process.writeStdout(Framing.encode({
          jsonrpc: "2.0",
          method: "textDocument/publishDiagnostics",
          params: version === undefined ? { uri, diagnostics } : { uri, version, diagnostics }
        }))
      return Testing.fakeLanguageServer({
        capabilities: options.capabilities ?? { textDocumentSync: 1, hoverProvider: true },
        handlers: options.handlers ?? {},
        onNotification: (method, params) => {
          const register = (registrations: ReadonlyArray<unknown>) =>
            process.writeStdout(Framing.encode({
              jsonrpc: "2.0",
              id: "register-1",
              method: "client/registerCapability",
              params: { registrations }
            }))
          if (method === "initialized" && options.registrations !== undefined) return register(options.registrations)
          if (method === "textDocument/didClose" && options.clearOnCloseAfterMs !== undefined) {
            const { textDocument } = Schema.decodeUnknownSync(Asked)(params)
            return Effect.asVoid(Effect.forkDaemon(
              Effect.zipRight(Effect.sleep(options.clearOnCloseAfterMs), publish(textDocument.uri, undefined, []))
            ))
          }
          if (method !== "textDocument/didOpen" && method !== "textDocument/didChange") return Effect.void
          const { textDocument } = Schema.decodeUnknownSync(Opened)(params)
          const late = method === "textDocument/didOpen" && options.registerAfterOpenMs !== undefined
            ? Effect.forkDaemon(Effect.zipRight(
              Effect.sleep(options.registerAfterOpenMs),
              register([{ id: "pull-late", method: "textDocument/diagnostic", registerOptions: {} }])
            ))
            : Effect.void
          return Effect.forkDaemon(onSync(textDocument.uri, textDocument.version, publish)).pipe(
            Effect.zipRight(late),
            Effect.zipRight(Ref.update(syncs, (n) => n + 1))
          )
        }
      })(process)
    }
    const context = yield* Layer.buildWithScope(
      LspStdio.layer({
        servers: {
          mem: {
            command: process.execPath,
            args: ["fake"],
            extensionToLanguage: { fake: "fake" },
            documentSync: options.documentSync ?? "retained",
            readiness: { quietMs: 0, progress: false, maxWaitMs: 0 },
            diagnosticsWait: { quietMs: 100, maxWaitMs: 2_000 },
            diagnosticsPull: options.diagnosticsPull ?? null,
            shutdownTimeoutMs: 1_000,
            killGraceMs: 500
          }
        }
      }, { local: false }).pipe(
        Layer.provideMerge(LspService.layer),
        Layer.provide(Layer.mergeAll(Testing.layerMemoryExecutor(() => program), NodeFileSystem.layer, NodePath.layer))
      ),
      scope
    )
    const uri = (file: string) => pathToFileURL(`${workspace}/${file}`).href
    const ask = (severity?: "error" | "warning" | "information" | "hint") =>
      Effect.provide(
        LspService.query({
          operation: "diagnostics",
          filePath: "main.fake",
          workspaceRoot: workspace,
          ...(severity === undefined ? {} : { severity })
        }),
        context
      )
    const write = (text: string) => NodeFs.writeFileSync(NodePath_.join(workspace, "main.fake"), text)
    /** Waits (without moving the clock) until the server has received `n` document syncs, then settles. */
    const synced = (n: number) =>
      Effect.gen(function*() {
        yield* waitFor(Ref.get(syncs), (count) => count >= n, "the document was never synced")
        yield* settle
      })
    return { ask, synced, uri, write }
  })

const messages = (result: LspResult.LspQueryResult) =>
  result.kind === "diagnostics"
    ? result.diagnostics.map((d) =>
      `${d.message}${
        d.relatedInformation === undefined ? "" : ` (related: ${d.relatedInformation.map((r) => r.message).join(", ")})`
      }`
    )
    : []

describe("LspStdio diagnostics (pushed, TestClock)", () => {
  it.scoped("a set for an older version is ignored; the one for the synced version is the answer", () =>
    Effect.gen(function*() {
      const { ask, synced } = yield* setup((uri, version, publish) =>
        Effect.gen(function*() {
          // First a stale set (for a version before this one), later the right one.
          yield* publish(uri, version - 1, [diagnostic(0, "stale")])
          yield* Effect.sleep(500)
          yield* publish(uri, version, [diagnostic(0, "current")])
        })
      )
      const fiber = yield* Effect.fork(ask())
      yield* synced(1)
      yield* TestClock.adjust(499)
      yield* settle
      assert.isNull(Option.getOrNull(yield* Fiber.poll(fiber)), "the stale set is no answer")
      yield* TestClock.adjust(1)
      yield* settle
      yield* TestClock.adjust(100)
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(messages(result), ["current"])
      assert.isUndefined(result.incomplete)
    }))

  it.scoped("a set that never comes ends in diagnostics-pending inside the budget, never a clean answer", () =>
    Effect.gen(function*() {
      const { ask, synced } = yield* setup(() => Effect.void)
      const fiber = yield* Effect.fork(ask().pipe(LspDeadline.within(1_000)))
      yield* synced(1)
      // The caller's 1 s budget keeps a quarter (250 ms) for the answer: the wait ends at 750 ms.
      yield* TestClock.adjust(749)
      yield* settle
      assert.isNull(Option.getOrNull(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust(1)
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(messages(result), [])
      assert.isTrue(result.incomplete)
      assert.deepStrictEqual(result.incompleteReasons?.map((r) => r.reason), ["diagnostics-pending"])
    }))

  it.scoped("versionless sets: the first after the sync, then a quiet period for later phases", () =>
    Effect.gen(function*() {
      const { ask, synced } = yield* setup((uri, _version, publish) =>
        Effect.gen(function*() {
          yield* Effect.sleep(10)
          yield* publish(uri, undefined, [diagnostic(0, "syntax")])
          yield* Effect.sleep(50)
          yield* publish(uri, undefined, [diagnostic(0, "syntax"), diagnostic(0, "semantic")])
        })
      )
      const fiber = yield* Effect.fork(ask())
      yield* synced(1)
      yield* TestClock.adjust(10)
      yield* settle
      yield* TestClock.adjust(50)
      yield* settle
      yield* TestClock.adjust(99)
      yield* settle
      assert.isNull(Option.getOrNull(yield* Fiber.poll(fiber)), "still inside the quiet period after the second set")
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(messages(yield* Fiber.join(fiber)), ["syntax", "semantic"])
    }))

  it.scoped("a held document unchanged on disk is answered at once from the set already published for it", () =>
    Effect.gen(function*() {
      const syncs = yield* Ref.make(0)
      const { ask, synced, write } = yield* setup((uri, version, publish) =>
        Effect.zipRight(Ref.update(syncs, (n) => n + 1), publish(uri, version, [diagnostic(0, `v${version}`)]))
      )
      const first = yield* Effect.fork(ask())
      yield* synced(1)
      yield* TestClock.adjust(100)
      assert.deepStrictEqual(messages(yield* Fiber.join(first)), ["v1"])
      // No time passes and nothing is sent: the held set is for the held text.
      const again = yield* Effect.fork(ask())
      // The clock stays still while this waits, so an answer here came without a diagnostics wait.
      yield* waitFor(Fiber.poll(again), Option.isSome, "answered without waiting")
      assert.strictEqual(yield* Ref.get(syncs), 1)
      // Fix the file: its new text is sent and only the set for that version answers.
      write("let x = 2 // a different size\n")
      const fixed = yield* Effect.fork(ask())
      yield* synced(2)
      yield* TestClock.adjust(100)
      assert.deepStrictEqual(messages(yield* Fiber.join(fixed)), ["v2"])
    }))

  it.scoped("the severity threshold; never another file's diagnostics; related information stays attached", () =>
    Effect.gen(function*() {
      const other = (uri: string) => uri.replace("main.fake", "other.fake")
      const { ask, synced } = yield* setup((uri, version, publish) =>
        Effect.gen(function*() {
          yield* publish(other(uri), undefined, [diagnostic(3, "importer broke")])
          yield* publish("file:///elsewhere/x.fake", undefined, [diagnostic(0, "outside the workspace")])
          yield* publish(uri, version, [
            diagnostic(2, "a hint", 4),
            diagnostic(1, "a warning", 2),
            {
              ...diagnostic(5, "an error"),
              relatedInformation: [{ location: { uri: other(uri), range: range(3) }, message: "declared here" }]
            }
          ])
        })
      )
      const fiber = yield* Effect.fork(ask())
      yield* synced(1)
      yield* TestClock.adjust(100)
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(messages(result), ["an error (related: declared here)", "a warning"])
      const first = result.kind === "diagnostics" ? result.diagnostics[0] : undefined
      assert.deepStrictEqual(first?.relatedInformation, [
        { uri: other(first!.uri), range: range(3), message: "declared here" }
      ])
      const all = yield* Effect.fork(ask("hint"))
      yield* settle
      assert.deepStrictEqual(messages(yield* Fiber.join(all)), [
        "an error (related: declared here)",
        "a warning",
        "a hint"
      ])
    }))
})

describe("LspStdio diagnostics (transient documents, TestClock)", () => {
  it.scoped("a reopened document's answer is never an earlier open's set, nor the set that cleared it on close", () =>
    Effect.gen(function*() {
      const texts = yield* Ref.make<ReadonlyArray<number>>([])
      // A versionless server: it says nothing of versions, clears a closed document 50 ms after the close, and
      // publishes a document's diagnostics 100 ms after it opens.
      const { ask, synced, write } = yield* setup((uri, version, publish) =>
        Effect.gen(function*() {
          yield* Ref.update(texts, (all) => [...all, version])
          yield* Effect.sleep(100)
          yield* publish(uri, undefined, version === 1 ? [diagnostic(0, "broken")] : [])
        }), { documentSync: "transient", clearOnCloseAfterMs: 50 })
      const first = yield* Effect.fork(ask())
      yield* synced(1)
      yield* TestClock.adjust(100)
      yield* settle
      // Quiet for 100 ms after its set: answered at 200 ms, and closed then.
      yield* TestClock.adjust(100)
      assert.deepStrictEqual(messages(yield* Fiber.join(first)), ["broken"])
      write("let x = 2 // fixed\n")
      // The clear of the first close comes 50 ms after it; the server sends no versions, so the host waits until
      // it has been quiet about the document (quietMs 100) before reopening it.
      const second = yield* Effect.fork(ask())
      yield* settle
      yield* TestClock.adjust(50)
      yield* settle
      yield* TestClock.adjust(99)
      yield* settle
      assert.deepStrictEqual(yield* Ref.get(texts), [1], "not reopened while the server may still publish")
      yield* TestClock.adjust(1)
      yield* synced(2)
      yield* TestClock.adjust(100)
      yield* settle
      yield* TestClock.adjust(100)
      const result = yield* Fiber.join(second)
      assert.deepStrictEqual(messages(result), [])
      assert.isUndefined(result.incomplete)
      // Each open had a version of its own.
      assert.deepStrictEqual(yield* Ref.get(texts), [1, 2])
    }))
})

describe("LspStdio diagnostics (pulled, TestClock)", () => {
  it.scoped("a transient reopen for a pull server does not wait for a quiet period: the pull is for the held text", () =>
    Effect.gen(function*() {
      const { ask, synced } = yield* setup(() => Effect.void, {
        documentSync: "transient",
        capabilities: { textDocumentSync: 1, diagnosticProvider: { interFileDependencies: false } },
        handlers: {
          "textDocument/diagnostic": () =>
            Effect.succeed(Testing.result({ kind: "full", items: [diagnostic(0, "pulled")] }))
        }
      })
      // Away from time 0, which the host reads as "never closed".
      yield* TestClock.adjust(10)
      const first = yield* Effect.fork(ask())
      yield* synced(1)
      assert.deepStrictEqual(messages(yield* Fiber.join(first)), ["pulled"])
      // Closed just now; the clock stays still, so an answer here came without a wait after the close.
      const second = yield* Effect.fork(ask())
      yield* waitFor(Fiber.poll(second), Option.isSome, "answered without waiting after the close")
      assert.deepStrictEqual(messages(yield* Fiber.join(second)), ["pulled"])
    }))

  it.scoped("a server with diagnosticProvider is asked; an interrupted pull is cancelled and the server stays usable", () =>
    Effect.gen(function*() {
      const pulls = yield* Ref.make(0)
      const cancelled = yield* Deferred.make<void>()
      const { ask, synced } = yield* setup(() => Effect.void, {
        capabilities: {
          textDocumentSync: 1,
          diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false }
        },
        handlers: {
          "textDocument/diagnostic": (request) =>
            Effect.gen(function*() {
              const n = yield* Ref.updateAndGet(pulls, (k) => k + 1)
              if (n === 1) {
                yield* request.cancelled
                yield* Deferred.succeed(cancelled, undefined)
                return Testing.error(-32800, "cancelled")
              }
              return Testing.result({
                kind: "full",
                items: [diagnostic(0, "pulled")],
                relatedDocuments: {
                  [Schema.decodeUnknownSync(Asked)(request.params).textDocument.uri.replace("main.fake", "other.fake")]:
                    {
                      kind: "full",
                      items: [diagnostic(1, "related pull")]
                    }
                }
              })
            })
        }
      })
      const first = yield* Effect.fork(ask())
      yield* synced(1)
      yield* Fiber.interrupt(first)
      yield* Deferred.await(cancelled)
      const result = yield* ask()
      // A related document's report is not this file's: only the asked file's items are listed.
      assert.deepStrictEqual(messages(result), ["pulled"])
    }))
})

describe("LspStdio diagnostics (pull registered after the handshake, TestClock)", () => {
  // As pyright: pull diagnostics offered only by registration, and pushed sets that carry the current version
  // before the check of that version is done (seen: `version 2, []` for a broken text, then `version 2, [error]`).
  const registering = (documentSelector: unknown) =>
    Effect.gen(function*() {
      const pulls = yield* Ref.make(0)
      const fixture = yield* setup(
        (uri, version, publish) => publish(uri, version, [diagnostic(0, "not yet checked")]),
        {
          registrations: [{
            id: "pull-1",
            method: "textDocument/diagnostic",
            registerOptions: { interFileDependencies: true, workspaceDiagnostics: false, documentSelector }
          }],
          handlers: {
            "textDocument/diagnostic": () =>
              Effect.zipRight(
                Ref.update(pulls, (n) => n + 1),
                Effect.succeed(Testing.result({ kind: "full", items: [diagnostic(0, "checked")] }))
              )
          }
        }
      )
      return { ...fixture, pulls }
    })

  it.scoped("a server that registers textDocument/diagnostic is pulled, not believed by its pushed version", () =>
    Effect.gen(function*() {
      const { ask, pulls, synced } = yield* registering(null)
      const fiber = yield* Effect.fork(ask())
      yield* synced(1)
      yield* TestClock.adjust(100)
      assert.deepStrictEqual(messages(yield* Fiber.join(fiber)), ["checked"])
      assert.strictEqual(yield* Ref.get(pulls), 1)
    }))

  it.scoped("a registration for another language is not used for this document", () =>
    Effect.gen(function*() {
      const { ask, pulls, synced } = yield* registering([{ language: "python" }])
      const fiber = yield* Effect.fork(ask())
      yield* synced(1)
      yield* TestClock.adjust(100)
      assert.deepStrictEqual(messages(yield* Fiber.join(fiber)), ["not yet checked"])
      assert.strictEqual(yield* Ref.get(pulls), 0)
    }))

  it.scoped("a registration read only after the wait for a pushed set began is used: the answer is pulled", () =>
    Effect.gen(function*() {
      const pulls = yield* Ref.make(0)
      // Registers 50 ms after the document opens, and pushes nothing (as pyright once it offers pull).
      const { ask, synced } = yield* setup((_uri, _version, _publish) => Effect.void, {
        handlers: {
          "textDocument/diagnostic": () =>
            Effect.zipRight(
              Ref.update(pulls, (n) => n + 1),
              Effect.succeed(Testing.result({ kind: "full", items: [diagnostic(0, "checked")] }))
            )
        },
        registerAfterOpenMs: 50
      })
      const fiber = yield* Effect.fork(ask())
      yield* synced(1)
      yield* TestClock.adjust(50)
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(messages(result), ["checked"])
      assert.isUndefined(result.incomplete)
      assert.strictEqual(yield* Ref.get(pulls), 1)
    }))
})

describe("LspStdio diagnostics asked of tsserver (diagnosticsPull, TestClock)", () => {
  const Command = Schema.Struct({
    command: Schema.Literal("typescript.tsserverRequest"),
    arguments: Schema.Tuple(Schema.String, Schema.Struct({ file: Schema.String }))
  })
  const at = (line: number, offset: number) => ({ line, offset })
  const offering = { textDocumentSync: 1, executeCommandProvider: { commands: ["typescript.tsserverRequest"] } }

  /** A typescript-language-server stand-in: pushes a stale set on every sync; answers tsserver's requests. */
  const tsserverLike = (answers: Record<string, unknown>, capabilities: unknown = offering) =>
    Effect.gen(function*() {
      const asked = yield* Ref.make<ReadonlyArray<string>>([])
      const fixture = yield* setup(
        (uri, _version, publish) => publish(uri, undefined, [diagnostic(0, "pushed, for some earlier text")]),
        {
          diagnosticsPull: "tsserver",
          capabilities,
          handlers: {
            "workspace/executeCommand": (request) =>
              Effect.gen(function*() {
                const { arguments: [name, args] } = Schema.decodeUnknownSync(Command)(request.params)
                yield* Ref.update(asked, (all) => [...all, `${name} ${args.file.split("/").pop()}`])
                return Testing.result(answers[name])
              })
          }
        }
      )
      return { ...fixture, asked }
    })

  it.scoped("the answer is tsserver's three sets for the synced file, at once; pushed sets are not read", () =>
    Effect.gen(function*() {
      const { ask, asked, synced, uri } = yield* tsserverLike({
        syntacticDiagnosticsSync: { body: [] },
        semanticDiagnosticsSync: {
          body: [{
            start: at(2, 5),
            end: at(2, 8),
            text: "semantic",
            category: "error",
            code: 2322,
            relatedInformation: [
              {
                message: "declared here",
                category: "message",
                code: 6500,
                span: { file: "/w/other.fake", start: at(1, 1), end: at(1, 2) }
              },
              { message: "no place", category: "message", code: 1 }
            ]
          }]
        },
        suggestionDiagnosticsSync: {
          body: [{ start: at(1, 5), end: at(1, 6), text: "unused", category: "suggestion", code: 6133 }]
        }
      })
      const fiber = yield* Effect.fork(ask("hint"))
      yield* synced(1)
      // The clock never moves: an answer came without waiting for a pushed set or a quiet period.
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(messages(result), ["semantic (related: declared here)", "unused"])
      assert.isUndefined(result.incomplete)
      if (result.kind !== "diagnostics") return assert.fail(result.kind)
      const [semantic, unused] = result.diagnostics
      assert.deepStrictEqual([semantic.severity, semantic.code, semantic.source], ["error", "2322", "typescript"])
      assert.deepStrictEqual(semantic.range, { start: { line: 1, character: 4 }, end: { line: 1, character: 7 } })
      assert.strictEqual(semantic.uri, uri("main.fake"))
      assert.strictEqual(semantic.relatedInformation?.[0].uri, "file:///w/other.fake")
      assert.deepStrictEqual([unused.severity, unused.range.start], ["hint", { line: 0, character: 4 }])
      assert.deepStrictEqual(yield* Ref.get(asked), [
        "syntacticDiagnosticsSync main.fake",
        "semanticDiagnosticsSync main.fake",
        "suggestionDiagnosticsSync main.fake"
      ])
    }))

  it.scoped("a malformed answer is LSP_MALFORMED_RESPONSE naming the request, not an empty list", () =>
    Effect.gen(function*() {
      const { ask, synced } = yield* tsserverLike({
        syntacticDiagnosticsSync: { body: [] },
        semanticDiagnosticsSync: { body: [{ start: at(0, 1), end: at(1, 1), text: "zero line", category: "error" }] },
        suggestionDiagnosticsSync: { body: [] }
      })
      const fiber = yield* Effect.fork(Effect.flip(ask()))
      yield* synced(1)
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.code, "LSP_MALFORMED_RESPONSE")
      assert.include(error.message, "semanticDiagnosticsSync")
    }))

  it.scoped("a server that does not offer the command is read from its pushed sets, as before", () =>
    Effect.gen(function*() {
      const { ask, asked, synced } = yield* tsserverLike({}, { textDocumentSync: 1 })
      const fiber = yield* Effect.fork(ask())
      yield* synced(1)
      yield* TestClock.adjust(100)
      assert.deepStrictEqual(messages(yield* Fiber.join(fiber)), ["pushed, for some earlier text"])
      assert.deepStrictEqual(yield* Ref.get(asked), [])
    }))
})
