/**
 * `@since` tags are true to the release: no public API claims a version later than its package's own (a tag
 * from the future would tell a user to upgrade to a release that does not exist).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

const packages = NodePath.resolve(import.meta.dirname, "../..")

const sources = (directory: string): ReadonlyArray<string> =>
  NodeFs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = NodePath.join(directory, entry.name)
    return entry.isDirectory() ? sources(path) : entry.name.endsWith(".ts") ? [path] : []
  })

const Manifest = Schema.Struct({ version: Schema.String })

const parts = (version: string) => version.split(".").map(Number)
const later = (a: string, b: string) => {
  const [x, y] = [parts(a), parts(b)]
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) > (y[i] ?? 0)
  return false
}

describe("@since tags", () => {
  it("claim no version after their package's", () => {
    const wrong: Array<string> = []
    let tags = 0
    for (const name of NodeFs.readdirSync(packages)) {
      const manifest = NodePath.join(packages, name, "package.json")
      if (!NodeFs.existsSync(manifest)) continue
      const { version } = Schema.decodeUnknownSync(Manifest)(JSON.parse(NodeFs.readFileSync(manifest, "utf8")))
      for (const file of sources(NodePath.join(packages, name, "src"))) {
        for (const match of NodeFs.readFileSync(file, "utf8").matchAll(/@since (\d+\.\d+\.\d+)/g)) {
          tags += 1
          if (later(match[1]!, version)) {
            wrong.push(`${NodePath.relative(packages, file)}: @since ${match[1]} > ${version}`)
          }
        }
      }
    }
    assert.isAbove(tags, 100)
    assert.deepStrictEqual(wrong, [])
  })
})
