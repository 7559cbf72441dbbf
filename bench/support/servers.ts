/**
 * The servers the full-stack benchmarks run (the fake server script, typescript-language-server and clangd), the
 * workspaces they run in (temporary copies, never the fixtures themselves), the query sequences, and the
 * host configuration for each.
 */
import * as Schema from "effect/Schema"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import type * as StdioConfig from "../../packages/lsp-stdio/src/StdioConfig.js"
import type { Query, ServerSpec } from "./rawClient.js"

const fixtures = fileURLToPath(new URL("../../packages/lsp-stdio/test/fixtures/", import.meta.url))

export const fakeServer: ServerSpec = {
  name: "fake",
  command: process.execPath,
  args: [Path.join(fixtures, "fake-server.mjs")],
  // Nothing recorded: recording appends to a file on every message and would dominate the figures.
  env: { FAKE_LSP: "{}" },
  extension: "fake",
  languageId: "fake",
  initializationOptions: null
}

export const typescriptServer: ServerSpec = {
  name: "typescript",
  command: process.execPath,
  args: [createRequire(import.meta.url).resolve("typescript-language-server/lib/cli.mjs"), "--stdio"],
  env: {},
  extension: "ts",
  languageId: "typescript",
  initializationOptions: {
    tsserver: { useSyntaxServer: "never" },
    disableAutomaticTypingAcquisition: true,
    preferences: { includePackageJsonAutoImports: "off" }
  }
}

/**
 * clangd from Debian, started as the CLI preset starts it (no arguments). Its host configuration takes the
 * preset's readiness too: `clangdHostOptions`.
 */
export const clangdServer: ServerSpec = {
  name: "clangd",
  command: "/usr/bin/clangd",
  args: [],
  env: {},
  extension: "cpp",
  languageId: "cpp",
  initializationOptions: null
}

/** The preset's readiness rule: clangd starts its background index only after the first didOpen. */
export const clangdHostOptions: Partial<StdioConfig.ServerConfig.Encoded> = { readiness: { quietMs: 500 } }

export const clangdInstalled = (): boolean => Fs.existsSync(clangdServer.command)

/**
 * The stdio host's configuration for one server, with the defaults of a real deployment except document
 * sync: transient, the message sequence the raw client sends (open, request, close), so that the two
 * contenders of a comparison exchange the same messages; `options` are further fields of the server's
 * configuration (e.g. `documentSync: "retained"`, the host's default, for the retained benchmark).
 */
export const hostConfig = (
  spec: ServerSpec,
  options: Partial<StdioConfig.ServerConfig.Encoded> = {}
): StdioConfig.StdioConfig.Encoded => ({
  servers: {
    [spec.name]: {
      command: spec.command,
      args: spec.args,
      env: spec.env,
      extensionToLanguage: { [spec.extension]: spec.languageId },
      initializationOptions: spec.initializationOptions,
      documentSync: "transient",
      ...options
    }
  }
})

/** The fake server answers every query by echoing its position; the four operations in turn. */
export const fakeQueries: ReadonlyArray<Query> = [
  { operation: "goToDefinition", file: "main.fake", position: { line: 1, character: 0 } },
  { operation: "findReferences", file: "main.fake", position: { line: 0, character: 4 } },
  { operation: "goToImplementation", file: "main.fake", position: { line: 1, character: 0 } },
  { operation: "hover", file: "main.fake", position: { line: 0, character: 4 } }
]

const Expected = Schema.Struct({
  queries: Schema.Array(Schema.Struct({
    operation: Schema.Literal("goToDefinition", "findReferences", "goToImplementation", "hover"),
    file: Schema.String,
    position: Schema.Struct({ line: Schema.Number, character: Schema.Number })
  }))
})

/** The queries whose answers the end-to-end test checks: every operation, aliases, non-BMP columns. */
export const typescriptQueries: ReadonlyArray<Query> = Schema.decodeUnknownSync(Expected)(
  JSON.parse(Fs.readFileSync(Path.join(fixtures, "ts-project.expected.json"), "utf8"))
).queries

const temporaryRoot = Fs.mkdtempSync(Path.join(Os.tmpdir(), "lsp-seam-bench-"))

/** Removes every workspace the bench created. */
export const removeWorkspaces = () => Fs.rmSync(temporaryRoot, { recursive: true, force: true })

let made = 0

/** A fresh workspace for the fake server: `main.fake`, plus any extra files. */
export const fakeWorkspace = (files: Record<string, string> = {}): string => {
  const root = Path.join(temporaryRoot, `fake-${made++}`)
  Fs.mkdirSync(root)
  for (const [name, text] of Object.entries({ "main.fake": "let x = 1\nx\n", ...files })) {
    Fs.writeFileSync(Path.join(root, name), text)
  }
  return Fs.realpathSync(root)
}

/** A fresh copy of the TypeScript fixture project, plus any extra files. */
export const typescriptWorkspace = (files: Record<string, string> = {}): string => {
  const root = Path.join(temporaryRoot, `ts-${made++}`)
  Fs.cpSync(Path.join(fixtures, "ts-project"), root, { recursive: true })
  for (const [name, text] of Object.entries(files)) Fs.writeFileSync(Path.join(root, name), text)
  return Fs.realpathSync(root)
}

/** The generated ~300-line C++ file of the clangd workspace (the fixture's `main.cpp` is the small one). */
export const clangdLargeFile = "engine.cpp"

/**
 * A deterministic C++ source of about 300 lines that includes standard headers (which is what makes
 * clangd's per-open preamble expensive): an interface with ten implementations, a chain of functions
 * calling each other, a class holding the parts, and uses of the fixture's `Circle`.
 */
const engineSource = (): string => {
  const lines: Array<string> = [
    "#include <algorithm>",
    "#include <map>",
    "#include <memory>",
    "#include <string>",
    "#include <vector>",
    "",
    "#include \"shape.h\"",
    "",
    "namespace engine {",
    "",
    "// A part of a machine.",
    "class Component {",
    " public:",
    "  virtual ~Component() = default;",
    "  virtual double weight() const = 0;",
    "  virtual std::string label() const = 0;",
    "};",
    ""
  ]
  for (let i = 0; i < 10; i++) {
    lines.push(
      `class Gear${i} : public Component {`,
      " public:",
      `  explicit Gear${i}(double scale) : scale_(scale) {}`,
      `  double weight() const override { return scale_ * ${i + 1}.5; }`,
      `  std::string label() const override { return "gear-${i}"; }`,
      `  double ratio(const Gear${i} &other) const { return weight() / (other.weight() + 1.0); }`,
      "",
      " private:",
      "  double scale_;",
      "};",
      ""
    )
  }
  lines.push(
    "double stage0(const std::vector<double> &values) {",
    "  double sum = 0;",
    "  for (double value : values) sum += value;",
    "  return sum;",
    "}",
    ""
  )
  for (let i = 1; i < 22; i++) {
    lines.push(
      `double stage${i}(const std::vector<double> &values) {`,
      `  std::vector<double> scaled(values.size());`,
      `  std::transform(values.begin(), values.end(), scaled.begin(), [](double v) { return v * ${i}.25; });`,
      `  return stage${i - 1}(scaled) + static_cast<double>(scaled.size());`,
      "}",
      ""
    )
  }
  lines.push(
    "// Holds the parts and caches their weights by label.",
    "class Machine {",
    " public:",
    "  void add(std::unique_ptr<Component> part) { parts_.push_back(std::move(part)); }",
    "",
    "  double total() {",
    "    double sum = 0;",
    "    for (const auto &part : parts_) {",
    "      auto found = cache_.find(part->label());",
    "      if (found == cache_.end()) found = cache_.emplace(part->label(), part->weight()).first;",
    "      sum += found->second;",
    "    }",
    "    return sum;",
    "  }",
    "",
    "  std::size_t size() const { return parts_.size(); }",
    "",
    " private:",
    "  std::vector<std::unique_ptr<Component>> parts_;",
    "  std::map<std::string, double> cache_;",
    "};",
    "",
    "double run_machine(int count) {",
    "  Machine machine;",
    "  for (int i = 0; i < count; ++i) {",
    "    machine.add(std::make_unique<Gear0>(i));",
    "    machine.add(std::make_unique<Gear3>(i * 2.0));",
    "    machine.add(std::make_unique<Gear7>(i * 3.0));",
    "  }",
    "  Gear3 left(1.0);",
    "  Gear3 right(2.0);",
    "  Circle wheel(0.5);",
    "  std::vector<double> values(static_cast<std::size_t>(count), left.ratio(right));",
    "  return machine.total() + stage21(values) + wheel.area() + static_cast<double>(machine.size());",
    "}",
    "",
    "}  // namespace engine",
    "",
    "int engine_main() { return static_cast<int>(engine::run_machine(3)); }"
  )
  return `${lines.join("\n")}\n`
}

/** The zero-based position of the `occurrence`-th `token` on the first line containing `context`. */
const locate = (text: string, context: string, token: string, occurrence = 0) => {
  const lines = text.split("\n")
  const line = lines.findIndex((l) => l.includes(context))
  if (line < 0) throw new Error(`no line contains ${JSON.stringify(context)}`)
  let character = -1
  for (let i = 0; i <= occurrence; i++) {
    character = lines[line]!.indexOf(token, character + 1)
    if (character < 0) throw new Error(`no ${JSON.stringify(token)} #${occurrence} in ${JSON.stringify(context)}`)
  }
  return { line, character }
}

const engineText = engineSource()
const smallText = Fs.readFileSync(Path.join(fixtures, "compat", "clangd", "main.cpp"), "utf8")

/** Queries on the generated 300-line file: every operation, some answered through the background index. */
export const clangdLargeQueries: ReadonlyArray<Query> = [
  {
    operation: "goToDefinition",
    file: clangdLargeFile,
    position: locate(engineText, "return stage12(scaled)", "stage12")
  },
  { operation: "findReferences", file: clangdLargeFile, position: locate(engineText, "class Gear3 ", "Gear3") },
  { operation: "hover", file: clangdLargeFile, position: locate(engineText, "return machine.total()", "total") },
  {
    operation: "goToImplementation",
    file: clangdLargeFile,
    position: locate(engineText, "virtual double weight()", "weight")
  },
  { operation: "findReferences", file: clangdLargeFile, position: locate(engineText, "Circle wheel", "Circle") }
]

/** Queries on the fixture's small `main.cpp` (16 lines). */
export const clangdSmallQueries: ReadonlyArray<Query> = [
  { operation: "goToDefinition", file: "main.cpp", position: locate(smallText, "Circle round(1);", "Circle") },
  { operation: "hover", file: "main.cpp", position: locate(smallText, "shapes[i]->area()", "area") },
  { operation: "findReferences", file: "main.cpp", position: locate(smallText, "double total_area", "total_area") },
  { operation: "goToDefinition", file: "main.cpp", position: locate(smallText, "Circle(3).area()", "area") }
]

/**
 * A fresh copy of the clangd fixture plus the generated `engine.cpp`, with every compile command's
 * directory made absolute (clangd 14 indexes nothing in the background with the committed relative ".").
 */
export const clangdWorkspace = (): string => {
  const root = Path.join(temporaryRoot, `clangd-${made++}`)
  Fs.cpSync(Path.join(fixtures, "compat", "clangd"), root, { recursive: true })
  Fs.writeFileSync(Path.join(root, clangdLargeFile), engineText)
  const real = Fs.realpathSync(root)
  const files = ["main.cpp", "circle.cpp", "square.cpp", clangdLargeFile]
  Fs.writeFileSync(
    Path.join(real, "compile_commands.json"),
    JSON.stringify(files.map((file) => ({
      directory: real,
      file,
      arguments: ["c++", "-std=c++17", "-c", file]
    })))
  )
  return real
}
