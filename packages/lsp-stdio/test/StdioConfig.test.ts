import { assert, describe, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as MemorySize from "../src/internal/config/memorySize.js"
import * as StdioConfig from "../src/StdioConfig.js"

const minimal = { command: "typescript-language-server", extensionToLanguage: { ".ts": "typescript" } }

const withServer = (server: Record<string, unknown>) => ({ servers: { ts: { ...minimal, ...server } } })

const decodeError = (input: unknown) => Effect.flip(StdioConfig.decode(input))

const assertInvalid = (input: unknown, ...fragments: Array<string>) =>
  Effect.gen(function*() {
    const error = yield* decodeError(input)
    assert.strictEqual(error.code, "LSP_INVALID_CONFIG")
    for (const fragment of fragments) {
      assert.include(error.message, fragment)
    }
    return error
  })

describe("StdioConfig", () => {
  it.effect("fills in every default", () =>
    Effect.gen(function*() {
      const config = yield* StdioConfig.decode({ servers: { ts: minimal } })
      assert.deepStrictEqual(config.servers.ts, {
        command: "typescript-language-server",
        extensionToLanguage: { ".ts": "typescript" },
        args: [],
        env: {},
        initializationOptions: null,
        configuration: null,
        maxMessageBytes: 16_000_000,
        maxStderrBytes: 1_000_000,
        maxDocumentBytes: 4_000_000,
        shutdownTimeoutMs: 5_000,
        killGraceMs: 2_000,
        documentSync: "retained",
        maxRetainedDocuments: 32,
        projectMarkers: [],
        rootMarkers: [],
        workspaceSymbols: true,
        workspaceErrors: [],
        afterInitialized: [],
        readiness: {
          quietMs: 0,
          progress: true,
          maxWaitMs: 15_000,
          readyLog: null,
          readyNotification: null,
          openStartsProgress: false
        },
        looseFiles: null,
        excludedFiles: null,
        projects: null,
        diagnosticsPull: null,
        diagnosticsWait: { quietMs: 200, maxWaitMs: 10_000 },
        idleTimeoutMs: 600_000,
        crashLoop: { maxCrashes: 5, windowMs: 180_000 }
      })
      assert.strictEqual(config.maxServers, 32)
      assert.strictEqual(config.maxMemory, "25%")
    }))

  it.effect("keeps every explicit value", () =>
    Effect.gen(function*() {
      const server = {
        command: "/usr/bin/clangd",
        extensionToLanguage: { c: "c", ".H": "cpp" },
        args: ["--log=error", ""],
        env: { CLANGD_FLAGS: "-j=2", GITHUB_TOKEN: "explicit" },
        initializationOptions: { nested: [1, "two", { three: true }] },
        configuration: { python: { analysis: { typeCheckingMode: "basic" } } },
        maxMessageBytes: 1,
        maxStderrBytes: 2,
        maxDocumentBytes: 3,
        shutdownTimeoutMs: 2_147_483_647,
        killGraceMs: 1,
        documentSync: "transient" as const,
        maxRetainedDocuments: 1,
        projectMarkers: ["compile_commands.json", "compile_flags.txt"],
        rootMarkers: ["compile_commands.json", [".clangd", "compile_flags.txt"]],
        workspaceSymbols: false,
        readiness: {
          quietMs: 250,
          progress: false,
          maxWaitMs: 0,
          readyLog: "^Found \\d+ source files?$",
          openStartsProgress: true,
          readyNotification: "x/ready"
        },
        workspaceErrors: [{ message: "modules? have errors", hint: "Run go mod download." }],
        afterInitialized: [{ method: "x/optIn" }, { method: "x/withParams", params: { on: [1, "two"] } }],
        looseFiles: { maxFiles: 3, maxBytes: 4 },
        excludedFiles: { reader: "pyright" as const, maxFiles: 5, maxBytes: 6 },
        projects: { maxProjects: 2, askEach: ["incomingCalls" as const] },
        diagnosticsPull: "tsserver" as const,
        diagnosticsWait: { quietMs: 0, maxWaitMs: 1 },
        idleTimeoutMs: 1,
        crashLoop: { maxCrashes: 1, windowMs: 2_147_483_647 }
      }
      const top = { maxServers: 1, maxMemory: "1.5GiB" }
      const config = yield* StdioConfig.decode({ servers: { " clangd ": server }, ...top })
      assert.deepStrictEqual(config.servers[" clangd "], server)
      assert.deepStrictEqual(StdioConfig.encode(config), { servers: { " clangd ": server }, ...top })
    }))

  it.effect("defaults quietMs inside an explicit readiness object and accepts 0", () =>
    Effect.gen(function*() {
      const empty = yield* StdioConfig.decode(withServer({ readiness: {} }))
      assert.deepStrictEqual(empty.servers.ts.readiness, {
        quietMs: 0,
        progress: true,
        maxWaitMs: 15_000,
        readyLog: null,
        readyNotification: null,
        openStartsProgress: false
      })
      const zero = yield* StdioConfig.decode(withServer({ readiness: { quietMs: 0 } }))
      assert.deepStrictEqual(zero.servers.ts.readiness, {
        quietMs: 0,
        progress: true,
        maxWaitMs: 15_000,
        readyLog: null,
        readyNotification: null,
        openStartsProgress: false
      })
    }))

  describe("rejects", () => {
    const timers = ["shutdownTimeoutMs", "killGraceMs", "idleTimeoutMs"] as const
    for (const field of timers) {
      for (const bad of [0, -1, 2_147_483_648, 1.5, Number.NaN, "5000", null]) {
        it.effect(`${field} = ${String(bad)}`, () =>
          assertInvalid(withServer({ [field]: bad }), "server \"ts\"", field))
      }
    }
    const caps = ["maxMessageBytes", "maxStderrBytes", "maxDocumentBytes"] as const
    for (const field of caps) {
      for (const bad of [0, -5, 2.5, Number.POSITIVE_INFINITY, "1"]) {
        it.effect(`${field} = ${String(bad)}`, () =>
          assertInvalid(withServer({ [field]: bad }), "server \"ts\"", field))
      }
    }
    for (const bad of [-1, 2_147_483_648, 0.5]) {
      it.effect(`readiness.quietMs = ${bad}`, () =>
        assertInvalid(withServer({ readiness: { quietMs: bad } }), "server \"ts\", field readiness.quietMs"))
    }

    it.effect("a missing servers field, a non-object and empty servers", () =>
      Effect.gen(function*() {
        yield* assertInvalid({}, "servers", "is missing")
        yield* assertInvalid("nope")
        yield* assertInvalid(null)
        yield* assertInvalid({ servers: {} }, "servers: must configure at least one server")
      }))

    it.effect("blank server ids (not trimmed: \" ts\" is fine)", () =>
      Effect.gen(function*() {
        yield* assertInvalid({ servers: { "": minimal } }, "server \"\"", "neither blank")
        yield* assertInvalid({ servers: { "  ": minimal } }, "server \"  \"", "neither blank")
        yield* assertInvalid({ servers: { "\t\n": minimal } }, "neither blank")
        const ok = yield* StdioConfig.decode({ servers: { " ts": minimal } })
        assert.deepStrictEqual(Object.keys(ok.servers), [" ts"])
      }))

    it.effect("a missing, blank or non-string command", () =>
      Effect.gen(function*() {
        yield* assertInvalid({ servers: { ts: { extensionToLanguage: { ts: "typescript" } } } }, "field command")
        yield* assertInvalid(withServer({ command: "" }), "field command", "blank")
        yield* assertInvalid(withServer({ command: "   " }), "field command", "blank")
        yield* assertInvalid(withServer({ command: 42 }), "field command")
        yield* assertInvalid(withServer({ command: "ts\0server" }), "field command", "NUL")
      }))

    it.effect("bad extension maps", () =>
      Effect.gen(function*() {
        yield* assertInvalid(withServer({ extensionToLanguage: {} }), "field extensionToLanguage", "at least one")
        yield* assertInvalid(
          withServer({ extensionToLanguage: { "d.ts": "typescript" } }),
          "extensionToLanguage[\"d.ts\"]"
        )
        yield* assertInvalid(withServer({ extensionToLanguage: { ".": "typescript" } }), "extensionToLanguage[\".\"]")
        yield* assertInvalid(withServer({ extensionToLanguage: { "a/b": "x" } }), "single extension")
        yield* assertInvalid(withServer({ projectMarkers: ["sub/tsconfig.json"] }), "projectMarkers", "plain file name")
        yield* assertInvalid(withServer({ projectMarkers: [".."] }), "projectMarkers", "plain file name")
        yield* assertInvalid(withServer({ extensionToLanguage: { "a\\b": "x" } }), "single extension")
        yield* assertInvalid(withServer({ extensionToLanguage: { "": "x" } }), "single extension")
        yield* assertInvalid(withServer({ extensionToLanguage: { ts: "" } }), "extensionToLanguage.ts", "blank")
        yield* assertInvalid(withServer({ extensionToLanguage: { ts: " " } }), "blank")
        yield* assertInvalid(withServer({ extensionToLanguage: { ts: 1 } }), "extensionToLanguage.ts")
        yield* assertInvalid(withServer({ extensionToLanguage: { ".ts": "typescript", TS: "typescript" } }), "both .ts")
        yield* assertInvalid(withServer({ extensionToLanguage: ["ts"] }), "extensionToLanguage")
      }))

    it.effect("an extension claimed by two servers", () =>
      assertInvalid(
        {
          servers: {
            a: { ...minimal, extensionToLanguage: { ts: "typescript" } },
            b: { ...minimal, extensionToLanguage: { ".TS": "x" } }
          }
        },
        "server \"b\", field extensionToLanguage[\".TS\"]",
        "already handled by server \"a\""
      ))

    it.effect("unknown fields at every level", () =>
      Effect.gen(function*() {
        yield* assertInvalid({ ...withServer({}), server: {} }, "server: is unexpected")
        yield* assertInvalid(withServer({ comand: "x" }), "server \"ts\", field comand", "is unexpected")
        yield* assertInvalid(withServer({ readiness: { quietMS: 5 } }), "field readiness.quietMS", "is unexpected")
      }))

    it.effect("unknown fields even through the bare Schema (the rule is part of the schema)", () =>
      Effect.sync(() => {
        const result = Schema.decodeUnknownEither(StdioConfig.StdioConfig)(withServer({ timeout: 1 }))
        assert.isTrue(Either.isLeft(result))
      }))

    it.effect("wrong types for args, env, documentSync and readiness", () =>
      Effect.gen(function*() {
        yield* assertInvalid(withServer({ args: "--stdio" }), "field args")
        yield* assertInvalid(withServer({ args: ["--stdio", 1] }), "field args[1]")
        yield* assertInvalid(withServer({ args: ["a\0b"] }), "field args[0]", "NUL")
        yield* assertInvalid(withServer({ env: { A: 1 } }), "field env.A")
        yield* assertInvalid(withServer({ env: ["A=1"] }), "field env")
        yield* assertInvalid(withServer({ env: { "A=B": "1" } }), "env[\"A=B\"]")
        yield* assertInvalid(withServer({ env: { "": "1" } }), "env[\"\"]")
        yield* assertInvalid(
          withServer({ documentSync: "kept" }),
          "server \"ts\", field documentSync: Expected \"transient\" or \"retained\", actual \"kept\""
        )
        yield* assertInvalid(withServer({ readiness: 5 }), "field readiness: Expected an object, actual 5")
        yield* assertInvalid({ servers: { ts: 5 } }, "server \"ts\": Expected an object, actual 5")
        yield* assertInvalid({ servers: [] }, "servers: Expected an object mapping server ids")
      }))

    it.effect("initializationOptions and configuration that are not JSON", () =>
      Effect.gen(function*() {
        yield* assertInvalid(
          withServer({ initializationOptions: { f: () => 1 } }),
          "field initializationOptions",
          "JSON"
        )
        yield* assertInvalid(withServer({ configuration: { n: Number.NaN } }), "field configuration", "JSON")
        yield* assertInvalid(withServer({ configuration: new Date(0) }), "field configuration")
        yield* assertInvalid(withServer({ configuration: undefined }), "field configuration")
      }))

    it.effect("\"__proto__\" as an id or key instead of silently losing it", () =>
      Effect.gen(function*() {
        yield* assertInvalid(JSON.parse(`{"servers":{"__proto__":${JSON.stringify(minimal)}}}`), "server \"__proto__\"")
        yield* assertInvalid(
          JSON.parse(`{"servers":{"ts":{"command":"x","extensionToLanguage":{"ts":"t","__proto__":"u"}}}}`),
          "extensionToLanguage.__proto__"
        )
        yield* assertInvalid(
          JSON.parse(`{"servers":{"ts":{"command":"x","extensionToLanguage":{"ts":"t"},"env":{"__proto__":"u"}}}}`),
          "env.__proto__"
        )
      }))

    it.effect("reports every problem at once with structured paths", () =>
      Effect.gen(function*() {
        const error = yield* assertInvalid(
          {
            servers: {
              a: { ...minimal, killGraceMs: 0 },
              b: { ...minimal, extensionToLanguage: { py: "python" }, args: 1 }
            }
          },
          "server \"a\", field killGraceMs",
          "server \"b\", field args"
        )
        assert.deepStrictEqual(error.detail?.serverIds, ["a", "b"])
        assert.deepStrictEqual(error.detail?.issues, [
          {
            path: ["servers", "a", "killGraceMs"],
            message: "Expected an integer from 1 to 2147483647 (milliseconds), actual 0"
          },
          { path: ["servers", "b", "args"], message: "Expected an array of strings, actual 1" }
        ])
      }))
  })

  describe("JSON text and Config", () => {
    const json = JSON.stringify({ servers: { ts: minimal } })

    it.effect("decodeJson parses and validates", () =>
      Effect.gen(function*() {
        const config = yield* StdioConfig.decodeJson(json)
        assert.strictEqual(config.servers.ts.maxDocumentBytes, 4_000_000)
        const broken = yield* Effect.flip(StdioConfig.decodeJson("{ servers: "))
        assert.strictEqual(broken.code, "LSP_INVALID_CONFIG")
        const invalid = yield* Effect.flip(StdioConfig.decodeJson(JSON.stringify(withServer({ killGraceMs: 0 }))))
        assert.include(invalid.message, "field killGraceMs")
      }))

    it.effect("load reads LSP_SEAM_CONFIG through ConfigProvider.fromMap", () =>
      Effect.gen(function*() {
        const config = yield* StdioConfig.load().pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["LSP_SEAM_CONFIG", json]])))
        )
        assert.strictEqual(config.servers.ts.command, "typescript-language-server")
        assert.deepStrictEqual(config.servers.ts.args, [])
      }))

    it.effect("load reads another variable through ConfigProvider.fromJson", () =>
      Effect.gen(function*() {
        const config = yield* StdioConfig.load("MY_LSP").pipe(
          Effect.withConfigProvider(ConfigProvider.fromJson({ MY_LSP: json }))
        )
        assert.strictEqual(config.servers.ts.killGraceMs, 2_000)
      }))

    it.effect("load maps a missing variable, bad JSON and invalid config to LSP_INVALID_CONFIG", () =>
      Effect.gen(function*() {
        const missing = yield* Effect.flip(
          StdioConfig.load().pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))
        )
        assert.strictEqual(missing.code, "LSP_INVALID_CONFIG")
        assert.include(missing.message, "LSP_SEAM_CONFIG is not set")
        const badJson = yield* Effect.flip(
          StdioConfig.load().pipe(
            Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["LSP_SEAM_CONFIG", "{"]])))
          )
        )
        assert.strictEqual(badJson.code, "LSP_INVALID_CONFIG")
        const invalid = yield* Effect.flip(
          StdioConfig.load().pipe(
            Effect.withConfigProvider(
              ConfigProvider.fromMap(
                new Map([["LSP_SEAM_CONFIG", JSON.stringify({ servers: { ts: { command: "x" } } })]])
              )
            )
          )
        )
        assert.strictEqual(invalid.code, "LSP_INVALID_CONFIG")
        assert.include(invalid.message, "server \"ts\", field extensionToLanguage")
      }))

    it.effect("config(name) is a Config that fails with the decode message", () =>
      Effect.gen(function*() {
        const provider = ConfigProvider.fromMap(
          new Map([["CFG", json], ["BAD", JSON.stringify(withServer({ args: 1 }))]])
        )
        const config = yield* Effect.withConfigProvider(StdioConfig.config("CFG"), provider)
        assert.strictEqual(config.servers.ts.maxStderrBytes, 1_000_000)
        const error = yield* Effect.flip(Effect.withConfigProvider(StdioConfig.config("BAD"), provider))
        assert.include(String(error), "server \"ts\", field args")
      }))
  })

  it("publishes a JSON Schema of the written form", () => {
    const schema = StdioConfig.jsonSchema
    const defs = schema.$defs
    assert.isDefined(defs)
    const server = defs!.ServerConfig
    assert.deepStrictEqual(JSON.parse(JSON.stringify(server)).required, ["command", "extensionToLanguage"])
    assert.strictEqual(JSON.parse(JSON.stringify(server)).additionalProperties, false)
    const root = JSON.parse(JSON.stringify(defs!.StdioConfig))
    assert.strictEqual(root.additionalProperties, false)
    assert.strictEqual(root.properties.servers.minProperties, 1)
    const props = JSON.parse(JSON.stringify(server)).properties
    assert.strictEqual(props.killGraceMs.allOf[0].maximum, 2_147_483_647)
    assert.deepStrictEqual(props.documentSync.enum, ["transient", "retained"])
    const defaults = Object.fromEntries(
      Object.entries(props).flatMap(([key, value]) =>
        typeof value === "object" && value !== null && "default" in value ? [[key, value.default]] : []
      )
    )
    assert.deepStrictEqual(defaults, {
      args: [],
      env: {},
      initializationOptions: null,
      configuration: null,
      maxMessageBytes: 16_000_000,
      maxStderrBytes: 1_000_000,
      maxDocumentBytes: 4_000_000,
      shutdownTimeoutMs: 5_000,
      killGraceMs: 2_000,
      documentSync: "retained",
      maxRetainedDocuments: 32,
      projectMarkers: [],
      rootMarkers: [],
      workspaceSymbols: true,
      workspaceErrors: [],
      afterInitialized: [],
      readiness: {
        quietMs: 0,
        progress: true,
        maxWaitMs: 15_000,
        readyLog: null,
        readyNotification: null,
        openStartsProgress: false
      },
      looseFiles: null,
      excludedFiles: null,
      projects: null,
      diagnosticsPull: null,
      diagnosticsWait: { quietMs: 200, maxWaitMs: 10_000 },
      idleTimeoutMs: 600_000,
      crashLoop: { maxCrashes: 5, windowMs: 180_000 }
    })
    assert.isString(props.maxDocumentBytes.description)
  })

  describe("maxMemory", () => {
    const decodeTop = (maxMemory: unknown) => StdioConfig.decode({ servers: { ts: minimal }, maxMemory })

    it.effect("accepts decimal and binary sizes, plain bytes and a share of the machine's memory", () =>
      Effect.gen(function*() {
        for (const written of ["512MB", "2GiB", "1.5 GB", "300mib", "25%", "100%", "0.5%", 1_048_576, 8e9]) {
          assert.strictEqual((yield* decodeTop(written)).maxMemory, written, `kept as written: ${written}`)
        }
      }))

    it("turns what was written into bytes on a machine of a given size", () => {
      const machine = 16 * 1024 ** 3
      const bytes = (written: string | number) =>
        Either.map(MemorySize.parse(written), (size) => MemorySize.toBytes(size, machine))
      assert.deepStrictEqual(bytes("512MB"), Either.right(512_000_000))
      assert.deepStrictEqual(bytes("2GiB"), Either.right(2 * 1024 ** 3))
      assert.deepStrictEqual(bytes("1.5 GB"), Either.right(1_500_000_000))
      assert.deepStrictEqual(bytes(" 300mib "), Either.right(300 * 1024 ** 2))
      assert.deepStrictEqual(bytes("25%"), Either.right(4 * 1024 ** 3))
      assert.deepStrictEqual(bytes(2_000_000), Either.right(2_000_000))
    })

    it.effect("refuses bad sizes with LSP_INVALID_CONFIG naming the field and the forms it takes", () =>
      Effect.gen(function*() {
        const refused = [
          ["512", "maxMemory"],
          ["512M", "\"512MB\""],
          ["2 gigabytes", "unknown unit"],
          ["0%", "more than 0%"],
          ["150%", "at most 100%"],
          ["-1GB", "maxMemory"],
          ["", "maxMemory"],
          [512, `at least ${MemorySize.MIN_BYTES}`],
          [1.5e6 + 0.5, "whole number"],
          ["100kB", "at least 1MiB"],
          [null, "maxMemory"],
          [true, "maxMemory"]
        ] as const
        for (const [written, fragment] of refused) {
          const error = yield* Effect.flip(decodeTop(written))
          assert.strictEqual(error.code, "LSP_INVALID_CONFIG", String(written))
          assert.include(error.message, "maxMemory", String(written))
          assert.include(error.message, fragment, String(written))
        }
      }))

    it("is described in the JSON Schema with its default", () => {
      const property = JSON.parse(JSON.stringify(StdioConfig.jsonSchema.$defs!.StdioConfig)).properties.maxMemory
      assert.strictEqual(property.default, "25%")
      assert.include(property.description, "least recently used idle")
      assert.deepStrictEqual(property.anyOf.map((member: { type: string }) => member.type), ["integer", "string"])
    })
  })
})
