// The MCP floor of benchmark 14: an MCP server over stdio (the SDK's own) whose `lsp` tool answers at once,
// with no host, no language server and no work. An MCP call to `lsp-seam mcp` can never cost less than this
// round trip; the bench reports ours against it, call by call.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"

const server = new McpServer({ name: "lsp-seam-bench-floor", version: "0.0.0" })
server.registerTool("lsp", { description: "Answers at once: the floor of an MCP tool call." }, async () => ({
  content: [{ type: "text", text: "No results." }]
}))
await server.connect(new StdioServerTransport())
