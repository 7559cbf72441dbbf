/**
 * `impact` with the real servers of the presets, asked from a repository's root as an agent asks: TypeScript
 * with a caller in another tsconfig project and a cycle, a symbol only tests use, Python (pyright), Go (gopls),
 * C (clangd), and a server without a call hierarchy (bash-language-server). Each right answer is known by
 * construction: the repositories are written here, small enough to read.
 */
import { assert, describe, it } from "@effect/vitest"
import type { LspResult } from "@lsp-seam/lsp"
import { LspService } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as LspSeam from "../src/LspSeam.js"
import { tempDir } from "./support.js"

const onPath = (command: string): boolean => NodeChildProcess.spawnSync("which", [command]).status === 0

const repository = (prefix: string, files: Readonly<Record<string, string>>): string => {
  const root = tempDir(prefix)
  for (const [file, text] of Object.entries(files)) {
    NodeFs.mkdirSync(NodePath.dirname(NodePath.join(root, file)), { recursive: true })
    NodeFs.writeFileSync(NodePath.join(root, file), text)
  }
  return root
}

/** The impact of the symbol on `line` (one-based) of `file`, named by `symbol`, through the presets' host. */
const impact = (root: string, file: string, line: number, symbol: string, depth = 2) =>
  Effect.gen(function*() {
    const answer = yield* LspService.query({
      operation: "impact",
      filePath: file,
      position: { line: line - 1, character: 0 },
      symbol,
      depth,
      workspaceRoot: root
    })
    assert.strictEqual(answer.kind, "impact")
    return answer.kind === "impact" ? answer : assert.fail("not an impact answer")
  }).pipe(Effect.provide(LspSeam.layer()), Effect.scoped)

/** `name@path` of a level's nodes, sorted; test code marked `[test]`. */
const level = (root: string, answer: LspResult.LspImpactResult, n: number): ReadonlyArray<string> =>
  answer.nodes.filter((node) => node.level === n).map((node) =>
    `${node.name}@${NodePath.relative(root, new URL(node.uri).pathname)}${node.test === true ? " [test]" : ""}`
  ).sort()

const tsconfig = (include: ReadonlyArray<string>) =>
  JSON.stringify({
    compilerOptions: { strict: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", types: [] },
    include
  })

const typescript = {
  "package.json": "{\"name\": \"shop\", \"private\": true}\n",
  "packages/core/tsconfig.json": tsconfig(["src", "test"]),
  "packages/core/src/price.ts": "export function total(items: ReadonlyArray<number>): number {\n" +
    "  return items.reduce((a, b) => a + b, 0)\n}\n\nexport function sample(): ReadonlyArray<number> {\n" +
    "  return [1, 2, 3]\n}\n",
  "packages/core/src/cart.ts": "import { total } from \"./price.js\"\n\nexport class Cart {\n" +
    "  items: Array<number> = []\n\n  sum(): number {\n    return total(this.items)\n  }\n}\n\n" +
    "export function ping(n: number): number {\n  return n <= 0 ? total([n]) : pong(n - 1)\n}\n\n" +
    "export function pong(n: number): number {\n  return ping(n - 1)\n}\n",
  "packages/core/test/price.test.ts": "import { sample, total } from \"../src/price.js\"\n\n" +
    "export function addsUp(): boolean {\n  return total(sample()) === 6\n}\n",
  "packages/app/tsconfig.json": tsconfig(["src"]),
  "packages/app/src/main.ts": "import { Cart } from \"../../core/src/cart.js\"\n\n" +
    "export function checkout(): number {\n  return new Cart().sum()\n}\n\n" +
    "export function run(): number {\n  return checkout()\n}\n"
}

describe("impact with real servers, from a repository's root", () => {
  it.live(
    "TypeScript: uses grouped, a caller in another project, a cycle that ends, tests apart",
    () =>
      Effect.gen(function*() {
        const root = repository("impact-ts", typescript)
        const answer = yield* impact(root, "packages/core/src/price.ts", 1, "total")
        assert.deepStrictEqual(answer.target?.name, "total")
        // Three calls, and two imports: a file's top level uses the name too.
        assert.strictEqual(answer.references, 5)
        assert.deepStrictEqual(level(root, answer, 0), [
          "addsUp@packages/core/test/price.test.ts [test]",
          "cart.ts@packages/core/src/cart.ts",
          "ping@packages/core/src/cart.ts",
          "price.test.ts@packages/core/test/price.test.ts [test]",
          "sum@packages/core/src/cart.ts"
        ])
        // sum's caller lives in the app project; ping's in its own file (pong, which ping calls back).
        assert.deepStrictEqual(level(root, answer, 1), [
          "checkout@packages/app/src/main.ts",
          "pong@packages/core/src/cart.ts"
        ])
        assert.deepStrictEqual(level(root, answer, 2), ["run@packages/app/src/main.ts"])
        const ping = answer.nodes.find((node) => node.name === "ping")!
        const pong = answer.nodes.find((node) => node.name === "pong")!
        assert.deepStrictEqual(ping.calls, [pong.id])
        assert.deepStrictEqual(answer.testFiles.map((uri) => NodePath.relative(root, new URL(uri).pathname)), [
          "packages/core/test/price.test.ts"
        ])
        assert.isUndefined(answer.incomplete, JSON.stringify(answer.incompleteReasons))
      }),
    180_000
  )

  it.live("TypeScript: a symbol only tests use is all tests, and nothing is followed", () =>
    Effect.gen(function*() {
      const root = repository("impact-ts-tests", typescript)
      const answer = yield* impact(root, "packages/core/src/price.ts", 5, "sample")
      assert.deepStrictEqual(level(root, answer, 0), [
        "addsUp@packages/core/test/price.test.ts [test]",
        "price.test.ts@packages/core/test/price.test.ts [test]"
      ])
      assert.deepStrictEqual(answer.levels.map((l) => l.level), [0])
      assert.strictEqual(answer.levels[0]!.tests, 2)
    }), 180_000)

  it.live(
    "Python (pyright): a method's use, its caller, a pytest test, and a test pytest.ini names",
    () =>
      Effect.gen(function*() {
        const root = repository("impact-py", {
          "pyproject.toml": "[project]\nname = \"shop\"\nversion = \"0.1.0\"\n",
          "shop/__init__.py": "",
          "shop/price.py": "def total(items: list[int]) -> int:\n    return sum(items)\n",
          "shop/cart.py": "from shop.price import total\n\n\nclass Cart:\n    def __init__(self) -> None:\n" +
            "        self.items: list[int] = []\n\n    def sum(self) -> int:\n        return total(self.items)\n\n\n" +
            "def checkout() -> int:\n    return Cart().sum()\n",
          "tests/test_price.py": "from shop.price import total\n\n\ndef test_total() -> None:\n" +
            "    assert total([1, 2]) == 3\n",
          // No convention calls this a test; the runner's configuration does.
          "pytest.ini": "[pytest]\npython_files = test_*.py check_*.py\n",
          "shop/check_price.py": "from shop.price import total\n\n\ndef check_total() -> None:\n" +
            "    assert total([]) == 0\n"
        })
        const answer = yield* impact(root, "shop/price.py", 1, "total")
        assert.deepStrictEqual(level(root, answer, 0), [
          "cart.py@shop/cart.py",
          "check_price.py@shop/check_price.py [test]",
          "check_total@shop/check_price.py [test]",
          "sum@shop/cart.py",
          "test_price.py@tests/test_price.py [test]",
          "test_total@tests/test_price.py [test]"
        ])
        assert.deepStrictEqual(level(root, answer, 1), ["checkout@shop/cart.py"])
        assert.isUndefined(answer.incomplete, JSON.stringify(answer.incompleteReasons))
      }),
    180_000
  )

  it.live.skipIf(!onPath("gopls") || !onPath("go"))(
    "Go (gopls): a method's use, its caller, a _test.go test",
    () =>
      Effect.gen(function*() {
        const root = repository("impact-go", {
          "go.mod": "module example.com/shop\n\ngo 1.19\n",
          "price/price.go": "package price\n\n// Total adds the items.\nfunc Total(items []int) int {\n" +
            "\tsum := 0\n\tfor _, item := range items {\n\t\tsum += item\n\t}\n\treturn sum\n}\n",
          "price/price_test.go": "package price\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n" +
            "\tif Total([]int{1, 2}) != 3 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n",
          "cart/cart.go":
            "package cart\n\nimport \"example.com/shop/price\"\n\ntype Cart struct {\n\tItems []int\n}\n\n" +
            "func (c Cart) Sum() int {\n\treturn price.Total(c.Items)\n}\n\nfunc Checkout() int {\n" +
            "\treturn Cart{}.Sum()\n}\n"
        })
        const answer = yield* impact(root, "price/price.go", 4, "Total")
        assert.deepStrictEqual(
          level(root, answer, 0).map((entry) => entry.replace(/^\(\*?Cart\)\./, "")),
          ["Sum@cart/cart.go", "TestTotal@price/price_test.go [test]"]
        )
        assert.deepStrictEqual(level(root, answer, 1), ["Checkout@cart/cart.go"])
        assert.isUndefined(answer.incomplete, JSON.stringify(answer.incompleteReasons))
      }),
    180_000
  )

  it.live.skipIf(!onPath("clangd"))(
    "C (clangd): a function's uses, its caller, a test file",
    () =>
      Effect.gen(function*() {
        const root = repository("impact-c", {
          "include/price.h": "#ifndef PRICE_H\n#define PRICE_H\nint total(const int *items, int n);\n#endif\n",
          "src/price.c": "#include \"price.h\"\n\nint total(const int *items, int n) {\n  int sum = 0;\n" +
            "  for (int i = 0; i < n; i++) sum += items[i];\n  return sum;\n}\n",
          "src/cart.c":
            "#include \"price.h\"\n\nint cart_sum(const int *items, int n) {\n  return total(items, n);\n}\n\n" +
            "int checkout(void) {\n  int items[] = {1, 2};\n  return cart_sum(items, 2);\n}\n",
          "tests/test_price.c": "#include \"price.h\"\n\nint test_total(void) {\n  int items[] = {1, 2};\n" +
            "  return total(items, 2) == 3;\n}\n"
        })
        NodeFs.writeFileSync(
          NodePath.join(root, "compile_commands.json"),
          JSON.stringify(["src/price.c", "src/cart.c", "tests/test_price.c"].map((file) => ({
            directory: root,
            file,
            arguments: ["cc", "-Iinclude", "-c", file]
          })))
        )
        const answer = yield* impact(root, "src/price.c", 3, "total")
        // The header's prototype and the definition declare it: neither is a use.
        assert.deepStrictEqual(level(root, answer, 0), ["cart_sum@src/cart.c", "test_total@tests/test_price.c [test]"])
        assert.strictEqual(answer.references, 2)
        assert.deepStrictEqual(level(root, answer, 1), ["checkout@src/cart.c"])
      }),
    180_000
  )

  it.live.skipIf(!onPath("bash"))(
    "a server without a call hierarchy (bash): uses grouped, callers said missing",
    () =>
      Effect.gen(function*() {
        const root = repository("impact-sh", {
          "lib.sh": "#!/usr/bin/env bash\ngreet() {\n  echo \"hello $1\"\n}\n",
          "main.sh": "#!/usr/bin/env bash\nsource ./lib.sh\n\nrun() {\n  greet world\n}\n\nrun\n"
        })
        const answer = yield* impact(root, "lib.sh", 2, "greet")
        assert.deepStrictEqual(level(root, answer, 0), ["run@main.sh"])
        assert.deepStrictEqual(answer.incompleteReasons?.map((r) => r.reason), ["no-call-hierarchy"])
      }),
    180_000
  )
})
