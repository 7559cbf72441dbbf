/** The package version, reported by `--version` and to MCP clients (a test keeps it equal to package.json). */
export const version = "0.1.0"
