/**
 * The wire's cost for one server, in a process of its own: after the other benchmarks, the bench's own
 * process carries their heap and compiled code, which measured the same wire 0.1–0.2 ms slower than a fresh
 * process did. Prints one JSON line: the measurement and the server pids it started. Started by
 * bench/remote.ts.
 *
 * Usage: node --import tsx bench/wireChild.ts <fake|typescript> <quick: 0|1>
 */
import "./support/register.js"

const { measureWire } = await import("./remote.js")
const { fakeKind, typescriptKind } = await import("./support/contenders.js")
const Processes = await import("./support/processes.js")
const { removeWorkspaces } = await import("./support/servers.js")

const [kindArgument = "fake", quickArgument = "0"] = process.argv.slice(2)
try {
  const part = await measureWire(kindArgument === "fake" ? fakeKind : typescriptKind, { quick: quickArgument === "1" })
  process.stdout.write(`${JSON.stringify({ part, pids: [...Processes.serverPids] })}\n`)
} finally {
  removeWorkspaces()
}
