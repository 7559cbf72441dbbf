/**
 * A host with real typescript-language-server configured as the TypeScript preset configures it (no syntax
 * server, no type acquisition, projects by tsconfig.json, loose files opened), with `maxProjects` of the test's.
 */
import { NodeContext } from "@effect/platform-node"
import { LspService } from "@lsp-seam/lsp"
import { Layer } from "effect"
import { createRequire } from "node:module"
import * as LspStdio from "../../src/LspStdio.js"

const server = createRequire(import.meta.url).resolve("typescript-language-server/lib/cli.mjs")

export const layer = (maxProjects: number) =>
  LspStdio.layer({
    servers: {
      typescript: {
        command: process.execPath,
        args: [server, "--stdio"],
        extensionToLanguage: { ".ts": "typescript" },
        initializationOptions: { tsserver: { useSyntaxServer: "never" }, disableAutomaticTypingAcquisition: true },
        projectMarkers: ["tsconfig.json", "jsconfig.json"],
        looseFiles: { maxFiles: 100, maxBytes: 2_000_000 },
        projects: { maxProjects, askEach: ["goToImplementation", "incomingCalls", "workspaceSymbol"] }
      }
    }
  }).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer))
