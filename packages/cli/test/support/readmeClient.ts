// #region client
import { LspSeam } from "@lsp-seam/setup"

const client = LspSeam.makeClient({ workingDirectory: "/path/to/project" })
const { text, result } = await client.query(
  { operation: "findReferences", file_path: "src/config.ts", line: 12, character: 5 },
  { signal: AbortSignal.timeout(10_000) } // aborting interrupts the query, down to the server
)
await client.close() // stops the servers
// #endregion

// A root README example, verbatim in the region (README.test.ts compares): type-checked, never run.
void [text, result]
