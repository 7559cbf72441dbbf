/**
 * A Go module whose dependencies are not downloaded, with the real gopls of the Go preset: the server's own error
 * becomes LSP_WORKSPACE_NOT_READY, naming the fix. Nothing reaches the network: the preset's GOPROXY=off, and a
 * fresh, empty module cache.
 */
import { assert, describe, it } from "@effect/vitest"
import { LspError } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as LspPresets from "../src/LspPresets.js"
import * as LspSeam from "../src/LspSeam.js"
import { tempDir } from "./support.js"

const onPath = (command: string): boolean => NodeChildProcess.spawnSync("which", [command]).status === 0
const available = onPath("gopls") && onPath("go")

const goPreset = LspPresets.all.find((preset) => preset.id === "go")!

const moduleWithMissingDependency = (): { readonly dir: string; readonly cache: string } => {
  const dir = tempDir("go-missing")
  const cache = tempDir("go-cache")
  NodeFs.writeFileSync(
    NodePath.join(dir, "go.mod"),
    "module example.com/w\n\ngo 1.19\n\nrequire github.com/missing/dep v1.2.3\n"
  )
  NodeFs.writeFileSync(
    NodePath.join(dir, "main.go"),
    "package main\n\nimport \"github.com/missing/dep\"\n\nfunc Hello() string { return dep.Name() }\n\n" +
      "func main() { _ = Hello() }\n"
  )
  return { dir, cache }
}

describe("the Go preset's workspace errors", () => {
  const ruleFor = (message: string) =>
    (goPreset.server.workspaceErrors ?? []).find((rule) => new RegExp(rule.message).test(message))

  it("name the fix for go list's words, and both causes where gopls's words have two", () => {
    for (
      const message of [
        "1 modules have errors:\n\texample.com/w:github.com/missing/dep@v1.2.3: module lookup disabled by GOPROXY=off",
        "example.com/w:github.com/missing/dep@v1.2.3: missing go.sum entry; to add it:",
        "no required module provides package github.com/missing/dep"
      ]
    ) {
      assert.include(ruleFor(message)?.hint, "go mod download", message)
    }
    const metadata = ruleFor("no package metadata for file file:///w/main.go")?.hint
    assert.include(metadata, "go mod download")
    assert.include(metadata, "build tags")
    assert.isUndefined(ruleFor("no object found for ident Name"))
  })
})

describe.skipIf(!available)("the Go preset with a module whose dependencies are missing", () => {
  it.live("fails findReferences with LSP_WORKSPACE_NOT_READY naming go mod download", () =>
    Effect.promise(async () => {
      const { cache, dir } = moduleWithMissingDependency()
      const server = {
        ...goPreset.server,
        // The empty cache is the missing download; -mod=mod lets go list read a go.mod without a go.sum.
        env: { ...goPreset.server.env, GOMODCACHE: cache, GOFLAGS: "-mod=mod", GOPATH: NodePath.join(cache, "path") }
      }
      const client = LspSeam.makeClient({ workingDirectory: dir, config: { servers: { go: server } } })
      try {
        const error = await client.query({ operation: "findReferences", file_path: "main.go", line: 5, character: 6 })
          .then(() => undefined, (e: unknown) => e)
        assert.isTrue(LspError.isLspError(error), String(error))
        if (!LspError.isLspError(error)) return
        assert.strictEqual(error.code, "LSP_WORKSPACE_NOT_READY", error.message)
        assert.strictEqual(error._tag, "LspConfigurationError")
        assert.include(error.message, "go mod download")
        assert.include(error.message, "go mod vendor")
        // The server's own words stay: they name the module at fault.
        assert.include(error.message, "github.com/missing/dep")
      } finally {
        await client.close()
        NodeChildProcess.spawnSync("chmod", ["-R", "u+w", cache])
        NodeFs.rmSync(dir, { recursive: true, force: true })
        NodeFs.rmSync(cache, { recursive: true, force: true })
      }
    }), 60_000)
})
