/**
 * The RPC server on a socket server's connections: every connection guarded (`frameGuard.ts`) and bounded
 * (`boundedProtocol.ts`), the handlers answering; and how a listener's options and failures become coded errors.
 */
import * as SocketServer from "@effect/platform/SocketServer"
import type * as Rpc from "@effect/rpc/Rpc"
import type * as RpcGroup from "@effect/rpc/RpcGroup"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RpcServer from "@effect/rpc/RpcServer"
import { LspError } from "@lsp-seam/lsp"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { LspRpcs } from "../LspRpc.js"
import * as BoundedProtocol from "./boundedProtocol.js"
import { guardServer } from "./frameGuard.js"

/** `value` when it is an integer from 1 to 2^31 - 1, else `LSP_INVALID_CONFIG` naming the option. */
export const positive = (name: string, value: number): Effect.Effect<number, LspError.LspConfigurationError> =>
  Number.isSafeInteger(value) && value >= 1 && value <= 2_147_483_647
    ? Effect.succeed(value)
    : LspError.invalidConfig(`${name} must be an integer from 1 to 2147483647 (got ${value}).`)

/** A listener that could not listen on `what`: `LSP_CONFLICT` when the address is in use. */
export const listenError =
  (what: string) => (error: SocketServer.SocketServerError): LspError.LspConfigurationError => {
    const cause = error.cause
    const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : undefined
    const detail = { address: what, ...(code === undefined ? {} : { errno: code }) }
    return code === "EADDRINUSE"
      ? LspError.conflict(`Cannot listen on ${what}: the address is in use.`, detail)
      : LspError.invalidConfig(`Cannot listen on ${what}: ${String(cause)}.`, detail)
  }

/** Serves `handlers` on `server` until the scope closes; returns once it accepts connections. */
export const serve = <E, R>(
  server: SocketServer.SocketServer["Type"],
  handlers: Layer.Layer<Rpc.ToHandler<RpcGroup.Rpcs<typeof LspRpcs>>, E, R>,
  options: {
    readonly maxRequestBytes: number
    readonly frameTimeoutMs: number
    readonly bounds: BoundedProtocol.Bounds
  }
): Effect.Effect<void, E, R | Scope.Scope> =>
  Effect.gen(function*() {
    // The RPC protocol starts accepting in a forked fiber; wait until it does, so that a client connecting as
    // soon as the Layer is built is not left unanswered.
    const accepting = yield* Deferred.make<void>()
    const guarded = guardServer(server, options.maxRequestBytes, options.frameTimeoutMs)
    const signalling = SocketServer.SocketServer.of({
      address: guarded.address,
      run: (handler) => Effect.zipRight(Deferred.succeed(accepting, undefined), guarded.run(handler))
    })
    yield* Layer.build(
      // A defect in one handler fails that request only, not every call of the connection.
      RpcServer.layer(LspRpcs, { disableFatalDefects: true }).pipe(
        Layer.provide(handlers),
        Layer.provide(Layer.scoped(RpcServer.Protocol, BoundedProtocol.make(signalling, options.bounds))),
        Layer.provide(RpcSerialization.layerNdjsonWith({ maxBufferSize: options.maxRequestBytes }))
      )
    )
    yield* Deferred.await(accepting)
    yield* Effect.yieldNow()
  })
