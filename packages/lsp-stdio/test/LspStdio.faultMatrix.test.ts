import { afterAll, assert, describe, it } from "@effect/vitest"
import type { LspError } from "@lsp-seam/lsp"
import { Effect } from "effect"
import {
  assertNothingSurvives,
  events,
  fakeConfig,
  makeRecordFile,
  makeWorkspace,
  query,
  withHost
} from "./support/fakeHost.js"

afterAll(assertNothingSurvives)

const operations = ["goToDefinition", "findReferences", "goToImplementation", "hover"] as const
const phases = ["beforeInitialize", "afterInitialize", "didOpen", "request", "afterReply", "didClose"] as const

const outcome = <A, R>(effect: Effect.Effect<A, LspError.LspError, R>) =>
  Effect.match(effect, { onFailure: (e) => e.code as string, onSuccess: () => "answer" })

// Codes a crash may legitimately surface as (the query may also simply be answered, by a retry).
const coded = new Set(["answer", "LSP_SERVER_EXITED", "LSP_TRANSPORT_FAILED"])

for (const documentSync of ["transient", "retained"] as const) {
  // A retained document is not closed between queries, so there is no didClose to crash on.
  const phasesOf = documentSync === "retained" ? phases.filter((phase) => phase !== "didClose") : phases
  describe(`fault matrix (${documentSync} documents): a server crashing once at each phase, for each operation`, () => {
    for (const operation of operations) {
      for (const phase of phasesOf) {
        it.scopedLive(`${operation}, crash ${phase}: a coded error or an answer, then a fresh server answers`, () =>
          Effect.gen(function*() {
            const record = yield* makeRecordFile
            const workspace = yield* makeWorkspace()
            const config = fakeConfig({
              recordFile: record,
              fake: { crash: phase, crashMarker: `${record}.crashed` },
              server: { documentSync }
            })
            const [first, second] = yield* withHost(
              config,
              Effect.all([outcome(query(workspace, operation)), outcome(query(workspace, operation))])
            )
            assert.isTrue(coded.has(first!), `first query: ${first}`)
            assert.strictEqual(second, "answer")
            assert.strictEqual(events(record, "crash").length, 1)
            assert.isAtLeast(events(record, "start").length, 2, "the crashed server was replaced")
          }))
      }
    }
  })
}
