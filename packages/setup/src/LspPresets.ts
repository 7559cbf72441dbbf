/**
 * The language servers `lsp-seam` knows without a configuration file. Presets are composition only: each is
 * an ordinary stdio server configuration (`StdioConfig` format) plus a title and an install hint. A preset
 * is active when its command resolves to an executable; TypeScript/JavaScript is whenever
 * `typescript-language-server` and `typescript` are installed beside this package (its optional peers, so an
 * application's own TypeScript is the one used; `@lsp-seam/cli` depends on both). No preset reaches the
 * network: servers that could download schemas, modules or toolchains are configured not to.
 *
 * @since 0.1.0
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type { StdioConfig } from "@lsp-seam/lsp-stdio"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { createRequire } from "node:module"
import * as NodePath from "node:path"
import { findExecutable, isBareName, projectBins } from "./internal/executables.js"

/**
 * One server's configuration as written in `lsp-seam.json`.
 *
 * @since 0.1.0
 * @category models
 */
export type ServerInput = typeof StdioConfig.ServerConfig.Encoded

/**
 * @since 0.1.0
 * @category models
 */
export interface Preset {
  /** The provider id (the key under `servers`). */
  readonly id: string
  /** The languages it covers, for people. */
  readonly title: string
  /** What to install to make it active. */
  readonly install: string
  readonly server: ServerInput
  /**
   * The commands that run this server: file names, or path suffixes of a script (default: the file name of
   * `server.command`). A server in a configuration file whose command is one of them (or, for a command that is
   * Node, whose script is) gets this preset's settings for the fields it does not set (`LspConfigFile.load`).
   */
  readonly commands?: ReadonlyArray<string>
}

const require = createRequire(import.meta.url)

const resolveModule = (specifier: string): Option.Option<string> => {
  try {
    return Option.some(require.resolve(specifier))
  } catch {
    return Option.none()
  }
}

const typescriptServer = resolveModule("typescript-language-server/lib/cli.mjs")
const bundledTsserver = resolveModule("typescript/lib/tsserver.js")

/**
 * TypeScript and JavaScript through the `typescript-language-server` installed beside this package (an optional
 * peer), run by the same Node binary as `lsp-seam`. The workspace's own `typescript` wins; without one (a
 * directory with no node_modules) the `typescript` installed beside this package is used. Without the syntax server the first
 * answer of a cold server is already complete; automatic type acquisition (which downloads `@types`
 * packages) is off.
 *
 * @since 0.1.0
 * @category presets
 */
export const typescript: Preset = {
  id: "typescript",
  title: "TypeScript, JavaScript",
  install: "npm install typescript typescript-language-server (@lsp-seam/cli brings both)",
  // The preset runs the CLI with this Node; a configuration file names the executable, or the script.
  commands: ["typescript-language-server", "typescript-language-server/lib/cli.mjs"],
  server: {
    // Should the dependency be missing, a typescript-language-server on PATH is the next best thing.
    ...Option.match(typescriptServer, {
      onNone: () => ({ command: "typescript-language-server", args: ["--stdio"] }),
      onSome: (cli) => ({ command: process.execPath, args: [cli, "--stdio"] })
    }),
    extensionToLanguage: {
      ".ts": "typescript",
      ".tsx": "typescriptreact",
      ".mts": "typescript",
      ".cts": "typescript",
      ".js": "javascript",
      ".jsx": "javascriptreact",
      ".mjs": "javascript",
      ".cjs": "javascript"
    },
    initializationOptions: {
      tsserver: Option.match(bundledTsserver, {
        onNone: () => ({ useSyntaxServer: "never" }),
        onSome: (fallbackPath) => ({ useSyntaxServer: "never", fallbackPath })
      }),
      disableAutomaticTypingAcquisition: true,
      preferences: { includePackageJsonAutoImports: "off" }
    },
    // Without one, tsserver knows only the files it has open: references stay in the queried file. In a small
    // workspace the host opens the others instead (measured: 100 loose files cost a first query ~2 s more).
    projectMarkers: ["tsconfig.json", "jsconfig.json"],
    looseFiles: { maxFiles: 100, maxBytes: 2_000_000 },
    // tsserver finds each file's tsconfig itself, but searches only the projects it has loaded, and answers
    // implementations and callers from the queried file's project alone: the host loads and asks the others.
    projects: { maxProjects: 20, askEach: ["goToImplementation", "incomingCalls", "workspaceSymbol"] },
    // Its pushed sets carry no version and come in phases (syntax, semantic, suggestions), so no set can be told
    // to be for the current text: tsserver is asked for the file's diagnostics itself, and answers for the text
    // it holds. The quiet period is only the fallback for a server that does not offer the command.
    diagnosticsPull: "tsserver",
    diagnosticsWait: { quietMs: 1000, maxWaitMs: 10_000 }
  }
}

// Node servers that fetch over HTTP (schema stores, $schema URLs) go through request-light, which honours
// these variables: pointing them at a closed local port makes every such fetch fail at once.
const noHttp = {
  HTTP_PROXY: "http://127.0.0.1:9",
  HTTPS_PROXY: "http://127.0.0.1:9",
  http_proxy: "http://127.0.0.1:9",
  https_proxy: "http://127.0.0.1:9"
}

/**
 * Every preset, in the order `lsp-seam doctor` lists them. Extensions never overlap.
 *
 * @since 0.1.0
 * @category presets
 */
export const all: ReadonlyArray<Preset> = [
  typescript,
  {
    id: "python",
    title: "Python",
    install: "npm install -g pyright (provides pyright-langserver)",
    commands: ["pyright-langserver", "pyright/langserver.index.js"],
    server: {
      command: "pyright-langserver",
      args: ["--stdio"],
      extensionToLanguage: { ".py": "python", ".pyi": "python" },
      // A cold pyright answers references from the open file only until it has enumerated the workspace, which
      // it reports in its log ("Found N source files"); no quiet period is proof of that (seen: 4.7 s of silence
      // mid-startup on a loaded 2-core machine). After the message, a second of quiet for the analysis it starts.
      readiness: { quietMs: 1000, readyLog: "^(Found \\d+ source files?|No source files found)" },
      // A project nested in a repository keeps its settings (extraPaths, venv) in its own configuration.
      rootMarkers: [["pyproject.toml", "pyrightconfig.json", "setup.py", "setup.cfg"]],
      // An `include` of src/ leaves tests/ out of pyright's program: a cross-file question opens them itself, so
      // the uses in tests are found whether or not an earlier question opened a test file.
      excludedFiles: { reader: "pyright", maxFiles: 200, maxBytes: 4_000_000 }
    }
  },
  {
    id: "bash",
    title: "Bash, shell scripts",
    install: "npm install -g bash-language-server",
    server: {
      command: "bash-language-server",
      args: ["start"],
      extensionToLanguage: { ".sh": "shellscript", ".bash": "shellscript" },
      // Until its background analysis is done a cold server answers nothing, and it reports no progress; its
      // log says when the analysis ended (or was skipped, or stopped at its own limits).
      readiness: { quietMs: 0, readyLog: "BackgroundAnalysis: (Completed after|skipping|stopped|failed resolving)" }
    }
  },
  {
    id: "json",
    title: "JSON",
    install: "npm install -g vscode-langservers-extracted",
    server: {
      command: "vscode-json-language-server",
      args: ["--stdio"],
      extensionToLanguage: { ".json": "json", ".jsonc": "jsonc" },
      // Only file: schemas are loaded by the server itself; others would be asked of the client, which refuses.
      initializationOptions: { handledSchemaProtocols: ["file"], provideFormatter: false },
      env: noHttp,
      // No workspace/symbol (docs/compatibility.md): a search without a file does not start it.
      workspaceSymbols: false
    }
  },
  {
    id: "css",
    title: "CSS, SCSS, Less",
    install: "npm install -g vscode-langservers-extracted",
    server: {
      command: "vscode-css-language-server",
      args: ["--stdio"],
      extensionToLanguage: { ".css": "css", ".scss": "scss", ".less": "less" },
      env: noHttp,
      // Its validation reads its settings: answered null, it throws and every diagnostics pull comes back empty.
      configuration: {},
      workspaceSymbols: false
    }
  },
  {
    id: "html",
    title: "HTML",
    install: "npm install -g vscode-langservers-extracted",
    server: {
      command: "vscode-html-language-server",
      args: ["--stdio"],
      extensionToLanguage: { ".html": "html", ".htm": "html" },
      initializationOptions: { provideFormatter: false },
      env: noHttp,
      workspaceSymbols: false
    }
  },
  {
    id: "yaml",
    title: "YAML",
    install: "npm install -g yaml-language-server",
    server: {
      command: "yaml-language-server",
      args: ["--stdio"],
      extensionToLanguage: { ".yaml": "yaml", ".yml": "yaml" },
      // The answer to every workspace/configuration item; the "yaml" item turns the schema stores off.
      configuration: { schemaStore: { enable: false }, kubernetesCRDStore: { enable: false } },
      env: noHttp,
      // It applies its workspace/configuration answer after initialized; a client that asked for schema
      // selection is told when that is done, which is when its answers are final.
      afterInitialized: [{ method: "yaml/supportSchemaSelection" }],
      readiness: { quietMs: 0, readyNotification: "yaml/schema/store/initialized" },
      workspaceSymbols: false
    }
  },
  {
    id: "c-cpp",
    title: "C, C++",
    install: "apt-get install clangd",
    server: {
      command: "clangd",
      extensionToLanguage: {
        ".c": "c",
        ".h": "c",
        ".cc": "cpp",
        ".cpp": "cpp",
        ".cxx": "cpp",
        ".hh": "cpp",
        ".hpp": "cpp",
        ".hxx": "cpp"
      },
      // clangd starts its background index (reported as progress) only after the first didOpen, and with a
      // compilation database always reports it, even when the index is cached: a file the database governs is
      // not answered before that progress has begun and ended (silence is no proof: a loaded machine holds
      // clangd silent for seconds). Without a database there is no index, and nothing to wait for.
      readiness: { quietMs: 0, openStartsProgress: true },
      // Every open file keeps a preamble in clangd's memory (measured ~7 MiB for a file with three standard
      // headers; far more with large ones): keep fewer open than the default 32.
      maxRetainedDocuments: 8,
      // Without a compilation database clangd indexes opened files only: compile_flags.txt gives flags but no
      // file list, so it does not count (measured with clangd 14: references stayed in the open file).
      projectMarkers: ["compile_commands.json"],
      // Where the compilation database (or the flags) of a nested C/C++ project lives.
      rootMarkers: [["compile_commands.json", "compile_flags.txt", ".clangd"]]
    }
  },
  {
    id: "go",
    title: "Go",
    install: "go install golang.org/x/tools/gopls@latest",
    server: {
      command: "gopls",
      extensionToLanguage: { ".go": "go" },
      // Never download modules or toolchains.
      env: { GOPROXY: "off", GOTOOLCHAIN: "local" },
      projectMarkers: ["go.mod", "go.work"],
      // A go.work above covers its modules; without one, the module's own go.mod.
      rootMarkers: ["go.work", "go.mod"],
      // Without the module cache (or a vendor folder) gopls fails cross-file requests with go list's own words.
      // "No package metadata" also comes from a file outside every package (build tags): its hint says both.
      workspaceErrors: [{
        message: "modules? ha(s|ve) errors|missing go\\.sum entry|module lookup disabled|no required module " +
          "provides package",
        hint: "The Go module's dependencies are not downloaded: run `go mod download` in the module (or vendor " +
          "them with `go mod vendor`), then ask again. lsp-seam never lets gopls download them itself."
      }, {
        message: "no package metadata for file",
        hint: "gopls could not load the file's package: most often the module's dependencies are not downloaded " +
          "(run `go mod download` in the module, or `go mod vendor`, then ask again); otherwise the file belongs " +
          "to no package of the module (its build tags, or no go.mod above it)."
      }]
    }
  },
  {
    id: "rust",
    title: "Rust",
    install: "rustup component add rust-analyzer",
    server: {
      command: "rust-analyzer",
      extensionToLanguage: { ".rs": "rust" },
      // cargo metadata must not fetch the registry, and rustup must not install a pinned toolchain.
      env: { CARGO_NET_OFFLINE: "true", RUSTUP_AUTO_INSTALL: "0" },
      projectMarkers: ["Cargo.toml"],
      // The nearest crate: rust-analyzer finds the crate's workspace from there (cargo metadata).
      rootMarkers: ["Cargo.toml"]
    }
  }
]

/**
 * A preset and where its command resolved (`None`: not installed, so inactive).
 *
 * @since 0.1.0
 * @category models
 */
export interface Detection {
  readonly preset: Preset
  readonly executable: Option.Option<string>
}

/**
 * Looks up every preset's command: with a `workspace`, first in the `node_modules/.bin` of the workspace and of
 * its ancestors up to the top of its project (the nearest directory holding `.git`, `pnpm-workspace.yaml` or a
 * package.json with `workspaces`; without one, the workspace's own alone), then on `PATH` (from `environment`,
 * default `process.env`). A project's own server wins over one on `PATH`, as under `npm run` and `npx`, and is
 * found whether or not that folder is on `PATH`: the detection's preset then runs it by its absolute path.
 *
 * @since 0.1.0
 * @category detection
 */
export const detect = (
  environment: Readonly<Record<string, string | undefined>> = process.env,
  workspace?: string | undefined
): Effect.Effect<ReadonlyArray<Detection>, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const bins = workspace === undefined ? [] : yield* projectBins(workspace)
    return yield* Effect.forEach(all, (preset) =>
      Effect.map(findExecutable(preset.server.command, environment.PATH, bins), (executable) => {
        const inProject = Option.exists(
          executable,
          (file) =>
            isBareName(preset.server.command) && bins.some((bin) => file.startsWith(bin + NodePath.sep))
        )
        // The host looks bare names up on PATH only: a project's server goes to it by its path.
        return inProject && Option.isSome(executable)
          ? { preset: { ...preset, server: { ...preset.server, command: executable.value } }, executable }
          : { preset, executable }
      }))
  })

/**
 * The stdio configuration of the active presets.
 *
 * @since 0.1.0
 * @category detection
 */
export const toConfig = (detections: ReadonlyArray<Detection>): typeof StdioConfig.StdioConfig.Encoded => ({
  servers: Object.fromEntries(
    detections.filter((detection) => Option.isSome(detection.executable)).map((
      detection
    ) => [detection.preset.id, detection.preset.server])
  )
})
