/**
 * A language server asked directly, without the host: spawned, initialised with the host's own client
 * capabilities, and sent requests by hand. The tests that hold the host's answers to the server's own ask
 * both the same question and compare.
 */
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import { pathToFileURL } from "node:url"
import * as Framing from "../../src/Framing.js"
import { clientCapabilities } from "../../src/internal/servers/serverInstance.js"

export interface RawServer {
  readonly request: (method: string, params: unknown) => Promise<unknown>
  /** Opens `path` and resolves once the server has published diagnostics for it (it has analysed the file). */
  readonly open: (path: string, languageId: string) => Promise<void>
  readonly close: () => Promise<void>
}

interface Message {
  readonly id?: number | string
  readonly method?: string
  readonly params?: unknown
  readonly result?: unknown
  readonly error?: { readonly code: number; readonly message: string }
}

export const start = async (
  command: string,
  args: ReadonlyArray<string>,
  root: string,
  initializationOptions?: unknown,
  env: Readonly<Record<string, string>> = {}
): Promise<RawServer> => {
  const child = ChildProcess.spawn(command, [...args], {
    cwd: root,
    stdio: ["pipe", "pipe", "ignore"],
    env: { ...process.env, ...env }
  })
  const decoder = Framing.makeDecoder({ maxMessageBytes: 64 * 1024 * 1024 })
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
  const published = new Map<string, Array<() => void>>()
  let nextId = 1
  const send = (message: unknown) => child.stdin.write(Framing.encode({ jsonrpc: "2.0", ...(message as object) }))
  child.stdout.on("data", (chunk: Buffer) => {
    for (const raw of decoder.push(chunk)) {
      const message = raw as Message
      if (message.method !== undefined && message.id !== undefined) {
        const params = message.params as { readonly items?: ReadonlyArray<unknown> } | undefined
        const result = message.method === "workspace/configuration" ? (params?.items ?? []).map(() => null) : null
        send({ id: message.id, result })
      } else if (message.method === "textDocument/publishDiagnostics") {
        const uri = (message.params as { readonly uri: string }).uri
        for (const waiter of published.get(uri) ?? []) waiter()
        published.delete(uri)
      } else if (typeof message.id === "number") {
        const waiter = pending.get(message.id)
        pending.delete(message.id)
        if (message.error !== undefined) waiter?.reject(new Error(`${message.error.code}: ${message.error.message}`))
        else waiter?.resolve(message.result)
      }
    }
  })
  const request = (method: string, params: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++
      pending.set(id, { resolve, reject })
      send({ id, method, params })
    })
  const rootUri = pathToFileURL(root).href
  // The host's capabilities, except that pull diagnostics are not accepted by registration: `open` waits for the
  // first pushed set as the sign that a file is analysed, and pyright pushes none to a client that pulls.
  const pushOnly = {
    ...clientCapabilities,
    textDocument: {
      ...clientCapabilities.textDocument,
      diagnostic: { ...clientCapabilities.textDocument.diagnostic, dynamicRegistration: false }
    }
  }
  await request("initialize", {
    processId: process.pid,
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: "raw" }],
    capabilities: pushOnly,
    initializationOptions
  })
  send({ method: "initialized", params: {} })
  const open = (path: string, languageId: string) => {
    const uri = pathToFileURL(path).href
    const analysed = new Promise<void>((resolve) => published.set(uri, [...(published.get(uri) ?? []), resolve]))
    send({
      method: "textDocument/didOpen",
      params: { textDocument: { uri, languageId, version: 1, text: NodeFs.readFileSync(path, "utf8") } }
    })
    return analysed
  }
  const close = async () => {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
    await request("shutdown", null).catch(() => undefined)
    send({ method: "exit" })
    child.stdin.end()
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000)
    await exited
    clearTimeout(timer)
  }
  return { request, open, close }
}

/** A raw `WorkspaceEdit` as sorted `{ uri, range, newText }` edits, read by the test itself. */
export const flatten = (edit: unknown): ReadonlyArray<{ uri: string; range: unknown; newText: string }> => {
  type TextEdit = { readonly range: { start: { line: number; character: number } }; readonly newText: string }
  const value = edit as {
    readonly changes?: Record<string, ReadonlyArray<TextEdit>>
    readonly documentChanges?: ReadonlyArray<{ textDocument?: { uri: string }; edits?: ReadonlyArray<TextEdit> }>
  } | null
  if (value === null) return []
  const flat = value.documentChanges !== undefined
    ? value.documentChanges.flatMap((change) =>
      (change.edits ?? []).map((e) => ({ uri: change.textDocument!.uri, range: e.range, newText: e.newText }))
    )
    : Object.entries(value.changes ?? {}).flatMap(([uri, edits]) =>
      edits.map((e) => ({ uri, range: e.range, newText: e.newText }))
    )
  return flat.sort((a, b) =>
    a.uri.localeCompare(b.uri) || a.range.start.line - b.range.start.line ||
    a.range.start.character - b.range.start.character
  )
}
