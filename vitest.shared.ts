import * as path from "node:path"
import { configDefaults, type ViteUserConfig } from "vitest/config"

const packages = path.join(import.meta.dirname, "packages")

// Tests import workspace packages by name; resolve them to source so no build is needed first.
const alias = (name: string) => ({
  [`@lsp-seam/${name}/testing`]: path.join(packages, name, "src", "testing.ts"),
  [`@lsp-seam/${name}`]: path.join(packages, name, "src", "index.ts")
})

/** Test settings every package shares; each package's vitest.config.ts merges these. */
const config: ViteUserConfig = {
  esbuild: {
    target: "es2022"
  },
  resolve: {
    alias: {
      ...alias("lsp"),
      ...alias("lsp-stdio"),
      ...alias("lsp-remote"),
      ...alias("lsp-cluster"),
      ...alias("tool-lsp"),
      "@lsp-seam/setup/remote": path.join(packages, "setup", "src", "remote.ts"),
      ...alias("setup"),
      ...alias("cli")
    }
  },
  test: {
    include: ["test/**/*.test.ts"],
    // Fixtures are workspaces the tests query, test files of their own included (impact tells tests apart).
    exclude: [...configDefaults.exclude, "test/fixtures/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
}

export default config
