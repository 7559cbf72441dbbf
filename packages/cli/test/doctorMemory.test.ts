import { assert, describe, it } from "@effect/vitest"
import { StdioConfig, type StdioStatus } from "@lsp-seam/lsp-stdio"
import type { LspConfigFile } from "@lsp-seam/setup"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Doctor from "../src/internal/doctor/doctor.js"
import * as MemoryReport from "../src/internal/doctor/memoryReport.js"
import * as RemoteDoctor from "../src/internal/doctor/remoteDoctor.js"

const MiB = 1024 * 1024

const memory = (overrides: Partial<StdioStatus.MemoryStatus> = {}): StdioStatus.MemoryStatus => ({
  maxMemory: "25%",
  budgetBytes: 4096 * MiB,
  enforced: true,
  totalBytes: 300 * MiB,
  hostBytes: 95.5 * MiB,
  evictions: 0,
  recentEvictions: [],
  ...overrides
})

const eviction = (
  fields: Pick<StdioStatus.MemoryEviction, "providerId" | "workspace" | "rssBytes" | "totalBytes">
): StdioStatus.MemoryEviction => ({ ...fields, root: fields.workspace, pid: 4242, budgetBytes: 512_000_000, at: 0 })

describe("doctor's memory lines", () => {
  it("the servers' total against the budget, and the host's own memory", () => {
    assert.deepStrictEqual(MemoryReport.render(memory(), "  "), [
      "  memory: servers 300.0 MiB of a budget of maxMemory \"25%\" = 4096.0 MiB; host process 95.5 MiB"
    ])
  })

  it("the servers the budget stopped, with the latest", () => {
    const lines = MemoryReport.render(
      memory({
        maxMemory: "512MB",
        budgetBytes: 512_000_000,
        evictions: 3,
        recentEvictions: [
          eviction({ providerId: "json", workspace: "/a", rssBytes: 60 * MiB, totalBytes: 600 * MiB }),
          eviction({ providerId: "yaml", workspace: "/b", rssBytes: 80 * MiB, totalBytes: 560 * MiB })
        ]
      }),
      ""
    )
    assert.strictEqual(
      lines[0],
      "memory: servers 300.0 MiB of a budget of maxMemory \"512MB\" = 488.3 MiB; host process 95.5 MiB"
    )
    assert.strictEqual(
      lines[1],
      "  3 idle servers stopped over the budget; the latest: yaml for /b (80.0 MiB, servers at 560.0 MiB)"
    )
  })

  it("serve's start line says the budget and whether it holds here", () => {
    assert.strictEqual(
      MemoryReport.budgetLine(memory()),
      "memory budget for the language servers: maxMemory \"25%\" = 4096.0 MiB (their process trees measured " +
        "from /proc; idle ones stopped, least recently used first, when over)"
    )
    assert.include(
      MemoryReport.budgetLine(memory({ enforced: false, totalBytes: null })),
      "(not enforced here: the servers' memory cannot be measured without /proc)"
    )
  })

  it("says so when the budget cannot be enforced", () => {
    const [line] = MemoryReport.render(memory({ enforced: false, totalBytes: null }), "  ")
    assert.include(line!, "maxMemory \"25%\" = 4096.0 MiB is not enforced here")
    assert.include(line!, "no /proc")
  })

  it.effect("doctor's status section carries them", () =>
    Effect.gen(function*() {
      const config = yield* StdioConfig.decode({
        servers: { alpha: { command: "alpha-ls", extensionToLanguage: { a: "a" } } }
      })
      const loaded: LspConfigFile.Loaded = {
        source: { _tag: "File", path: "/ws/lsp-seam.json", presetDefaults: [] },
        config,
        input: StdioConfig.encode(config)
      }
      const text = Doctor.render(
        "/ws",
        loaded,
        [],
        Option.some({ _tag: "Ran", probes: new Map(), status: [], memory: memory({ evictions: 1 }) })
      )
      assert.include(text, "status (the host that serves queries")
      assert.include(text, "\n  memory: servers 300.0 MiB of a budget of maxMemory \"25%\" = 4096.0 MiB; host process")
      assert.include(text, "\n    1 idle server stopped over the budget\n")
    }))

  it("doctor --remote adds them when the host offers its memory, and an older host's report stays as it was", () => {
    const hello = { protocolRevision: 1, version: "0.3.0", fingerprint: "f", pid: 7, statusAvailable: true }
    const withMemory = RemoteDoctor.render("/run/host.sock", { ...hello, memoryAvailable: true }, [], {
      ...memory(),
      recentEvictions: []
    })
    assert.include(
      withMemory,
      "\n  memory: servers 300.0 MiB of a budget of maxMemory \"25%\" = 4096.0 MiB; host process"
    )
    const older = RemoteDoctor.render("/run/host.sock", hello, [])
    assert.notInclude(older, "memory")
    assert.include(RemoteDoctor.render("/run/host.sock", hello, [], "refused"), "\n  memory: refused\n")
  })
})
