/**
 * Both document sync modes on real servers, in every run whatever LSP_SEAM_COMPAT_DOCUMENT_SYNC selects (by
 * default the suites run with retained documents, the library's default): the warm queries of the two fastest
 * suites with transient open, and edits on disk between queries that retained answers must follow.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as Servers from "./servers.js"
import { warmSuite } from "./suites.js"
import { type Answer, ask, hostLayer, type Query, readExpected, workspace } from "./support.js"

warmSuite(Servers.typescript, "transient")
warmSuite(Servers.pyright, "transient")

/** The answer with every location in `file` moved down by `lines`. */
const shifted = (answer: Answer, file: string, lines: number): Answer =>
  "locations" in answer
    ? {
      locations: answer.locations.map(([path, line, character]): readonly [string, number, number] => [
        path,
        path === file ? line + lines : line,
        character
      ])
    }
    : answer

const queryNamed = (queries: ReadonlyArray<Query>, name: string): Query => {
  const query = queries.find((q) => q.name === name)
  if (query === undefined) throw new Error(`no query ${name}`)
  return query
}

const firstLocation = (answer: Answer): readonly [string, number, number] => {
  const first = "locations" in answer ? answer.locations[0] : undefined
  if (first === undefined) throw new Error(`expected a location, got ${JSON.stringify(answer)}`)
  return first
}

const prepend = (path: string, text: string) =>
  Effect.sync(() => NodeFs.writeFileSync(path, text + NodeFs.readFileSync(path, "utf8")))

const servers = [
  { suite: Servers.typescript, comment: "//" },
  { suite: Servers.pyright, comment: "#" }
]

describe("retained documents follow the disk (real servers)", () => {
  for (const { comment, suite } of servers) {
    // A definition in another file: both the queried file and the target stay open in the server.
    const query = queryNamed(readExpected(suite).queries, "definitionThroughAlias")
    it.live(
      `${suite.name}: a definition moves when its file, then the queried file, changes on disk`,
      () =>
        Effect.gen(function*() {
          const root = yield* workspace({ ...suite, copyFixture: true })
          const [target, line, character] = firstLocation(query.answer)
          const targetPath = NodePath.join(root, target)

          assert.deepStrictEqual(yield* ask(root, query), query.answer)
          // Retain the target too, so its edits reach the server as changes of an open document.
          const hover = yield* ask(root, { operation: "hover", file: target, position: { line, character } })
          assert.isTrue("hover" in hover, JSON.stringify(hover))

          const moved = `${comment} moved\n`.repeat(2)
          yield* prepend(targetPath, moved)
          assert.deepStrictEqual(yield* ask(root, query), shifted(query.answer, target, 2))

          // Same size and, put back, the same mtime: only the bytes tell (the host reads a recently modified file).
          const lines = moved.length / (comment.length + 1)
          const text = NodeFs.readFileSync(targetPath, "utf8")
          const before = NodeFs.statSync(targetPath)
          NodeFs.writeFileSync(targetPath, `${comment}\n`.repeat(lines) + text.slice(moved.length))
          NodeFs.utimesSync(targetPath, before.atime, before.mtime)
          const after = NodeFs.statSync(targetPath)
          assert.deepStrictEqual([after.size, after.mtime.getTime()], [before.size, before.mtime.getTime()])
          assert.deepStrictEqual(yield* ask(root, query), shifted(query.answer, target, lines))

          // The queried file itself changes: its position moves down one line, the answer stays.
          yield* prepend(NodePath.join(root, query.file), `${comment} moved\n`)
          if (!("position" in query)) throw new Error(`${query.name} is not asked at a position`)
          const below = { ...query, position: { ...query.position, line: query.position.line + 1 } }
          assert.deepStrictEqual(yield* ask(root, below), shifted(query.answer, target, lines))
        }).pipe(Effect.provide(hostLayer(suite, "retained")), Effect.scoped),
      { timeout: 120_000 }
    )
  }
})
