import { assert, describe, it } from "@effect/vitest"
import { LspClusterStorage } from "@lsp-seam/lsp-cluster"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as NodePath from "node:path"

describe("LspClusterStorage", () => {
  it("sqlite:FILE is an absolute file; postgres URLs stay redacted", () => {
    const sqlite = Either.getOrThrow(LspClusterStorage.decodeEither("sqlite:cluster.db"))
    assert.deepStrictEqual(sqlite, new LspClusterStorage.Sqlite({ filename: NodePath.resolve("cluster.db") }))
    const pg = Either.getOrThrow(LspClusterStorage.decodeEither("postgresql://lsp:secret@db:5432/lsp"))
    assert.strictEqual(pg._tag, "Postgres")
    assert.strictEqual(pg._tag === "Postgres" && Redacted.value(pg.url), "postgresql://lsp:secret@db:5432/lsp")
    assert.notInclude(String(pg), "secret")
    assert.strictEqual(LspClusterStorage.describe(pg), "postgresql://lsp:***@db:5432/lsp")
    const socket = LspClusterStorage.decodeEither("postgres:///lsp?host=/run/postgresql")
    assert.isTrue(Either.isRight(socket))
  })

  it.effect("anything else is LSP_INVALID_CONFIG, and a password is never repeated", () =>
    Effect.gen(function*() {
      for (const text of ["", "sqlite:", "mysql://db/x", "/tmp/cluster.db", "postgres://u:hunter2@/db"]) {
        const error = yield* Effect.flip(LspClusterStorage.decode(text))
        assert.strictEqual(error.code, "LSP_INVALID_CONFIG", text)
        assert.notInclude(error.message, "hunter2")
        assert.notInclude(JSON.stringify(error.detail), "hunter2")
      }
    }))
})
