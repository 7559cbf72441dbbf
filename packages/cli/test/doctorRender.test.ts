import { assert, describe, it } from "@effect/vitest"
import { LspError } from "@lsp-seam/lsp"
import type { LspStdio, StdioStatus } from "@lsp-seam/lsp-stdio"
import { StdioConfig } from "@lsp-seam/lsp-stdio"
import type { LspConfigFile } from "@lsp-seam/setup"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Doctor from "../src/internal/doctor/doctor.js"
import type * as DoctorProbe from "../src/internal/doctor/doctorProbe.js"

const loaded = Effect.map(
  StdioConfig.decode({
    servers: {
      alpha: { command: "alpha-ls", extensionToLanguage: { a: "a" } },
      beta: { command: "beta-ls", extensionToLanguage: { b: "b" } }
    }
  }),
  (config): LspConfigFile.Loaded => ({
    source: { _tag: "File", path: "/ws/lsp-seam.json", presetDefaults: [] },
    config,
    input: StdioConfig.encode(config)
  })
)

const report = (providerId: string, usable = true): LspStdio.ServerDiagnosis => ({
  providerId,
  command: `${providerId}-ls`,
  extensions: [`.${providerId[0]}`],
  executable: `/bin/${providerId}-ls`,
  usable,
  error: usable ? null : { code: "LSP_SERVER_EXITED", message: "it exited" },
  startMs: usable ? 5 : null,
  serverInfo: null,
  positionEncoding: null,
  textDocumentSync: 1,
  transientOpen: true,
  operations: {
    goToDefinition: true,
    findReferences: true,
    goToImplementation: true,
    hover: true,
    goToTypeDefinition: true,
    incomingCalls: true,
    outgoingCalls: false,
    documentSymbol: true,
    workspaceSymbol: false,
    diagnostics: false,
    renamePreview: false
  },
  diagnosticsMode: usable ? "push" : null
})

const status = (overrides: Partial<StdioStatus.ServerStatus>): StdioStatus.ServerStatus => ({
  providerId: "alpha",
  workspace: "/ws",
  root: "/ws",
  pid: 4242,
  state: "idle",
  uptimeMs: 1_530,
  queriesServed: 1,
  queued: 0,
  restarts: 0,
  lastError: null,
  rssBytes: 50 * 1024 * 1024,
  ...overrides
})

const ran = (
  probes: ReadonlyArray<readonly [string, DoctorProbe.ProbeOutcome]>,
  statuses: ReadonlyArray<StdioStatus.ServerStatus>
): Option.Option<DoctorProbe.Inspection> => Option.some({ _tag: "Ran", probes: new Map(probes), status: statuses })

describe("Doctor.render", () => {
  it.effect("a status line per running server; a failed probe makes its server unusable", () =>
    Effect.gen(function*() {
      const inspection = ran(
        [
          ["alpha", { _tag: "Answered", file: "src/x.a", ms: 12, empty: false }],
          ["beta", { _tag: "Failed", file: "y.b", error: LspError.serverError("no hover today") }]
        ],
        [
          status({}),
          status({
            providerId: "beta",
            pid: null,
            state: "starting",
            uptimeMs: 40,
            restarts: 2,
            rssBytes: null,
            lastError: Array.from({ length: 12 }, (_, i) => `line ${i}`).join("\n")
          })
        ]
      )
      const text = Doctor.render("/ws", yield* loaded, [report("alpha"), report("beta")], inspection)
      assert.include(text, "alpha: usable\n")
      assert.include(text, "  probe:       hover on src/x.a:1:1 answered in 12 ms\n")
      assert.include(text, "beta: UNUSABLE\n")
      assert.include(text, "  probe:       hover on y.b:1:1 failed: LSP_SERVER_ERROR: no hover today\n")
      assert.include(
        text,
        "  alpha: pid 4242, idle, up 1.5 s, queries served 1, restarts 0, RSS 50.0 MB, workspace /ws, " +
          "last error: none\n"
      )
      assert.include(
        text,
        "  beta: pid -, starting, up 40 ms, queries served 1, restarts 2, RSS unknown, workspace /ws, last error:\n" +
          "      line 0\n      line 1\n"
      )
      assert.include(text, "      line 7\n      … (4 more lines)\n")
      assert.notInclude(text, "line 8")
      assert.isTrue(text.endsWith("2 servers configured: 1 usable, 1 unusable.\n"), text)
      assert.deepStrictEqual(Doctor.unusable([report("alpha"), report("beta")], inspection), ["beta"])
    }))

  it.effect("a server with nothing to probe stays usable and is said never to have started", () =>
    Effect.gen(function*() {
      const inspection = ran(
        [["alpha", { _tag: "NoFile", extensions: [".a"], visited: 5_000, truncated: true }]],
        []
      )
      const text = Doctor.render("/ws", yield* loaded, [report("alpha"), report("beta", false)], inspection)
      assert.include(text, "alpha: usable\n")
      assert.include(text, "  probe:       not run: no .a file in the workspace (looked at 5000 entries, the most")
      assert.include(text, "  alpha: no server running (nothing to probe, so never started)")
      // beta failed its diagnosis: it was not probed, so it has neither a probe line nor a status line.
      assert.notInclude(text, "beta: no server running")
      assert.deepStrictEqual(Doctor.unusable([report("alpha"), report("beta", false)], inspection), ["beta"])
    }))

  it.effect("a probed server that is gone because the host was full says so, naming maxServers", () =>
    Effect.gen(function*() {
      const full = { ...(yield* loaded), config: { ...(yield* loaded).config, maxServers: 1 } }
      const answered = { _tag: "Answered", file: "x.a", ms: 3, empty: true } as const
      const inspection = ran([["alpha", answered], ["beta", { ...answered, file: "y.b" }]], [
        status({ providerId: "beta" })
      ])
      const text = Doctor.render("/ws", full, [report("alpha"), report("beta")], inspection)
      assert.include(
        text,
        "  alpha: no server running (it stopped after its probe: the host runs at most maxServers = 1 servers and " +
          "replaced the least recently used)"
      )
      const roomy = Doctor.render("/ws", yield* loaded, [report("alpha"), report("beta")], inspection)
      assert.include(roomy, "  alpha: no server running (it stopped after its probe)")
    }))

  it.effect("no host: none started (nothing usable), or it failed to start (every server unusable)", () =>
    Effect.gen(function*() {
      const none = Doctor.render("/ws", yield* loaded, [report("alpha", false)], Option.none())
      assert.include(none, "  no usable server, so no host was started.")
      const failed = Option.some<DoctorProbe.Inspection>({
        _tag: "HostFailed",
        error: LspError.executableNotFound("alpha-ls vanished")
      })
      const text = Doctor.render("/ws", yield* loaded, [report("alpha")], failed)
      assert.include(text, "  the host could not start: LSP_EXECUTABLE_NOT_FOUND: alpha-ls vanished")
      assert.include(text, "alpha: UNUSABLE\n")
      assert.deepStrictEqual(Doctor.unusable([report("alpha")], failed), ["alpha"])
    }))
  it.effect("a failed server that nothing in the workspace needs is skipped, not unusable", () =>
    Effect.gen(function*() {
      const text = Doctor.render("/ws", yield* loaded, [report("alpha"), report("beta", false)], Option.none(), [
        "beta"
      ])
      assert.include(text, "beta: skipped (a preset whose command is on PATH but does not work; no file of the")
      assert.notInclude(text, "UNUSABLE")
      assert.isTrue(text.endsWith("2 servers configured: 1 usable, 1 skipped.\n"), text)
      assert.deepStrictEqual(Doctor.unusable([report("alpha"), report("beta", false)], Option.none(), ["beta"]), [])
    }))
  it.effect("says which preset settings a server of the file received, and from which preset", () =>
    Effect.gen(function*() {
      const base = yield* loaded
      const withDefaults: LspConfigFile.Loaded = {
        ...base,
        source: {
          _tag: "File",
          path: "/ws/lsp-seam.json",
          presetDefaults: [{
            serverId: "alpha",
            presetId: "typescript",
            fields: ["initializationOptions.tsserver", "projectMarkers"]
          }]
        }
      }
      const text = Doctor.render("/ws", withDefaults, [report("alpha"), report("beta")], Option.none())
      assert.include(
        text,
        "  executable:  /bin/alpha-ls\n" +
          "  defaults:    from the typescript preset: initializationOptions.tsserver, projectMarkers\n"
      )
      assert.strictEqual(text.match(/defaults:/g)?.length, 1)
    }))
})
