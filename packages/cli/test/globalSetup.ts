import { execFileSync } from "node:child_process"
import { createRequire } from "node:module"
import * as NodePath from "node:path"

// The end-to-end tests spawn packages/cli/dist/bin.js. Compile it (and the packages it imports, which it loads
// from their dist/) before any test runs, so no test can use a stale build. Incremental: fast when up to date.
export default function setup(): void {
  const root = NodePath.resolve(import.meta.dirname, "..", "..", "..")
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
  execFileSync(process.execPath, [tsc, "-b", NodePath.join(root, "packages", "cli", "tsconfig.src.json")], {
    cwd: root,
    stdio: "inherit"
  })
  // The bundled fast path of `query --remote` (what `npm run build` makes), so the tests run what users run.
  execFileSync(process.execPath, [NodePath.join(root, "packages", "cli", "scripts", "bundleRemoteQuery.mjs")], {
    cwd: root,
    stdio: "inherit"
  })
}
