/**
 * Starts each configured server once, in a scope of its own, and reports what it can do. Used by
 * `lsp-seam doctor`; never pools anything.
 */
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type { LspError, LspQuery } from "@lsp-seam/lsp"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { StdioConfig } from "../../StdioConfig.js"
import { Files } from "../files/fileAccess.js"
import { resolveWorkspace } from "../files/workspace.js"
import { pathVariable, scrubEnvironment } from "../process/environment.js"
import { resolveExecutable } from "../process/executable.js"
import type { ProcessWorld } from "../process/processWorld.js"
import { advertised, capabilityOf, opensTransiently } from "../wire/capabilities.js"
import * as ServerInstance from "./serverInstance.js"

export interface ServerDiagnosis {
  readonly providerId: string
  readonly command: string
  readonly extensions: ReadonlyArray<string>
  /** The resolved executable, when it was found. */
  readonly executable: string | null
  /** Whether queries can work: it started, speaks UTF-16 and can open documents on request. */
  readonly usable: boolean
  readonly error: { readonly code: LspError.LspErrorCode; readonly message: string } | null
  /** Spawn to the end of the handshake, in milliseconds. */
  readonly startMs: number | null
  readonly serverInfo: { readonly name: string; readonly version?: string | undefined } | null
  readonly positionEncoding: string | null
  readonly textDocumentSync: unknown
  readonly transientOpen: boolean
  readonly operations: Readonly<Record<LspQuery.LspProviderOperation, boolean>>
  /** How diagnostics are had: `pull` when it offers them on request, else `push`; null when it did not start. */
  readonly diagnosticsMode: "pull" | "push" | null
}

const supported = (
  advertisedBy: (operation: LspQuery.LspProviderOperation) => boolean
): Readonly<Record<LspQuery.LspProviderOperation, boolean>> => ({
  goToDefinition: advertisedBy("goToDefinition"),
  findReferences: advertisedBy("findReferences"),
  goToImplementation: advertisedBy("goToImplementation"),
  hover: advertisedBy("hover"),
  goToTypeDefinition: advertisedBy("goToTypeDefinition"),
  incomingCalls: advertisedBy("incomingCalls"),
  outgoingCalls: advertisedBy("outgoingCalls"),
  documentSymbol: advertisedBy("documentSymbol"),
  workspaceSymbol: advertisedBy("workspaceSymbol"),
  diagnostics: advertisedBy("diagnostics"),
  renamePreview: advertisedBy("renamePreview")
})

const noOperations = supported(() => false)

export const diagnose = (
  config: StdioConfig,
  workspaceRoot: string,
  world: ProcessWorld,
  ambient: Readonly<Record<string, string | undefined>>
): Effect.Effect<
  ReadonlyArray<ServerDiagnosis>,
  LspError.LspConfigurationError | LspError.LspSourceError,
  FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor
> =>
  Effect.gen(function*() {
    const files = world.files(yield* FileSystem.FileSystem)
    const workspace = yield* Effect.provideService(resolveWorkspace(workspaceRoot), Files, files)
    return yield* Effect.forEach(Object.entries(config.servers), ([providerId, server]) => {
      const base = {
        providerId,
        command: server.command,
        extensions: Object.keys(server.extensionToLanguage),
        executable: null,
        usable: false,
        error: null,
        startMs: null,
        serverInfo: null,
        positionEncoding: null,
        textDocumentSync: null,
        transientOpen: false,
        operations: noOperations,
        diagnosticsMode: null
      } satisfies ServerDiagnosis
      const env = scrubEnvironment(ambient, server.env)
      return Effect.gen(function*() {
        const executable = yield* resolveExecutable(providerId, server.command, pathVariable(env))
        const started = yield* Clock.currentTimeMillis
        const instance = yield* ServerInstance.start({ providerId, executable, env, config: server }, workspace, world)
        const startMs = (yield* Clock.currentTimeMillis) - started
        const capabilities = instance.capabilities
        const transientOpen = opensTransiently(capabilities.textDocumentSync)
        // Diagnostics need no capability: a server that does not offer them on request may still push them.
        const operations = supported((operation) =>
          operation === "diagnostics" || advertised(capabilities[capabilityOf(operation)])
        )
        return {
          ...base,
          executable,
          // Usable for queries: some operation beyond the diagnostics every server may push.
          usable: transientOpen &&
            Object.entries(operations).some(([operation, ok]) => ok && operation !== "diagnostics"),
          startMs,
          serverInfo: Option.getOrNull(instance.serverInfo),
          positionEncoding: typeof capabilities.positionEncoding === "string"
            ? capabilities.positionEncoding
            : "utf-16",
          textDocumentSync: capabilities.textDocumentSync ?? null,
          transientOpen,
          operations,
          diagnosticsMode: advertised(capabilities.diagnosticProvider) ? "pull" : "push"
        } satisfies ServerDiagnosis
      }).pipe(
        Effect.scoped,
        Effect.catchAll((error) =>
          // Report the executable even when the server failed after it was found.
          Effect.map(
            Effect.option(resolveExecutable(providerId, server.command, pathVariable(env))),
            (executable): ServerDiagnosis => ({
              ...base,
              executable: Option.getOrNull(executable),
              error: { code: error.code, message: error.message }
            })
          )
        )
      )
    })
  })
