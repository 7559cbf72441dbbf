import { LspProvider, LspResult, LspService } from "@lsp-seam/lsp"
import type { LspError, LspQuery } from "@lsp-seam/lsp"
import { LspRemoteAuth, LspRemoteClient, LspRemoteServer } from "@lsp-seam/lsp-remote"
import { registerFakeProvider } from "@lsp-seam/lsp/testing"
import { Context, Effect, Either, Layer, Queue, Ref } from "effect"
import type { Scope } from "effect"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"

/** A private temporary directory (mode 0700 from mkdtemp), removed with the scope. */
export const tempDir: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "lsp-remote-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

const positionOf = (request: LspQuery.LspProviderQuery) =>
  "position" in request ? request.position : { line: 0, character: 0 }

export const locationsFor = (request: LspQuery.LspProviderQuery) => {
  const position = positionOf(request)
  return LspResult.locations([{
    uri: `file:///ws/${request.filePath ?? ""}`,
    range: { start: position, end: { line: position.line, character: position.character + 1 } }
  }], "file:///ws")
}

/** Answers position queries from the query itself, so a test can check what crossed the wire. */
export const echoScript = (request: LspQuery.LspProviderQuery) =>
  request.operation === "hover"
    ? {
      _tag: "Succeed" as const,
      result: LspResult.hover({ contents: `${request.languageId}:${request.filePath ?? ""}` })
    }
    : { _tag: "Succeed" as const, result: locationsFor(request) }

/** A provider whose `.hang` queries never answer: it reports each start and each interruption. */
export interface GatedProvider {
  readonly started: Queue.Queue<LspQuery.LspProviderQuery>
  readonly interrupted: Queue.Queue<LspQuery.LspProviderQuery>
  readonly served: Ref.Ref<number>
}

export const registerGatedProvider = (id: string, extension: string) =>
  Effect.gen(function*() {
    const started = yield* Queue.unbounded<LspQuery.LspProviderQuery>()
    const interrupted = yield* Queue.unbounded<LspQuery.LspProviderQuery>()
    const served = yield* Ref.make(0)
    yield* LspService.registerProvider(LspProvider.make({
      id,
      extensionToLanguage: { [extension]: id },
      query: (query) =>
        query.filePath?.startsWith("hang") === true
          ? Queue.offer(started, query).pipe(
            Effect.zipRight(Effect.never),
            Effect.onInterrupt(() => Queue.offer(interrupted, query))
          )
          : Effect.as(Ref.update(served, (n) => n + 1), locationsFor(query))
    }))
    const gated: GatedProvider = { started, interrupted, served }
    return gated
  })

/** A host: a fresh registry with a fake echo provider for `.ts` and a gated provider for `.hang`. */
export const makeHost = Effect.gen(function*() {
  const service = yield* LspService.make
  const context = Context.make(LspService.LspService, service)
  const fake = yield* registerFakeProvider({
    id: "typescript",
    extensionToLanguage: { ".ts": "typescript" },
    script: (query) => echoScript(query)
  }).pipe(Effect.provide(context))
  const gated = yield* registerGatedProvider("gated", ".hang").pipe(Effect.provide(context))
  return { service, context, fake, gated }
})

export const serveSocket = (
  context: Context.Context<LspService.LspService>,
  options: LspRemoteServer.SocketOptions
) => Layer.build(LspRemoteServer.layerSocket(options)).pipe(Effect.provide(context))

export const token = Either.getOrThrow(LspRemoteAuth.make("test-token-0123456789abcdef"))

export const serveHttp = (
  context: Context.Context<LspService.LspService>,
  options: Partial<LspRemoteServer.HttpOptions> = {}
) =>
  Effect.gen(function*() {
    const built = yield* Layer.build(LspRemoteServer.layerHttp({ port: 0, token, ...options })).pipe(
      Effect.provide(context)
    )
    const address = Context.get(built, LspRemoteServer.LspRemoteServer).address
    if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("expected a TCP address")
    return { port: address.port, url: `ws://127.0.0.1:${address.port}/lsp-seam` }
  })

/** A position query (the operations every seam version has). */
export const request = (
  filePath: string,
  operation: "goToDefinition" | "hover" = "goToDefinition"
): {
  readonly operation: "goToDefinition" | "hover"
  readonly filePath: string
  readonly position: { readonly line: number; readonly character: number }
  readonly workspaceRoot: string
} => ({
  operation,
  filePath,
  position: { line: 3, character: 7 },
  workspaceRoot: "/ws"
})

/** The code of a failed effect, or "success". */
export const codeOf = <A, R>(effect: Effect.Effect<A, LspError.LspError, R>) =>
  Effect.match(effect, { onFailure: (error) => error.code, onSuccess: () => "success" as const })

/** Opens a raw connection to a Unix socket and resolves once it is connected. */
export const rawConnect = (path: string): Effect.Effect<Net.Socket, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<Net.Socket>((resume) => {
      const socket = Net.createConnection({ path }, () => resume(Effect.succeed(socket)))
    }),
    (socket) => Effect.sync(() => socket.destroy())
  )

/** Resolves when the peer closes `socket`, with whatever it sent before. */
export const untilClosed = (socket: Net.Socket): Effect.Effect<string> =>
  Effect.async<string>((resume) => {
    let received = ""
    socket.on("data", (chunk) => {
      received += chunk.toString("utf8")
    })
    socket.on("error", () => {})
    socket.once("close", () => resume(Effect.succeed(received)))
  })

export const clientOf = (transport: LspRemoteClient.Transport, options: Partial<LspRemoteClient.ClientOptions> = {}) =>
  LspRemoteClient.make({ transport, ...options })

/** `server` listening on the Unix socket `path` for the rest of the scope. */
export const listening = (server: Net.Server, path: string): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<void>((resume) => {
      server.listen(path, () => resume(Effect.void))
    }),
    () =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
  )
