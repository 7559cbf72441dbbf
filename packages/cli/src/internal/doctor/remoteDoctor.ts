/**
 * `lsp-seam doctor --remote auto|PATH|URL`: what a running host says about itself (`Hello`) and its status
 * view, one line per language server it runs. `auto` only looks for the daemon of this configuration; it
 * never starts one.
 */
import { LspError } from "@lsp-seam/lsp"
import { LspRemoteClient, type LspRpc } from "@lsp-seam/lsp-remote"
import { type LspDaemon, LspRemoteConnection, type LspRemoteTarget } from "@lsp-seam/setup/remote"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as MemoryReport from "./memoryReport.js"

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`
const mib = (bytes: number | null) => bytes === null ? "rss ?" : `rss ${(bytes / 1024 / 1024).toFixed(1)} MiB`

/** The report's text. */
export const render = (
  address: string,
  hello: LspRpc.HelloResponse,
  servers: ReadonlyArray<LspRpc.ServerStatus> | string,
  memory?: LspRpc.MemoryStatus | string
): string => {
  const lines = [
    `lsp-seam host at ${address}`,
    `  pid ${hello.pid}, version ${hello.version}, fingerprint ${
      hello.fingerprint || "(none)"
    }, wire revision ${hello.protocolRevision}`,
    `  roots: ${hello.roots === undefined ? "every workspace (no --root)" : hello.roots.join(", ")}`
  ]
  if (typeof servers === "string") lines.push(`  status: ${servers}`)
  else if (servers.length === 0) lines.push("  no language server is running")
  else {
    for (const server of servers) {
      lines.push(
        `  ${server.providerId} ${server.workspace}: ${server.state}, pid ${server.pid ?? "-"}, up ${
          seconds(server.uptimeMs)
        }, ${server.queriesServed} queries${
          server.queued === undefined || server.queued === 0 ? "" : ` (${server.queued} waiting)`
        }, ${server.restarts} restarts, ${mib(server.rssBytes)}` +
          (server.lastError === null ? "" : `, last error: ${server.lastError}`)
      )
    }
  }
  if (typeof memory === "string") lines.push(`  memory: ${memory}`)
  else if (memory !== undefined) lines.push(...MemoryReport.render(memory, "  "))
  return `${lines.join("\n")}\n`
}

const report = (options: LspRemoteClient.ClientOptions) =>
  Effect.scoped(Effect.gen(function*() {
    const client = yield* LspRemoteClient.make(options)
    const hello = yield* client.hello
    const status = hello.statusAvailable
      ? yield* Effect.either(client.status)
      : Either.left(LspError.make("LSP_UNSUPPORTED_OPERATION", "the host has no status view"))
    // Hosts older than the memory budget have no `Memory`: ask only when `Hello` offers it.
    const memory = hello.memoryAvailable === true && client.memory !== undefined
      ? Either.getOrElse(yield* Effect.either(client.memory), (error) => error.message)
      : undefined
    return render(client.address, hello, Either.getOrElse(status, (error) => error.message), memory)
  }))

/** The report for `remote`; a host that cannot be reached (or no daemon, for `auto`) is an `LspError`. */
export const run = (
  remote: LspRemoteTarget.Remote,
  options: LspRemoteConnection.TokenOptions & { readonly source: LspDaemon.ConfigSource }
): Effect.Effect<string, LspError.LspError> =>
  Effect.gen(function*() {
    switch (remote._tag) {
      case "Socket":
        return yield* report({ transport: LspRemoteClient.socket(remote.path), expect: {} })
      case "WebSocket":
        return yield* report({
          transport: yield* LspRemoteConnection.webSocketTransport(remote.url, options),
          expect: {}
        })
      case "Auto": {
        const found = yield* LspRemoteConnection.findDaemon(options.source)
        if (Either.isLeft(found)) {
          if (found.left.error !== undefined) return yield* Effect.fail(found.left.error)
          return yield* LspError.remoteUnavailable(
            `No lsp-seam daemon runs for this configuration (nothing answers at ${found.left.path}); ` +
              "`lsp-seam query … --remote auto` starts one.",
            { address: found.left.path }
          )
        }
        return yield* report({
          transport: LspRemoteClient.socket(found.right.path),
          expect: { version: found.right.identity.version, fingerprint: found.right.identity.fingerprint }
        })
      }
    }
  })
