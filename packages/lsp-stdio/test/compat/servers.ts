/**
 * The compatibility matrix: each suite's servers, configured as the CLI presets configure them (the npm
 * servers run from this package's devDependencies through `node`, so PATH does not matter), and the fixture
 * project they are asked about.
 */
import * as NodeFs from "node:fs"
import { createRequire } from "node:module"
import * as NodePath from "node:path"
import type * as StdioConfig from "../../src/StdioConfig.js"

const require = createRequire(import.meta.url)

/** A server that runs a script of an npm devDependency with this Node. */
const node = (script: string, ...args: ReadonlyArray<string>) => ({
  command: process.execPath,
  args: [require.resolve(script), ...args]
})

// Node servers that fetch over HTTP (schema stores, $schema URLs) go through request-light, which honours
// these variables: a closed local port makes every such fetch fail at once instead of reaching the network.
const noHttp = {
  HTTP_PROXY: "http://127.0.0.1:9",
  HTTPS_PROXY: "http://127.0.0.1:9",
  http_proxy: "http://127.0.0.1:9",
  https_proxy: "http://127.0.0.1:9"
}

export interface Suite {
  /** Names the expected-answers file (`<name>.expected.json`) and the report row. */
  readonly name: string
  /** The project, relative to test/fixtures/. */
  readonly fixture: string
  /**
   * Run on a fresh copy of the fixture in a temporary directory, for servers that write into the project
   * (clangd keeps its background index in `.cache/` next to `compile_commands.json`).
   */
  readonly copyFixture: boolean
  /** Adjusts the fresh copy before any server sees it. */
  readonly prepare?: (root: string) => void
  readonly servers: Readonly<Record<string, StdioConfig.ServerConfig.Encoded>>
  /** Executables that must be installed for the suite to run (Debian packages; npm ones are dependencies). */
  readonly requires: ReadonlyArray<string>
  /** Where the servers come from: an npm devDependency of this package, or a Debian package. */
  readonly from: { readonly npm: string } | { readonly debian: string }
}

const typescriptServer = {
  ...node("typescript-language-server/lib/cli.mjs", "--stdio"),
  extensionToLanguage: { ".ts": "typescript" },
  initializationOptions: {
    tsserver: { useSyntaxServer: "never" },
    disableAutomaticTypingAcquisition: true,
    preferences: { includePackageJsonAutoImports: "off" }
  },
  projectMarkers: ["tsconfig.json", "jsconfig.json"],
  projects: {
    maxProjects: 20,
    askEach: ["goToImplementation" as const, "incomingCalls" as const, "workspaceSymbol" as const]
  }
}

export const typescript: Suite = {
  name: "typescript",
  fixture: "ts-project",
  copyFixture: false,
  servers: { typescript: typescriptServer },
  requires: [],
  from: { npm: "typescript-language-server" }
}

export const typescriptTwoProjects: Suite = {
  name: "typescript-two-projects",
  fixture: "compat/ts-two-projects",
  copyFixture: false,
  servers: { typescript: typescriptServer },
  requires: [],
  from: { npm: "typescript-language-server" }
}

export const pyright: Suite = {
  name: "pyright",
  fixture: "compat/pyright",
  copyFixture: false,
  servers: {
    python: {
      ...node("pyright/langserver.index.js", "--stdio"),
      extensionToLanguage: { ".py": "python" },
      // As the CLI preset: pyright reports the end of its workspace enumeration only in its log.
      readiness: { quietMs: 1000, readyLog: "^(Found \\d+ source files?|No source files found)" }
    }
  },
  requires: [],
  from: { npm: "pyright" }
}

export const bash: Suite = {
  name: "bash",
  fixture: "compat/bash",
  copyFixture: false,
  servers: {
    bash: {
      ...node("bash-language-server/out/cli.js", "start"),
      extensionToLanguage: { ".sh": "shellscript" },
      // As the CLI preset: bash-language-server reports no progress; its log says when its analysis ended.
      readiness: { quietMs: 0, readyLog: "BackgroundAnalysis: (Completed after|skipping|stopped|failed resolving)" }
    }
  },
  requires: [],
  from: { npm: "bash-language-server" }
}

export const vscodeLangservers: Suite = {
  name: "vscode-langservers",
  fixture: "compat/vscode-langservers",
  copyFixture: false,
  servers: {
    json: {
      ...node("vscode-langservers-extracted/bin/vscode-json-language-server", "--stdio"),
      extensionToLanguage: { ".json": "json" },
      // Only file: schemas are loaded by the server itself; others would be asked of the client, which refuses.
      initializationOptions: { handledSchemaProtocols: ["file"], provideFormatter: false },
      env: noHttp
    },
    css: {
      ...node("vscode-langservers-extracted/bin/vscode-css-language-server", "--stdio"),
      extensionToLanguage: { ".css": "css" },
      env: noHttp,
      // As the CLI preset: settings answered null make its validation throw.
      configuration: {}
    },
    html: {
      ...node("vscode-langservers-extracted/bin/vscode-html-language-server", "--stdio"),
      extensionToLanguage: { ".html": "html" },
      initializationOptions: { provideFormatter: false },
      env: noHttp
    }
  },
  requires: [],
  from: { npm: "vscode-langservers-extracted" }
}

export const yaml: Suite = {
  name: "yaml",
  fixture: "compat/yaml",
  copyFixture: false,
  servers: {
    yaml: {
      ...node("yaml-language-server/bin/yaml-language-server", "--stdio"),
      extensionToLanguage: { ".yaml": "yaml" },
      // The answer to every workspace/configuration item; the "yaml" item turns the schema stores off.
      configuration: { schemaStore: { enable: false }, kubernetesCRDStore: { enable: false } },
      env: noHttp,
      // As the CLI preset: ready when it says its configuration is applied (it says so to a client that asked).
      afterInitialized: [{ method: "yaml/supportSchemaSelection" }],
      readiness: { quietMs: 0, readyNotification: "yaml/schema/store/initialized" }
    }
  },
  requires: [],
  from: { npm: "yaml-language-server" }
}

export const dockerfile: Suite = {
  name: "dockerfile",
  fixture: "compat/dockerfile",
  copyFixture: false,
  servers: {
    dockerfile: {
      ...node("dockerfile-language-server-nodejs/bin/docker-langserver", "--stdio"),
      extensionToLanguage: { ".dockerfile": "dockerfile" }
    }
  },
  requires: [],
  from: { npm: "dockerfile-language-server-nodejs" }
}

export const clangd: Suite = {
  name: "clangd",
  fixture: "compat/clangd",
  copyFixture: true,
  // clangd 14 compiles an open file with a relative "directory" but never indexes the database in the background
  // (it enqueues nothing), so references from a header would stay limited to the open file: make it absolute.
  prepare: (root) => {
    const file = NodePath.join(root, "compile_commands.json")
    const commands = JSON.parse(NodeFs.readFileSync(file, "utf8")) as Array<Record<string, unknown>>
    NodeFs.writeFileSync(file, JSON.stringify(commands.map((command) => ({ ...command, directory: root }))))
  },
  servers: {
    // As the CLI preset: clangd starts its background index (with progress) only after the first didOpen.
    cpp: {
      command: "clangd",
      extensionToLanguage: { ".h": "cpp", ".cpp": "cpp" },
      readiness: { quietMs: 0, openStartsProgress: true },
      projectMarkers: ["compile_commands.json"]
    }
  },
  requires: ["clangd"],
  from: { debian: "clangd" }
}

export const gopls: Suite = {
  name: "gopls",
  fixture: "compat/gopls",
  copyFixture: false,
  servers: {
    // Never download modules or toolchains.
    go: {
      command: "gopls",
      extensionToLanguage: { ".go": "go" },
      env: { GOPROXY: "off", GOTOOLCHAIN: "local" },
      projectMarkers: ["go.mod", "go.work"]
    }
  },
  requires: ["gopls", "go"],
  from: { debian: "gopls" }
}

export const all: ReadonlyArray<Suite> = [
  typescript,
  typescriptTwoProjects,
  pyright,
  bash,
  vscodeLangservers,
  yaml,
  dockerfile,
  clangd,
  gopls
]
