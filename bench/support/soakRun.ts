/**
 * The soak itself (run by bench/soakChild.ts in a process of its own): many queries through the whole stack
 * (`LspToolHandler.run` → `LspService` → stdio host) on 4 workspaces of the fault-injecting server
 * (support/faultServer.mjs), each query's fault drawn from a seeded PRNG, so a run is repeatable.
 */
import { NodeContext } from "@effect/platform-node"
import { LspError, LspService } from "@lsp-seam/lsp"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Supervisor from "effect/Supervisor"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as LspStdio from "../../packages/lsp-stdio/src/LspStdio.js"
import * as LspSession from "../../packages/tool-lsp/src/LspSession.js"
import * as LspToolConfig from "../../packages/tool-lsp/src/LspToolConfig.js"
import * as LspToolHandler from "../../packages/tool-lsp/src/LspToolHandler.js"
import { prng } from "./prng.js"
import * as Servers from "./servers.js"

export const faults = ["none", "crash", "hang", "garbage"] as const
export type Fault = typeof faults[number]

export const operations = ["goToDefinition", "findReferences", "goToImplementation", "hover"] as const

/** Each query's fault: `rate` of them are faulty, the three kinds equally likely. */
export const plan = (count: number, rate: number, seed: number): Array<Fault> => {
  const random = prng(seed)
  return Array.from({ length: count }, () => {
    if (random() >= rate) return "none"
    return faults[1 + Math.min(2, Math.floor(random() * 3))]!
  })
}

export interface SoakSettings {
  readonly budgetMs: number
  readonly killGraceMs: number
  readonly shutdownTimeoutMs: number
  readonly crashLoop: { readonly maxCrashes: number; readonly windowMs: number }
  readonly workspaces: number
  readonly faultRate: number
}

export const settings: SoakSettings = {
  budgetMs: 2_000,
  killGraceMs: 200,
  shutdownTimeoutMs: 500,
  crashLoop: { maxCrashes: 1_000, windowMs: 60_000 },
  workspaces: 4,
  faultRate: 0.05
}

const faultServerPath = fileURLToPath(new URL("./faultServer.mjs", import.meta.url))
const source = "let x = 1\nx\n"

export const hostConfig = (pidFile: string) => ({
  servers: {
    fault: {
      command: process.execPath,
      args: [faultServerPath],
      env: { FAULT_LSP: JSON.stringify({ pidFile }) },
      extensionToLanguage: { fake: "fake" },
      killGraceMs: settings.killGraceMs,
      shutdownTimeoutMs: settings.shutdownTimeoutMs,
      crashLoop: settings.crashLoop
    }
  }
})

export const makeWorkspaces = (count: number): Array<string> =>
  Array.from(
    { length: count },
    () => Servers.fakeWorkspace({ "crash.fake": source, "hang.fake": source, "garbage.fake": source })
  )

/** How one query ended: "answer", an error code, or "defect" / "interrupted" (never acceptable). */
export type Outcome = string

export interface QueryRecord {
  readonly fault: Fault
  readonly outcome: Outcome
  readonly ms: number
}

const toolConfig = Effect.runSync(LspToolConfig.make({ timeoutMs: settings.budgetMs }))

const fileOf = (fault: Fault) => fault === "none" ? "main.fake" : `${fault}.fake`

const query = (workspace: string, fault: Fault, index: number) =>
  Effect.suspend(() => {
    const start = performance.now()
    return LspToolHandler.run({
      operation: operations[index % operations.length],
      file_path: fileOf(fault),
      line: 1,
      character: 5
    }, toolConfig).pipe(
      Effect.provideService(LspSession.LspSession, LspSession.make(workspace)),
      Effect.exit,
      Effect.map((exit): QueryRecord => {
        const ms = performance.now() - start
        if (Exit.isSuccess(exit)) return { fault, outcome: "answer", ms }
        const failure = Cause.failureOption(exit.cause)
        if (Option.isSome(failure) && LspError.isLspError(failure.value)) {
          return { fault, outcome: failure.value.code, ms }
        }
        return { fault, outcome: Cause.isInterruptedOnly(exit.cause) ? "interrupted" : "defect", ms }
      })
    )
  })

/** Runs `faultsByQuery` spread round-robin over the workspaces, one sequential stream per workspace. */
export const runQueries = (workspaces: ReadonlyArray<string>, faultsByQuery: ReadonlyArray<Fault>, offset = 0) =>
  Effect.forEach(
    workspaces,
    (workspace, w) =>
      Effect.gen(function*() {
        const records: Array<QueryRecord> = []
        for (let i = w; i < faultsByQuery.length; i += workspaces.length) {
          records.push(yield* query(workspace, faultsByQuery[i]!, offset + i))
        }
        return records
      }),
    { concurrency: "unbounded" }
  ).pipe(Effect.map((perWorkspace) => perWorkspace.flat()))

/** The whole stack on the fault server: LspStdio + LspService on the Node platform. */
export const stack = (pidFile: string) =>
  LspStdio.layer(hostConfig(pidFile)).pipe(Layer.provideMerge(LspService.layer), Layer.provide(NodeContext.layer))

/**
 * Builds the stack in a scope, runs `body` with it, closes the scope; every fiber forked meanwhile (the
 * host's, the connections', the queries') is tracked by a `Supervisor.track` supervisor, whose live fibers
 * are returned after the scope has closed.
 */
export const withStack = async <A>(
  pidFile: string,
  body: (
    run: <B>(effect: Effect.Effect<B, never, LspService.LspService>) => Promise<B>,
    liveFibers: () => number
  ) => Promise<A>
): Promise<{ readonly value: A; readonly fibersLeft: number }> => {
  const supervisor = Effect.runSync(Supervisor.track)
  const liveFibers = () => Effect.runSync(supervisor.value).length
  const value = await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function*() {
        const context = yield* Layer.build(stack(pidFile))
        return yield* Effect.promise(() =>
          body(
            (effect) => Effect.runPromise(effect.pipe(Effect.provide(context), Effect.supervised(supervisor))),
            liveFibers
          )
        )
      })
    ).pipe(Effect.supervised(supervisor))
  )
  // Fibers end asynchronously after their interruption is acknowledged; give the last ones a moment.
  for (let i = 0; i < 50 && liveFibers() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  return { value, fibersLeft: liveFibers() }
}

export const countFds = (): number => Fs.readdirSync("/proc/self/fd").length

export const readPids = (pidFile: string): Array<number> => {
  try {
    return Fs.readFileSync(pidFile, "utf8").split("\n").filter((line) => line !== "").map(Number)
  } catch {
    return []
  }
}

export const pidFileIn = (directory: string) => Path.join(directory, "server-pids.txt")
