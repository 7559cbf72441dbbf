// A module resolution hook for the bench: `@lsp-seam/<pkg>` and `@lsp-seam/<pkg>/<module>` resolve to the
// package's TypeScript source (as vitest's aliases do for the tests), never to a possibly stale dist/.
// Registered by bench/support/register.ts before anything imports a workspace package.
const packages = new URL("../../packages/", import.meta.url)

export async function resolve(specifier, context, nextResolve) {
  const match = /^@lsp-seam\/([a-z-]+)(?:\/([A-Za-z]+))?$/.exec(specifier)
  if (match === null) return nextResolve(specifier, context)
  const [, name, module = "index"] = match
  return nextResolve(new URL(`${name}/src/${module}.ts`, packages).href, context)
}
