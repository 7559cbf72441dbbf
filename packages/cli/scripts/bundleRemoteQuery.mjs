// Bundles the fast path of `lsp-seam query … --remote …` (dist/internal/query/remoteQuery.js and the modules it
// loads) into dist/remoteQuery.bundle.cjs, and its edge (dist/internal/query/quickQuery.js) into
// dist/quickQuery.bundle.cjs: one file instead of ~600 modules makes a warm remote query several
// times faster to start (see bench/results: "One warm host for many clients"). Run after `tsc -b`; the
// bundle is optional: dist/bin.js uses it only when every input listed in dist/remoteQuery.bundle.json is
// unchanged (size and mtime), else it loads the modules one by one as before.
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

// esbuild comes with the workspace's tools (tsx); without it there is simply no bundle.
const esbuild = await import("esbuild").catch(() => undefined)
if (esbuild === undefined) {
  process.stderr.write("bundleRemoteQuery: esbuild is not installed; the remote query path stays unbundled\n")
  process.exit(0)
}

const dist = fileURLToPath(new URL("../dist/", import.meta.url))
const require = createRequire(import.meta.url)
const packageDist = (name) => Path.dirname(require.resolve(name))
const tool = packageDist("@lsp-seam/tool-lsp")
const remote = packageDist("@lsp-seam/lsp-remote")
const setup = packageDist("@lsp-seam/setup")
const entry = [
  `import * as Query from ${JSON.stringify(Path.join(dist, "internal/query/remoteQuery.js"))}`,
  `import * as RemoteModules from ${JSON.stringify(Path.join(setup, "internal/remoteModules.js"))}`,
  `import * as Handler from ${JSON.stringify(Path.join(tool, "LspToolHandler.js"))}`,
  `import * as Session from ${JSON.stringify(Path.join(tool, "LspSession.js"))}`,
  `import * as Input from ${JSON.stringify(Path.join(tool, "LspToolInput.js"))}`,
  `import * as Address from ${JSON.stringify(Path.join(remote, "LspRemoteAddress.js"))}`,
  `import * as Auth from ${JSON.stringify(Path.join(remote, "LspRemoteAuth.js"))}`,
  `import * as Client from ${JSON.stringify(Path.join(remote, "LspRemoteClient.js"))}`,
  `import * as Directory from ${JSON.stringify(Path.join(remote, "LspRemoteDirectory.js"))}`,
  `RemoteModules.provide({ Address, Auth, Client, Directory })`,
  `export const parse = Query.parse`,
  `export const main = (parsed) => Query.main(parsed, { Handler, Session, Input })`
].join("\n")

// The edge (dist/internal/query/quickQuery.js): the common warm query without the Effect runtime or the Schemas. The
// packages mark themselves free of side effects, so only the modules it uses are in it (see docs/decisions.md,
// "A warm remote query in Node's start time").
const edgeEntry = [
  `import * as Query from ${JSON.stringify(Path.join(dist, "internal/query/remoteQuery.js"))}`,
  `import * as Edge from ${JSON.stringify(Path.join(dist, "internal/query/quickQuery.js"))}`,
  `export const parse = Query.parse`,
  `export const run = Edge.run`
].join("\n")

// Earlier builds: the ES module bundle.
Fs.rmSync(Path.join(dist, "remoteQuery.bundle.mjs"), { force: true })

/**
 * Bundles `contents` into dist/<name>.bundle.cjs and writes its manifest, dist/<name>.bundle.json. With
 * `checkAll` false, the manifest lists only the files the bundle holds code of (~40 for the edge), not the ~650
 * it read and left out as unused: each listed file is a stat on every run (see fastPathBundle.ts), ~0.1 ms
 * each. A change to a used file is seen; a file left out matters again only once a used one imports more of
 * it, which changes the used one.
 */
const bundle = async (name, contents, checkAll = true) => {
  const outfile = Path.join(dist, `${name}.bundle.cjs`)
  const result = await esbuild.build({
    stdin: { contents, resolveDir: dist, sourcefile: `${name}Bundle.mjs`, loader: "js" },
    bundle: true,
    platform: "node",
    // CommonJS, because dist/internal/query/fastPathBundle.js compiles it with vm.Script and a V8 code cache (Node 20
    // has no compile cache for ES modules). Its modules see the bundle's own URL as import.meta.url.
    format: "cjs",
    target: "node20",
    outfile,
    metafile: true,
    absWorkingDir: dist,
    logLevel: "warning",
    // import.meta.resolve is used only where the bundle is not (the modules loaded one by one).
    logOverride: { "empty-import-meta": "silent" },
    define: { "import.meta.url": "__bundleUrl" },
    banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" }
  })
  const [output] = Object.values(result.metafile.outputs)
  const listed = (input) => checkAll || (output.inputs[input]?.bytesInOutput ?? 0) > 0
  const inputs = Object.keys(result.metafile.inputs).filter((input) =>
    listed(input) && Fs.existsSync(Path.resolve(dist, input))
  ).map(
    (input) => {
      const file = Path.resolve(dist, input)
      const stats = Fs.statSync(file)
      return [Path.relative(dist, file), stats.size, stats.mtimeMs]
    }
  )
  const made = Fs.statSync(outfile)
  const hash = Crypto.createHash("sha256").update(Fs.readFileSync(outfile)).digest("hex")
  // Code caches of other contents (see fastPathBundle.ts for their names); one of the same bundle stays valid.
  for (const entry of Fs.readdirSync(dist)) {
    if (
      entry.startsWith(`${name}.bundle.cjs.`) && entry.endsWith(".v8cache") &&
      !entry.startsWith(`${name}.bundle.cjs.${hash.slice(0, 16)}-`)
    ) {
      Fs.rmSync(Path.join(dist, entry), { force: true })
    }
  }
  Fs.writeFileSync(
    Path.join(dist, `${name}.bundle.json`),
    JSON.stringify({ bundle: [made.size, made.mtimeMs, hash], inputs })
  )
}

await bundle("remoteQuery", entry)
await bundle("quickQuery", edgeEntry, false)
