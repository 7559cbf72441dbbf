/**
 * The two kinds of compatibility suite, defined from a suite's expected answers: warm (one shared server)
 * and cold (a fresh server for every query).
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Context, type Duration, Effect, Layer, Schedule } from "effect"
import type * as StdioConfig from "../../src/StdioConfig.js"
import type { Suite } from "./servers.js"
import {
  ask,
  documentSync,
  hostLayer,
  installed,
  operations,
  type Query,
  readExpected,
  sameAnswer,
  workspace
} from "./support.js"

// The default mode (retained documents) stays out of the names.
const modeOf = (mode: StdioConfig.DocumentSync) => mode === "retained" ? "" : `, ${mode} documents`

const title = (q: Query) =>
  `${q.name}: ${q.operation} ${q.file}${
    "position" in q ? `:${q.position.line}:${q.position.character}` : "query" in q ? ` ${JSON.stringify(q.query)}` : ""
  }`

/** The canonical root of the suite's project, for the lifetime of a suite's shared host. */
export class Workspace extends Context.Tag("compat/Workspace")<Workspace, string>() {}

/**
 * Until the host waits for readiness (issue 7), a fresh server may answer too early; the shared host is only
 * handed to the tests once every query has given its warm answer (or `budget` has passed: then the tests
 * fail with whatever the server still says).
 */
const settle = (root: string, queries: ReadonlyArray<Query>, budget: Duration.DurationInput) =>
  Effect.forEach(
    queries,
    (q) =>
      ask(root, q).pipe(
        Effect.repeat({ until: (answer) => sameAnswer(answer, q.answer), schedule: Schedule.spaced("250 millis") })
      ),
    { discard: true }
  ).pipe(Effect.timeout(budget), Effect.ignore)

// CI installs every server (.ci/run); elsewhere a suite whose system executables are missing is skipped.
const skipReason = (suite: Suite): string | undefined =>
  process.env.CI === undefined && !installed(suite)
    ? `needs ${suite.requires.join(" and ")} on PATH (.ci/run installs them)`
    : undefined

/**
 * The warm suite: one host for all queries, each answer asserted exactly, and every operation asked at least
 * once (unsupported ones must fail with LSP_UNSUPPORTED_OPERATION, as recorded).
 */
export const warmSuite = (suite: Suite, mode: StdioConfig.DocumentSync = documentSync) => {
  const expected = readExpected(suite)
  const name = `${suite.name} compatibility (one warm server${modeOf(mode)})`
  const skipped = skipReason(suite)
  if (skipped !== undefined) {
    describe.skip(name, () => it.skip(skipped, () => {}))
    return
  }
  const Suite = Layer.effectDiscard(
    Effect.flatMap(Workspace, (root) => settle(root, expected.queries, "60 seconds"))
  ).pipe(Layer.provideMerge(Layer.merge(hostLayer(suite, mode), Layer.scoped(Workspace, workspace(suite)))))
  layer(Suite, { timeout: "180 seconds", excludeTestServices: true })(name, (it) => {
    it("asks every operation", () => {
      assert.deepStrictEqual(operations.filter((op) => !expected.queries.some((q) => q.operation === op)), [])
    })
    for (const q of expected.queries) {
      // With the test services excluded, it.effect runs on the live clock.
      it.effect(title(q), () =>
        Effect.gen(function*() {
          const answer = yield* ask(yield* Workspace, q)
          assert.deepStrictEqual(answer, q.answer)
        }), { timeout: 60_000 })
    }
  })
}

/**
 * The cold proof: for each query a fresh host and server, whose first answer must be the warm one (the host
 * waits for a fresh server to settle; the cases once measured to differ keep their `cold` entry in the
 * expected answers, for the report).
 */
export const coldSuite = (suite: Suite) => {
  const expected = readExpected(suite)
  const name = `${suite.name} compatibility (first answer of a fresh server${modeOf(documentSync)})`
  const skipped = skipReason(suite)
  if (skipped !== undefined) {
    describe.skip(name, () => it.skip(skipped, () => {}))
    return
  }
  describe(name, () => {
    for (const q of expected.queries) {
      it.live(title(q), () =>
        Effect.gen(function*() {
          const root = yield* workspace(suite)
          const answer = yield* ask(root, q).pipe(Effect.provide(hostLayer(suite)))
          assert.deepStrictEqual(answer, q.answer)
        }).pipe(Effect.scoped), { timeout: 60_000 })
    }
  })
}
