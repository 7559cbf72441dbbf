import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { pathToFileURL } from "node:url"
import { fileServices, layerLocal } from "../src/internal/files/fileAccess.js"
import * as ConfiguredScope from "../src/internal/host/configuredScope.js"

describe("pyright's path patterns", () => {
  it("a pattern names a path and everything below it", () => {
    const src = ConfiguredScope.pathPattern("src")
    assert.isTrue(src("src/a.py"))
    assert.isTrue(src("src/pkg/b.py"))
    assert.isFalse(src("srcs/a.py"))
    assert.isFalse(src("tests/src/a.py"))
    assert.isTrue(ConfiguredScope.pathPattern("./src/")("src/a.py"))
  })

  it("** is any number of directories, * any characters of one name, ? one character", () => {
    const hidden = ConfiguredScope.pathPattern("**/.*")
    assert.isTrue(hidden(".venv/x.py"))
    assert.isTrue(hidden("a/b/.cache/x.py"))
    assert.isFalse(hidden("a/b/x.py"))
    const tests = ConfiguredScope.pathPattern("**/test_*.py")
    assert.isTrue(tests("test_a.py"))
    assert.isTrue(tests("pkg/tests/test_a.py"))
    assert.isFalse(tests("pkg/a_test.py"))
    assert.isTrue(ConfiguredScope.pathPattern("pkg?/x.py")("pkg1/x.py"))
    assert.isFalse(ConfiguredScope.pathPattern("pkg?/x.py")("pkg12/x.py"))
    assert.isTrue(ConfiguredScope.pathPattern("src/**")("src/a/b.py"))
    assert.isTrue(ConfiguredScope.pathPattern("a+b")("a+b/c.py"))
    assert.isFalse(ConfiguredScope.pathPattern("a+b")("aab/c.py"))
  })
})

const directory = (files: Record<string, string>) => {
  const root = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "lsp-seam-pyconf-")))
  for (const [file, text] of Object.entries(files)) {
    NodeFs.mkdirSync(NodePath.dirname(NodePath.join(root, file)), { recursive: true })
    NodeFs.writeFileSync(NodePath.join(root, file), text)
  }
  return { path: root, uri: pathToFileURL(root).href }
}

const services = Layer.merge(layerLocal, NodeContext.layer)

const read = (root: { path: string; uri: string }) =>
  Effect.flatMap(fileServices, (services) => ConfiguredScope.read(services, root, "pyright")).pipe(
    Effect.provide(services)
  )

describe("pyright's configuration", () => {
  it.effect("pyproject.toml's [tool.pyright] include and exclude", () =>
    Effect.gen(function*() {
      const scope = yield* read(directory({
        "pyproject.toml": "[tool.pyright]\ninclude = [\n  \"src\",\n  \"scripts\",\n]\nexclude = [\"src/generated\"]\n"
      }))
      assert.strictEqual(scope.source, "pyproject.toml [tool.pyright]")
      assert.strictEqual(scope.verdict("src/a.py"), "included")
      assert.strictEqual(scope.verdict("scripts/run.py"), "included")
      assert.strictEqual(scope.verdict("tests/test_a.py"), "not-included")
      assert.strictEqual(scope.verdict("src/generated/g.py"), "excluded")
      // An exclude that is given replaces pyright's defaults.
      assert.strictEqual(scope.verdict("src/.hidden/a.py"), "included")
    }))

  it.effect("pyrightconfig.json (with comments) wins over pyproject.toml; defaults exclude hidden directories", () =>
    Effect.gen(function*() {
      const root = directory({
        "pyrightconfig.json": "{\n  // only the package\n  \"include\": [\"pkg\"],\n}\n",
        "pyproject.toml": "[tool.pyright]\ninclude = [\"other\"]\n"
      })
      const scope = yield* read(root)
      assert.strictEqual(scope.source, "pyrightconfig.json")
      assert.strictEqual(scope.verdict("pkg/a.py"), "included")
      assert.strictEqual(scope.verdict("other/a.py"), "not-included")
      assert.strictEqual(scope.verdict("pkg/.cache/a.py"), "excluded")
      assert.strictEqual(scope.verdict("pkg/__pycache__/a.py"), "excluded")
    }))

  it.effect("no configuration: everything under the root but pyright's default excludes; environments are no source", () =>
    Effect.gen(function*() {
      const root = directory({ "pyproject.toml": "[project]\nname = \"x\"\n", "env/pyvenv.cfg": "home = /usr\n" })
      const scope = yield* read(root)
      assert.strictEqual(scope.source, "pyright's defaults")
      assert.strictEqual(scope.verdict("tests/a.py"), "included")
      assert.strictEqual(scope.verdict("node_modules/x/a.py"), "excluded")
      const files = yield* fileServices.pipe(Effect.provide(services))
      assert.isTrue(yield* ConfiguredScope.inEnvironment(files, scope, "env/lib/site.py"))
      assert.isFalse(yield* ConfiguredScope.inEnvironment(files, scope, "tests/a.py"))
    }))

  it.effect("a pyproject.toml that is not TOML reads as pyright's defaults", () =>
    Effect.gen(function*() {
      const scope = yield* read(directory({ "pyproject.toml": "[tool.pyright\ninclude = \n" }))
      assert.strictEqual(scope.source, "pyright's defaults")
      assert.strictEqual(scope.verdict("anything/a.py"), "included")
    }))
})
