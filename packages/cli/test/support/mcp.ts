import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { bin } from "./cli.js"

/** An independent MCP client (the official TypeScript SDK) connected to the compiled `lsp-seam mcp`. */
export class McpClient extends Context.Tag("test/McpClient")<McpClient, Client>() {}

/** Spawns `lsp-seam mcp ...args` over stdio and connects to it; closed with the scope. */
export const connect = (args: ReadonlyArray<string>) =>
  Layer.scoped(
    McpClient,
    Effect.acquireRelease(
      Effect.promise(async () => {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [bin, "mcp", ...args],
          stderr: "pipe"
        })
        const client = new Client({ name: "lsp-seam-test", version: "0.0.0" })
        await client.connect(transport)
        return client
      }),
      (client) => Effect.promise(() => client.close())
    )
  )

const ToolResult = Schema.Struct({
  content: Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) }))
})

/** The text of a tool call's result. */
export const textOf = (result: unknown): string =>
  Schema.decodeUnknownSync(ToolResult)(result).content.map((part) => part.text ?? "").join("")
