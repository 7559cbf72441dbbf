/**
 * Every TypeScript example of the documentation, as a user would paste it: each ```ts block of README.md,
 * packages/*\/README.md and docs/*.md (see test/support/examples.ts for the markers that say what each one is)
 * is written into a fresh strict project that imports the built packages (the globalSetup builds them), compiled
 * with tsc, then the programs are run with Node in a copy of test/fixtures/examples-workspace and the tests with
 * vitest. A block without a marker fails, so a new example cannot be left unchecked.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { scopedTempDir } from "./support/cli.js"
import { documentation, type Example, fileName, parse } from "./support/examples.js"
import { root, run, tsc } from "./support/packed.js"

const workspaceFixture = NodePath.join(import.meta.dirname, "fixtures", "examples-workspace")

const read = (file: string) => parse(file, NodeFs.readFileSync(NodePath.join(root, file), "utf8"))

const all = () => {
  const parsed = documentation(root).map(read)
  return {
    examples: parsed.flatMap((file) => file.examples),
    problems: parsed.flatMap((file) => file.problems)
  }
}

// The settings a careful user compiles with.
const tsconfig = {
  compilerOptions: {
    strict: true,
    exactOptionalPropertyTypes: true,
    noImplicitOverride: true,
    noImplicitReturns: true,
    noFallthroughCasesInSwitch: true,
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2022"],
    types: ["node"],
    skipLibCheck: true,
    noEmitOnError: true,
    rootDir: "src",
    outDir: "dist"
  },
  include: ["src"]
}

describe("the documentation's examples are marked", () => {
  it("every TypeScript block of the READMEs and docs says whether it is run, tested or only compiled", () => {
    const { examples, problems } = all()
    assert.deepStrictEqual(problems, [])
    const treatments = new Set(examples.map((example) => example.treatment))
    assert.deepStrictEqual([...treatments].sort(), ["fragment", "run", "test"])
    assert.isTrue(
      examples.some((example) => example.file === "packages/lsp/README.md" && example.treatment === "test"),
      "the testing example of packages/lsp is run as a test"
    )
  })

  it("reads markers as documented: an unmarked block, an unknown marker, a stray output are problems", () => {
    const markdown = [
      "<!-- example: run -->",
      "",
      "```ts",
      "console.log(1)",
      "```",
      "<!-- example: output -->",
      "```text",
      "1",
      "```",
      "````text",
      "```ts",
      "not an example: inside a text block",
      "```",
      "````",
      "```typescript",
      "const unmarked = 1",
      "```",
      "<!-- example: maybe -->",
      "```ts",
      "```",
      "<!-- example: output -->",
      "```text",
      "```",
      "<!-- example: fragment -->",
      "```sh",
      "ls",
      "```",
      "<!-- example: fragment -->",
      "```ts",
      "```",
      "<!-- example: fragment: needs a model -->",
      "```ts",
      "```"
    ].join("\n")
    const { examples, problems } = parse("x.md", markdown)
    assert.deepStrictEqual(examples, [
      { file: "x.md", line: 3, treatment: "run", code: "console.log(1)\n", output: "1\n" },
      { file: "x.md", line: 32, treatment: "fragment", code: "\n", output: undefined }
    ])
    assert.strictEqual(problems.length, 5)
    assert.include(problems[0], "x.md:15: a TypeScript block needs")
    assert.include(problems[1], "x.md:19: unknown marker")
    assert.include(problems[2], "x.md:22: an output block must follow")
    assert.include(problems[3], "x.md:25: `example: fragment` marks a non-TypeScript block")
    assert.include(problems[4], "x.md:29: a fragment says why it is not run")
  })
})

const describeExample = (example: Example) => `${example.file}:${example.line}`

describe("the documentation's examples work", () => {
  it.scopedLive(
    "compile in a strict project against the built packages; the programs run and the tests pass",
    () =>
      Effect.gen(function*() {
        const { examples } = all()
        const dir = yield* scopedTempDir("examples")
        // The repository's node_modules: @lsp-seam/* are its packages (built), beside the effect they were built with.
        NodeFs.symlinkSync(NodePath.join(root, "node_modules"), NodePath.join(dir, "node_modules"), "dir")
        NodeFs.writeFileSync(
          NodePath.join(dir, "package.json"),
          JSON.stringify({ name: "examples", private: true, type: "module" })
        )
        NodeFs.writeFileSync(NodePath.join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2))
        NodeFs.mkdirSync(NodePath.join(dir, "src"))
        for (const example of examples) {
          NodeFs.writeFileSync(NodePath.join(dir, "src", fileName(example)), example.code)
        }
        yield* run(process.execPath, [tsc, "-p", NodePath.join(dir, "tsconfig.json")], dir)

        // Programs run where their paths (src/config.ts, src/main.ts) exist, with the project's bin on PATH as
        // `npx` would put it (a bare `typescript-language-server`). One at a time: side by side they and the tests
        // compete for the CPU with each other's language servers.
        const workspace = NodePath.join(dir, "workspace")
        NodeFs.cpSync(workspaceFixture, workspace, { recursive: true })
        const path = { PATH: `${NodePath.join(root, "node_modules", ".bin")}${NodePath.delimiter}${process.env.PATH}` }
        const program = (example: Example) =>
          run(
            process.execPath,
            [NodePath.join(dir, "dist", fileName(example).replace(/\.ts$/, ".js"))],
            workspace,
            path
          )
            .pipe(
              Effect.timeoutFail({
                duration: "90 seconds",
                onTimeout: () => new Error(`${describeExample(example)} did not end within 90 seconds`)
              }),
              Effect.tap((stdout) => {
                if (example.output !== undefined) {
                  assert.strictEqual(stdout, example.output, `${describeExample(example)} prints its output block`)
                }
              })
            )
        const tests = examples.filter((example) => example.treatment === "test")
        const vitest = NodePath.join(root, "node_modules", "vitest", "vitest.mjs")
        yield* Effect.forEach(examples.filter((example) => example.treatment === "run"), program)
        const report = yield* run(process.execPath, [vitest, "run", "--dir", "dist", "--reporter", "verbose"], dir)
        for (const example of tests) assert.include(report, fileName(example).replace(/\.ts$/, ".js"))
        assert.notInclude(report, "skipped")
      }),
    { timeout: 300_000 }
  )
})
