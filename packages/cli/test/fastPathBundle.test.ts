import { afterAll, assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { pathToFileURL } from "node:url"
import * as FastPathBundle from "../src/internal/query/fastPathBundle.js"
import { tempDir } from "./support/cli.js"

const made: Array<string> = []
afterAll(() => {
  for (const dir of made) NodeFs.rmSync(dir, { recursive: true, force: true })
})

// A dist/ directory with a tiny bundle, one input and the manifest the bundling script writes.
const makeDist = (body: string) => {
  const dir = tempDir("fast-path-bundle")
  made.push(dir)
  const bundle = NodePath.join(dir, "remoteQuery.bundle.cjs")
  NodeFs.writeFileSync(bundle, body)
  NodeFs.writeFileSync(NodePath.join(dir, "input.js"), "export {}\n")
  const write = () => {
    const made = NodeFs.statSync(bundle)
    const input = NodeFs.statSync(NodePath.join(dir, "input.js"))
    const hash = NodeCrypto.createHash("sha256").update(NodeFs.readFileSync(bundle)).digest("hex")
    NodeFs.writeFileSync(
      NodePath.join(dir, "remoteQuery.bundle.json"),
      JSON.stringify({ bundle: [made.size, made.mtimeMs, hash], inputs: [["input.js", input.size, input.mtimeMs]] })
    )
  }
  write()
  return { dir, url: new URL(`${pathToFileURL(dir).href}/`), bundle, remanifest: write }
}

const body = (answer: string) =>
  `exports.parse = (args) => ({ args, answer: ${JSON.stringify(answer)}, file: __filename });\n` +
  `exports.main = async () => true;\n`

const caches = (dir: string) => NodeFs.readdirSync(dir).filter((file) => file.endsWith(".v8cache"))

describe("the fast path's bundle and its V8 code cache", () => {
  it("loads the bundle; the first run writes the cache, the next one uses it and writes nothing", () => {
    const dist = makeDist(body("one"))
    const writes: Array<() => void> = []
    const first = FastPathBundle.load<{ answer: string; file: string }>(dist.url, (write) => writes.push(write))
    assert.deepStrictEqual(first?.parse(["x"]), { args: ["x"], answer: "one", file: dist.bundle } as never)
    assert.strictEqual(writes.length, 1)
    assert.deepStrictEqual(caches(dist.dir), [])
    writes[0]!()
    assert.strictEqual(caches(dist.dir).length, 1)
    assert.include(caches(dist.dir)[0]!, process.versions.v8)

    const again: Array<() => void> = []
    const second = FastPathBundle.load<{ answer: string }>(dist.url, (write) => again.push(write))
    assert.strictEqual(second?.parse([])?.answer, "one")
    assert.strictEqual(again.length, 0, "an accepted cache is not written again")
  })

  it("a cache V8 refuses (corrupt) is ignored and replaced", () => {
    const dist = makeDist(body("two"))
    FastPathBundle.load(dist.url, (write) => write())
    const [cache] = caches(dist.dir)
    NodeFs.writeFileSync(NodePath.join(dist.dir, cache!), NodeCrypto.randomBytes(512))
    // In a fresh process: this one has compiled the bundle already and would not look at the cache.
    const loader = new URL("../dist/internal/query/fastPathBundle.js", import.meta.url).href
    const run = () =>
      ChildProcess.execFileSync(process.execPath, [
        "--input-type=module",
        "-e",
        `const { load } = await import(${JSON.stringify(loader)})\n` +
        `const writes = []\n` +
        `const loaded = load(new URL(${JSON.stringify(dist.url.href)}), (write) => writes.push(write))\n` +
        `for (const write of writes) write()\n` +
        `process.stdout.write(JSON.stringify({ answer: loaded.parse([]).answer, writes: writes.length }))`
      ], { encoding: "utf8" })
    assert.deepStrictEqual(JSON.parse(run()), { answer: "two", writes: 1 })
    assert.isAbove(NodeFs.statSync(NodePath.join(dist.dir, cache!)).size, 512)
    assert.deepStrictEqual(JSON.parse(run()), { answer: "two", writes: 0 }, "the replacement is accepted")
  })

  it("a rebuilt bundle of the same length never meets the old cache", () => {
    const dist = makeDist(body("aaa"))
    FastPathBundle.load(dist.url, (write) => write())
    NodeFs.writeFileSync(dist.bundle, body("bbb"))
    dist.remanifest()
    const loaded = FastPathBundle.load<{ answer: string }>(dist.url, () => {})
    assert.strictEqual(loaded?.parse([])?.answer, "bbb")
  })

  it("is not used when an input or the bundle changed since it was made, or there is none", () => {
    const dist = makeDist(body("three"))
    NodeFs.appendFileSync(NodePath.join(dist.dir, "input.js"), "// edited\n")
    assert.isUndefined(FastPathBundle.load(dist.url, () => {}))
    dist.remanifest()
    assert.isDefined(FastPathBundle.load(dist.url, () => {}))
    NodeFs.appendFileSync(dist.bundle, "// edited\n")
    assert.isUndefined(FastPathBundle.load(dist.url, () => {}))
    dist.remanifest()
    const manifest = NodePath.join(dist.dir, "remoteQuery.bundle.json")
    const valid = JSON.parse(NodeFs.readFileSync(manifest, "utf8")) as { bundle: [number, number, string] }
    NodeFs.writeFileSync(manifest, JSON.stringify({ ...valid, bundle: [valid.bundle[0], valid.bundle[1], "../x"] }))
    assert.isUndefined(FastPathBundle.load(dist.url, () => {}), "a manifest of another shape is not trusted")
    NodeFs.rmSync(manifest)
    assert.isUndefined(FastPathBundle.load(dist.url, () => {}))
  })
})
