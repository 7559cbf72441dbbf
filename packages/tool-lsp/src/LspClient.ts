/**
 * A Promise facade over the `lsp` tool for code that does not use Effect. It owns a `ManagedRuntime` built
 * from the provider Layer you give it.
 *
 * ```ts
 * const client = LspClient.make(providerLayer, { workingDirectory: "/repo" })
 * const { text } = await client.query({ operation: "hover", file_path: "src/a.ts", line: 3, character: 7 })
 * await client.close()
 * ```
 *
 * `query` takes arguments typed by the tool's input (`LspToolInput.LspToolInputEncoded`), so a misspelt
 * operation fails to compile; `queryUnknown` takes arguments from elsewhere (a model, a request body) as
 * `unknown`. Both validate them and settle the same way.
 *
 * Settled promises:
 * - success → the `LspToolOutput`;
 * - any coded failure (invalid arguments, no workspace, timeout, provider errors, a Layer that fails to
 *   build) → rejects with the `LspError` itself (`error.code`, `error.message`);
 * - `signal` aborted → the query is interrupted (down to the provider) and the promise rejects with an
 *   `LspError` too: `LSP_ABORTED` for `controller.abort()`, `LSP_TIMEOUT` for `AbortSignal.timeout(ms)` (the
 *   platform's own reasons, `DOMException`s whose numeric `code` would be the only number among the codes);
 *   a reason the caller chose (`controller.abort(reason)`) is rejected as it is, as `fetch` does;
 * - `close()` → queries in flight are interrupted and reject with `LSP_DISPOSED`, as do later queries.
 *
 * @since 0.1.0
 */
import { LspError, type LspService } from "@lsp-seam/lsp"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as LspSession from "./LspSession.js"
import * as LspToolConfig from "./LspToolConfig.js"
import * as LspToolHandler from "./LspToolHandler.js"
import type { LspToolInputEncoded } from "./LspToolInput.js"
import type { LspToolOutput } from "./LspToolOutput.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface LspClientOptions {
  /** Default working directory (workspace root) of every query. */
  readonly workingDirectory?: string | undefined
  /** Tool configuration; defaults apply to missing keys. */
  readonly tool?: LspToolConfig.LspToolConfigInput | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface LspQueryOptions {
  /**
   * Aborting interrupts the query; the promise rejects with `LSP_ABORTED` (`LSP_TIMEOUT` for
   * `AbortSignal.timeout`), or with the reason given to `abort(reason)`.
   */
  readonly signal?: AbortSignal | undefined
  /** Overrides the client's working directory for this query. */
  readonly workingDirectory?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface LspClient {
  /** Runs one `lsp` call with arguments typed by the tool's input (one-based positions). */
  readonly query: (input: LspToolInputEncoded, options?: LspQueryOptions) => Promise<LspToolOutput>
  /** Runs one `lsp` call with untrusted arguments, exactly as a model would send them: validated first. */
  readonly queryUnknown: (args: unknown, options?: LspQueryOptions) => Promise<LspToolOutput>
  /** Interrupts queries in flight and releases the runtime (stopping providers). Idempotent. */
  readonly close: () => Promise<void>
}

const disposed = () => LspError.disposed("The lsp client has been closed.")

// What an aborted query rejects with: the platform's reasons become coded errors, a caller's own stays.
const abortFailure = (signal: AbortSignal): unknown => {
  const reason: unknown = signal.reason
  if (!(reason instanceof DOMException)) return reason
  if (reason.name === "AbortError") return LspError.aborted("The query was abandoned: its signal was aborted.")
  if (reason.name === "TimeoutError") {
    return LspError.timeout("The query's signal timed out (AbortSignal.timeout) before the answer came.")
  }
  return reason
}

/**
 * Makes a client. Throws `LSP_INVALID_CONFIG` at once when `options.tool` is invalid; the Layer is built on
 * the first query, and a Layer failure rejects that query.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  layer: Layer.Layer<LspService.LspService, LspError.LspError>,
  options?: LspClientOptions
): LspClient => {
  const config = Either.getOrThrowWith(LspToolConfig.decode(options?.tool), (error) => error)
  const runtime = ManagedRuntime.make(layer)
  const inFlight = new Set<Fiber.RuntimeFiber<LspToolOutput, LspError.LspError>>()
  let closing: Promise<void> | undefined

  const queryUnknown = (args: unknown, queryOptions?: LspQueryOptions): Promise<LspToolOutput> => {
    if (closing !== undefined) return Promise.reject(disposed())
    const signal = queryOptions?.signal
    if (signal?.aborted === true) return Promise.reject(abortFailure(signal))
    const session = LspSession.make(queryOptions?.workingDirectory ?? options?.workingDirectory)
    const program = LspToolHandler.runUnknown(args, config).pipe(Effect.provideService(LspSession.LspSession, session))
    return new Promise<LspToolOutput>((resolve, reject) => {
      const fiber = runtime.runFork(program)
      inFlight.add(fiber)
      const onAbort = () => fiber.unsafeInterruptAsFork(fiber.id())
      signal?.addEventListener("abort", onAbort, { once: true })
      fiber.addObserver((exit) => {
        inFlight.delete(fiber)
        signal?.removeEventListener("abort", onAbort)
        if (Exit.isSuccess(exit)) return resolve(exit.value)
        const failure = Cause.failureOption(exit.cause)
        if (Option.isSome(failure)) return reject(failure.value)
        if (Cause.isInterruptedOnly(exit.cause)) {
          return reject(signal?.aborted === true ? abortFailure(signal) : disposed())
        }
        reject(Cause.squash(exit.cause))
      })
    })
  }

  const close = (): Promise<void> => {
    if (closing === undefined) {
      const fibers = [...inFlight]
      closing = Effect.runPromise(Fiber.interruptAll(fibers)).then(() => runtime.dispose())
    }
    return closing
  }

  return { query: queryUnknown, queryUnknown, close }
}
