import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { canonicalJson } from "../src/internal/daemonIdentity.js"
import * as DaemonProgram from "../src/internal/daemonProgram.js"
import * as LspDaemon from "../src/LspDaemon.js"
import * as LspRemoteConnection from "../src/LspRemoteConnection.js"

const cli = fileURLToPath(new URL("../../cli/", import.meta.url))
const Manifest = Schema.Struct({ version: Schema.String, bin: Schema.Struct({ "lsp-seam": Schema.String }) })

describe("the daemon's fingerprint input", () => {
  it("canonical JSON: key order does not matter, undefined members are dropped", () => {
    assert.strictEqual(
      canonicalJson({ b: [1, { d: 1, c: 2 }], a: "x", u: undefined }),
      `{"a":"x","b":[1,{"c":2,"d":1}]}`
    )
    assert.strictEqual(canonicalJson({ a: 1, b: 2 }), canonicalJson({ b: 2, a: 1 }))
  })
})

describe("the daemon's program", () => {
  it("is the lsp-seam bin of the @lsp-seam/cli Node finds from here, and its version names the daemon", () =>
    Effect.gen(function*() {
      const manifest = Schema.decodeUnknownSync(Manifest)(
        JSON.parse(NodeFs.readFileSync(NodePath.join(cli, "package.json"), "utf8"))
      )
      const program = DaemonProgram.findSync()
      assert.deepStrictEqual(program, {
        bin: NodePath.join(NodeFs.realpathSync(cli), manifest.bin["lsp-seam"]),
        version: manifest.version
      })
      const identity = yield* LspRemoteConnection.identifyDaemon({ _tag: "Inline", config: { servers: {} } })
      assert.strictEqual(identity.version, manifest.version)
      assert.strictEqual(LspDaemon.socketName(identity), `daemon-${manifest.version}-${identity.fingerprint}.sock`)
      assert.deepStrictEqual(LspDaemon.identifySync({ _tag: "Inline", config: { servers: {} } }), identity)
    }).pipe(Effect.provide(NodeContext.layer), Effect.runPromise))
})
