import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileServices, layerLocal } from "../src/internal/files/fileAccess.js"
import * as TestRunners from "../src/internal/host/testRunners.js"

const directory = (files: Record<string, string>) => {
  const root = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "lsp-seam-runners-")))
  for (const [file, text] of Object.entries(files)) {
    NodeFs.mkdirSync(NodePath.dirname(NodePath.join(root, file)), { recursive: true })
    NodeFs.writeFileSync(NodePath.join(root, file), text)
  }
  return root
}

const testsOf = (files: Record<string, string>) =>
  Effect.flatMap(fileServices, (services) => TestRunners.read(services, directory(files))).pipe(
    Effect.provide(Layer.merge(layerLocal, NodeContext.layer))
  )

describe("the files a test runner's configuration names", () => {
  it("reads INI sections, continuation lines included", () => {
    const ini = TestRunners.parseIni("# c\n[pytest]\ntestpaths =\n    checks\n    more\npython_files: check_*.py\n")
    assert.strictEqual(ini.get("pytest")?.get("testpaths"), "checks more")
    assert.strictEqual(ini.get("pytest")?.get("python_files"), "check_*.py")
  })

  it("reads jest's plain globs, refuses extglobs", () => {
    const glob = TestRunners.pathGlob("**/specs/**/*.{js,ts}")!
    assert.isTrue(glob("specs/a.ts"))
    assert.isTrue(glob("pkg/specs/deep/b.js"))
    assert.isFalse(glob("pkg/spec/b.js"))
    assert.isTrue(TestRunners.pathGlob("<rootDir>/checks/*.js")!("checks/a.js"))
    assert.isUndefined(TestRunners.pathGlob("**/?(*.)+(spec|test).[jt]s?(x)"))
  })

  it.effect("pytest.ini: testpaths and python_files name files no convention does", () =>
    Effect.gen(function*() {
      const isTest = yield* testsOf({ "pytest.ini": "[pytest]\ntestpaths = checks\npython_files = check_*.py\n" })
      assert.isTrue(isTest("checks/helpers.py"))
      assert.isTrue(isTest("pkg/check_price.py"))
      assert.isFalse(isTest("pkg/price.py"))
      assert.isFalse(isTest("checks/data.json"))
    }))

  it.effect("pyproject.toml [tool.pytest.ini_options], when pytest.ini is absent", () =>
    Effect.gen(function*() {
      const isTest = yield* testsOf({
        "pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = [\"verify\"]\npython_files = [\"v_*.py\"]\n",
        "setup.cfg": "[tool:pytest]\ntestpaths = ignored\n"
      })
      assert.isTrue(isTest("verify/a.py"))
      assert.isTrue(isTest("src/v_a.py"))
      assert.isFalse(isTest("ignored/a.py"))
    }))

  it.effect("package.json's jest testRegex and testMatch", () =>
    Effect.gen(function*() {
      const isTest = yield* testsOf({
        "package.json": JSON.stringify({ jest: { testRegex: "/checks/.*\\.js$", testMatch: ["**/*.check.ts"] } })
      })
      assert.isTrue(isTest("src/checks/a.js"))
      assert.isTrue(isTest("src/a.check.ts"))
      assert.isFalse(isTest("src/a.ts"))
    }))

  it.effect("no configuration, or one that cannot be read, names nothing", () =>
    Effect.gen(function*() {
      assert.isFalse((yield* testsOf({}))("tests/test_a.py"))
      assert.isFalse((yield* testsOf({ "pytest.ini": "[pytest\n", "package.json": "{" }))("checks/a.py"))
    }))
})
