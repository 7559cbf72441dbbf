// A small fault-injecting language server for the soak benchmark (bench/soak.ts). Plain Node, node: builtins only.
//
// It answers initialize, shutdown, exit and the four queries like a trivial server, except that the queried
// file's name picks a fault, so the bench (which draws the faults from a seeded PRNG) knows which query got which:
//   crash.fake    exits with code 1 instead of answering
//   hang.fake     never answers that request, and ignores its $/cancelRequest
//   garbage.fake  writes a bad frame instead of the answer (the kind cycles with the request id), then stays silent
// Any other file is answered at once. FAULT_LSP (JSON) may hold `pidFile`: each start appends the pid there, so the
// bench can check afterwards that every server's process group is gone.
import * as fs from "node:fs"
import process from "node:process"

const config = JSON.parse(process.env.FAULT_LSP ?? "{}")
if (typeof config.pidFile === "string") fs.appendFileSync(config.pidFile, `${process.pid}\n`)

const write = (bytes) => process.stdout.write(bytes)
const frame = (message) => {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }), "utf8")
  write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]))
}
process.stdout.on("error", () => process.exit(0))

const garbage = [
  () => Buffer.from("Content-Length: abc\r\n\r\n", "ascii"),
  () => Buffer.from("Content-Type: application/vscode-jsonrpc\r\n\r\n{}", "ascii"),
  () => Buffer.from("Content-Length: 9\r\n\r\nnot json!", "ascii"),
  () => Buffer.concat([Buffer.from("Content-Length: 2\r\n\r\n", "ascii"), Buffer.from([0xff, 0xfe])]),
  () => Buffer.from(`X-Padding: ${"a".repeat(70_000)}`, "ascii"),
  () => Buffer.from("Content-Length: 2000000000\r\n\r\n{\"jsonrpc\":\"2.0\"", "ascii")
]

let dead = false
let shutdown = false

const onRequest = (request) => {
  if (request.method === "initialize") {
    return frame({
      id: request.id,
      result: {
        capabilities: {
          textDocumentSync: 1,
          definitionProvider: true,
          referencesProvider: true,
          implementationProvider: true,
          hoverProvider: true
        },
        serverInfo: { name: "fault-server", version: "0.0.0" }
      }
    })
  }
  if (request.method === "shutdown") {
    shutdown = true
    return frame({ id: request.id, result: null })
  }
  const { position, textDocument } = request.params ?? {}
  const uri = String(textDocument?.uri ?? "")
  if (uri.endsWith("/crash.fake")) {
    dead = true
    return process.exit(1)
  }
  if (uri.endsWith("/hang.fake")) return
  if (uri.endsWith("/garbage.fake")) {
    dead = true
    return write(garbage[Number(request.id) % garbage.length]())
  }
  const here = [{ uri, range: { start: position, end: position } }]
  const result = request.method === "textDocument/hover"
    ? { contents: { kind: "markdown", value: `hover at ${position?.line}:${position?.character}` } }
    : here
  frame({ id: request.id, result })
}

let input = Buffer.alloc(0)
process.stdin.on("data", (chunk) => {
  input = Buffer.concat([input, chunk])
  while (!dead) {
    const headerEnd = input.indexOf("\r\n\r\n")
    if (headerEnd < 0) return
    const match = /content-length: *(\d+)/i.exec(input.subarray(0, headerEnd).toString("latin1"))
    if (match === null) process.exit(3)
    const start = headerEnd + 4
    const end = start + Number(match[1])
    if (input.length < end) return
    const message = JSON.parse(input.subarray(start, end).toString("utf8"))
    input = input.subarray(end)
    if (message.method === "exit") process.exit(shutdown ? 0 : 1)
    if (message.id !== undefined && message.method !== undefined) onRequest(message)
  }
})
process.stdin.on("end", () => process.exit(0))
