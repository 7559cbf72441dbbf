/**
 * The reference for the full-stack figures: a minimal LSP client in plain Node (child_process, Buffers,
 * JSON), written for the bench. It spawns the same server the same way (its own process group, the same
 * scrubbed environment) and sends exactly the host's message sequence: `initialize` with the host's
 * parameters and client capabilities, `initialized {}`, then per query `didOpen` (version 1, the full text
 * read from disk), the request, and `didClose` once the answer is in. It answers server requests as the host
 * does. It validates nothing, normalises nothing and renders nothing: what the seam adds is the difference.
 * A keep-open mode (`queryKeepOpen`) opens each file once and then only sends requests.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"

/** How to start a server, shared by the host config and the raw client. */
export interface ServerSpec {
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly extension: string
  readonly languageId: string
  readonly initializationOptions: unknown
}

export type Operation = "goToDefinition" | "findReferences" | "goToImplementation" | "hover"

/** One query, zero-based as on the wire. */
export interface Query {
  readonly operation: Operation
  readonly file: string
  readonly position: { readonly line: number; readonly character: number }
}

/** The capabilities the host sends (checked against the host's own constant when the bench starts). */
const symbolKinds = { valueSet: Array.from({ length: 26 }, (_, i) => i + 1) }

export const clientCapabilities = {
  general: { positionEncodings: ["utf-16"] },
  window: { workDoneProgress: true },
  workspace: {
    workspaceFolders: true,
    configuration: true,
    symbol: { dynamicRegistration: false, symbolKind: symbolKinds },
    workspaceEdit: { documentChanges: true, resourceOperations: ["create", "rename", "delete"] }
  },
  textDocument: {
    synchronization: { dynamicRegistration: false },
    hover: { dynamicRegistration: false, contentFormat: ["markdown", "plaintext"] },
    definition: { dynamicRegistration: false, linkSupport: true },
    implementation: { dynamicRegistration: false, linkSupport: true },
    references: { dynamicRegistration: false },
    typeDefinition: { dynamicRegistration: false, linkSupport: true },
    callHierarchy: { dynamicRegistration: false },
    rename: { dynamicRegistration: false, prepareSupport: true },
    documentSymbol: { dynamicRegistration: false, hierarchicalDocumentSymbolSupport: true, symbolKind: symbolKinds },
    publishDiagnostics: { relatedInformation: true, versionSupport: true },
    diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false, relatedInformation: true }
  }
}

const methodOf: Record<Operation, string> = {
  goToDefinition: "textDocument/definition",
  findReferences: "textDocument/references",
  goToImplementation: "textDocument/implementation",
  hover: "textDocument/hover"
}

/** The host's rule: drop credentials and lsp-seam's own variables, then merge the configured ones. */
export const serverEnvironment = (configured: Readonly<Record<string, string>>): Record<string, string> => {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) {
    const upper = name.toUpperCase()
    if (value === undefined || upper.startsWith("LSP_SEAM_")) continue
    if (["KEY", "PASSWORD", "SECRET", "TOKEN"].some((marker) => upper.includes(marker))) continue
    kept[name] = value
  }
  return { ...kept, ...configured }
}

interface Pending {
  readonly resolve: (result: unknown) => void
  readonly reject: (error: Error) => void
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

export class RawClient {
  private readonly pending = new Map<number, Pending>()
  /** Documents kept open by `queryKeepOpen`, by URI. */
  private readonly opened = new Set<string>()
  private nextId = 1
  private chunks: Array<Buffer> = []
  private buffered = 0
  private failure: Error | undefined
  private readonly exited: Promise<void>

  private constructor(
    private readonly child: ChildProcess,
    readonly spec: ServerSpec,
    readonly workspace: string
  ) {
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()))
    child.stdout!.on("data", (chunk: Buffer) => this.onData(chunk))
    child.stderr!.resume()
    child.stdin!.on("error", (error) => this.fail(error))
    child.once("exit", (code, signal) => this.fail(new Error(`${spec.name} exited (${code ?? signal})`)))
  }

  get pid(): number {
    return this.child.pid!
  }

  /** Spawns the server for `workspace` and completes the handshake. */
  static async start(spec: ServerSpec, workspace: string): Promise<RawClient> {
    const root = Fs.realpathSync(workspace)
    const child = spawn(spec.command, [...spec.args], {
      cwd: root,
      env: serverEnvironment(spec.env),
      stdio: ["pipe", "pipe", "pipe"],
      detached: true
    })
    const client = new RawClient(child, spec, root)
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve)
      child.once("error", reject)
    })
    const uri = pathToFileURL(root).href
    await client.request("initialize", {
      processId: process.pid,
      clientInfo: { name: "lsp-seam" },
      rootUri: uri,
      rootPath: root,
      workspaceFolders: [{ uri, name: Path.basename(root) }],
      initializationOptions: spec.initializationOptions,
      capabilities: clientCapabilities
    })
    client.send({ jsonrpc: "2.0", method: "initialized", params: {} })
    return client
  }

  /** Transient open: didOpen with the file as it is on disk now, the request, then didClose. */
  async query(query: Query): Promise<unknown> {
    const path = Path.resolve(this.workspace, query.file)
    const text = await Fs.promises.readFile(path, "utf8")
    const uri = pathToFileURL(path).href
    this.send({
      jsonrpc: "2.0",
      method: "textDocument/didOpen",
      params: { textDocument: { uri, languageId: this.spec.languageId, version: 1, text } }
    })
    try {
      return await this.ask(uri, query)
    } finally {
      this.send({ jsonrpc: "2.0", method: "textDocument/didClose", params: { textDocument: { uri } } })
    }
  }

  /**
   * Keep-open: the first query on a file sends didOpen with the file as it is on disk then, and the
   * document stays open; every later query on it is the request alone. The server's own warm latency, the
   * floor of any client that must stay disk-true. A client uses this or `query`, never both.
   */
  async queryKeepOpen(query: Query): Promise<unknown> {
    return this.ask(await this.open(query.file), query)
  }

  /** Opens `file` (relative to the workspace) and keeps it open, as `queryKeepOpen` does; its URI. */
  async open(file: string): Promise<string> {
    const path = Path.resolve(this.workspace, file)
    const uri = pathToFileURL(path).href
    if (!this.opened.has(uri)) {
      const text = await Fs.promises.readFile(path, "utf8")
      this.opened.add(uri)
      this.send({
        jsonrpc: "2.0",
        method: "textDocument/didOpen",
        params: { textDocument: { uri, languageId: this.spec.languageId, version: 1, text } }
      })
    }
    return uri
  }

  /** Any request, sent as it is (scripts/monorepoCounts.ts asks call hierarchies and workspace symbols). */
  call(method: string, params: unknown): Promise<unknown> {
    return this.request(method, params)
  }

  private ask(uri: string, query: Query): Promise<unknown> {
    return this.request(methodOf[query.operation], {
      textDocument: { uri },
      position: query.position,
      ...(query.operation === "findReferences" ? { context: { includeDeclaration: true } } : {})
    })
  }

  /** shutdown and exit, then stdin's end; SIGTERM then SIGKILL to the group if the server lingers. */
  async close(): Promise<void> {
    if (this.failure === undefined) {
      await Promise.race([this.request("shutdown", null).catch(() => null), sleep(5_000)])
      this.send({ jsonrpc: "2.0", method: "exit" })
    }
    this.child.stdin!.end()
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (await Promise.race([this.exited.then(() => true), sleep(2_000).then(() => false)])) break
      try {
        process.kill(-this.pid, signal)
      } catch {
        // The group is gone already.
      }
    }
    await this.exited
  }

  private request(method: string, params: unknown): Promise<unknown> {
    if (this.failure !== undefined) return Promise.reject(this.failure)
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.send({ jsonrpc: "2.0", id, method, params })
    })
  }

  private send(message: unknown): void {
    if (this.failure !== undefined) return
    const body = Buffer.from(JSON.stringify(message), "utf8")
    this.child.stdin!.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]))
  }

  private fail(error: Error): void {
    if (this.failure !== undefined) return
    this.failure = error
    for (const pending of this.pending.values()) pending.reject(error)
    this.pending.clear()
  }

  private onData(chunk: Buffer): void {
    this.chunks.push(chunk)
    this.buffered += chunk.length
    for (;;) {
      const input = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered)
      this.chunks = [input]
      const headerEnd = input.indexOf("\r\n\r\n")
      if (headerEnd < 0) return
      const length = /content-length: *(\d+)/i.exec(input.toString("latin1", 0, headerEnd))
      if (length === null) return this.fail(new Error("a frame without Content-Length"))
      const start = headerEnd + 4
      const end = start + Number(length[1])
      if (input.length < end) return
      this.chunks = end === input.length ? [] : [input.subarray(end)]
      this.buffered = input.length - end
      this.dispatch(JSON.parse(input.toString("utf8", start, end)))
      if (this.buffered === 0) return
    }
  }

  private dispatch(message: unknown): void {
    if (!isRecord(message)) return
    if (typeof message.method === "string") {
      if (message.id !== undefined) this.answer(message.id, message.method, message.params)
      return
    }
    const id = message.id
    const pending = typeof id === "number" ? this.pending.get(id) : undefined
    if (typeof id !== "number" || pending === undefined) return
    this.pending.delete(id)
    if (isRecord(message.error)) pending.reject(new Error(`server error: ${JSON.stringify(message.error)}`))
    else pending.resolve(message.result)
  }

  private answer(id: unknown, method: string, params: unknown): void {
    switch (method) {
      case "workspace/configuration": {
        const items = isRecord(params) && Array.isArray(params.items) ? params.items : []
        return this.send({ jsonrpc: "2.0", id, result: items.map(() => null) })
      }
      case "window/workDoneProgress/create":
      case "client/registerCapability":
      case "client/unregisterCapability":
      // As the host: pyright exits when this is refused.
      case "workspace/diagnostic/refresh":
        return this.send({ jsonrpc: "2.0", id, result: null })
      default:
        return this.send({ jsonrpc: "2.0", id, error: { code: -32601, message: `Unhandled method ${method}` } })
    }
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref())
