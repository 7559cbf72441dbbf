/**
 * The host's rooms keep to their rules: each `src/internal/<room>/README.md` says what the room may
 * import, and every import of every source module is checked against it. The public modules belong to
 * the room they are the face of; test doubles live in `src/testing/`, which no production module imports.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"

const src = path.join(import.meta.dirname, "..", "src")
const internal = path.join(src, "internal")

/** The room a public module is the face of. */
const faces: Record<string, string> = {
  "Framing.ts": "wire",
  "JsonRpc.ts": "wire",
  "StdioConfig.ts": "config",
  "StdioStatus.ts": "config"
}

const rooms = fs.readdirSync(internal, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)

/** Each room's "May import:" line, read from its README. */
const allowed = new Map(rooms.map((room) => {
  const readme = fs.readFileSync(path.join(internal, room, "README.md"), "utf8")
  const line = readme.split("\n").find((l) => l.startsWith("May import:"))
  if (line === undefined) throw new Error(`${room}/README.md has no "May import:" line`)
  const list = line.slice("May import:".length).trim().replace(/\.$/, "")
  return [room, list === "nothing of the host" ? [] : list.split(",").map((s) => s.trim())] as const
}))

const walk = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []
  )

/** The room of a source file: its folder under internal/, "testing", a face's room, or "entry". */
const roomOf = (file: string): string => {
  const rel = path.relative(src, file).split(path.sep)
  if (rel[0] === "internal") return rel[1]!
  if (rel[0] === "testing" || rel[0] === "testing.ts") return "testing"
  return faces[rel[0]!] ?? "entry"
}

const importsOf = (file: string): Array<string> =>
  Array.from(
    fs.readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*"(\.\.?\/[^"]+)"/g),
    (m) => path.resolve(path.dirname(file), m[1]!.replace(/\.js$/, ".ts"))
  )

const files = walk(src)

describe("the rooms of the stdio host", () => {
  it("every internal module lives in a room with a README", () => {
    for (const file of walk(internal)) {
      assert.strictEqual(path.dirname(path.dirname(file)), internal, `${file} is not in a room folder`)
    }
    assert.deepStrictEqual(
      [...rooms].sort(),
      ["answers", "config", "documents", "files", "host", "process", "servers", "wire"]
    )
  })

  it("every import between rooms goes downward, as the rooms' READMEs allow", () => {
    const broken: Array<string> = []
    for (const file of files) {
      const from = roomOf(file)
      for (const target of importsOf(file)) {
        const to = roomOf(target)
        if (to === from || from === "entry") continue
        if (from === "testing" ? to === "wire" : (allowed.get(from) ?? []).includes(to)) continue
        broken.push(`${path.relative(src, file)} (${from}) imports ${path.relative(src, target)} (${to})`)
      }
    }
    assert.deepStrictEqual(broken, [])
  })

  it("the rooms' rules form no cycle", () => {
    const visiting = new Set<string>()
    const done = new Set<string>()
    const visit = (room: string, trail: Array<string>) => {
      assert.isFalse(visiting.has(room), `cycle: ${[...trail, room].join(" -> ")}`)
      if (done.has(room)) return
      visiting.add(room)
      for (const next of allowed.get(room) ?? []) {
        assert.isTrue(allowed.has(next), `${room} allows an unknown room ${next}`)
        visit(next, [...trail, room])
      }
      visiting.delete(room)
      done.add(room)
    }
    for (const room of rooms) visit(room, [])
  })

  it("no production module imports a test double", () => {
    const offenders = files.filter((file) => roomOf(file) !== "testing" && path.basename(file) !== "testing.ts")
      .flatMap((file) => importsOf(file).filter((t) => roomOf(t) === "testing").map((t) => `${file} -> ${t}`))
    assert.deepStrictEqual(offenders, [])
  })

  it("no source module is over 450 lines", () => {
    const long = files.map((file) =>
      [path.relative(src, file), fs.readFileSync(file, "utf8").split("\n").length] as const
    )
      .filter(([, lines]) => lines > 450)
    assert.deepStrictEqual(long, [])
  })
})
