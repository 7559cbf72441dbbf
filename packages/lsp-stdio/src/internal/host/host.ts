/**
 * The host: prepares the configured servers (executables resolved, environments built) and turns each
 * into a seam provider whose queries run through the query pipeline, all sharing one set of servers and
 * one set of per-server permits.
 */
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { type LspError, LspProvider } from "@lsp-seam/lsp"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { StdioConfig } from "../../StdioConfig.js"
import type { StdioStatusShape } from "../../StdioStatus.js"
import { Files, type FileServices } from "../files/fileAccess.js"
import { pathVariable, scrubEnvironment } from "../process/environment.js"
import { resolveExecutable } from "../process/executable.js"
import type { ProcessWorld } from "../process/processWorld.js"
import * as Permits from "../servers/permits.js"
import type * as ServerInstance from "../servers/serverInstance.js"
import * as Servers from "../servers/servers.js"
import * as QueryPipeline from "./queryPipeline.js"
import * as TestRunners from "./testRunners.js"

type Platform = FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor

/** Resolved, validated configuration: every server's executable found and environment built. */
export const prepare = (
  config: StdioConfig,
  ambient: Readonly<Record<string, string | undefined>>
): Effect.Effect<
  ReadonlyArray<ServerInstance.ServerSpec>,
  LspError.LspConfigurationError,
  FileSystem.FileSystem | Path.Path
> =>
  Effect.forEach(Object.entries(config.servers), ([providerId, server]) =>
    Effect.gen(function*() {
      const env = scrubEnvironment(ambient, server.env)
      const executable = yield* resolveExecutable(providerId, server.command, pathVariable(env))
      return { providerId, executable, env, config: server }
    }))

/**
 * Builds one provider per server spec, sharing the servers and the permits. Everything is owned by the
 * current scope.
 */
export const makeProviders = (
  specs: ReadonlyArray<ServerInstance.ServerSpec>,
  world: ProcessWorld,
  options: { readonly maxServers: number; readonly maxMemory: string | number }
): Effect.Effect<
  {
    readonly providers: ReadonlyArray<LspProvider.LspProvider<LspError.LspLocalError>>
    readonly host: StdioStatusShape
  },
  never,
  Scope.Scope | Platform
> =>
  Effect.gen(function*() {
    const owner = yield* Effect.scope
    // Only these three: the full context would also carry the Layer's Scope, and providing that to a server
    // start would attach the server's finalisers to the host instead of to the server's own scope.
    const picked = Context.pick(FileSystem.FileSystem, Path.Path, CommandExecutor.CommandExecutor)(
      yield* Effect.context<Platform>()
    )
    const files = world.files(Context.get(picked, FileSystem.FileSystem))
    const services: FileServices = { files, path: Context.get(picked, Path.Path) }
    const permits = Permits.make()
    const servers = yield* Servers.make(world, Context.add(picked, Files, files), {
      maxServers: options.maxServers,
      maxMemory: options.maxMemory,
      waiting: permits.waiting
    })
    const pipeline = QueryPipeline.make({ services, servers, permits, owner })
    const providers = specs.map((spec) =>
      LspProvider.make({
        id: spec.providerId,
        extensionToLanguage: spec.config.extensionToLanguage,
        query: (query) => pipeline.run(spec, query),
        testFiles: (workspaceRoot) => TestRunners.read(services, workspaceRoot)
      })
    )
    return { providers, host: { status: servers.status, memory: servers.memory } }
  })
