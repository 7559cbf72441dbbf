/**
 * docs/tool-catalog.md: the model-facing tool's operations, what each takes and answers, its limits, error codes,
 * fixed cost in the prompt and its MCP annotations.
 */
import { type LspError, LspErrorRead, LspQuery, LspResult } from "@lsp-seam/lsp"
import { LspMcp, LspToolConfig, LspToolInput, LspToolOutput, LspToolPrompt } from "@lsp-seam/tool-lsp"
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import { cell, code, header, record, strings, typeOf } from "./markdown.js"

const errorMeanings: Readonly<Record<LspError.LspErrorCode, string>> = {
  LSP_INVALID_PROVIDER: "A provider's id or extension map breaks a registration rule.",
  LSP_CONFLICT: "A provider id or extension is already registered by another provider.",
  LSP_UNAVAILABLE: "No language server handles the file's extension.",
  LSP_DISPOSED: "The service, host or client has been shut down.",
  LSP_UNSUPPORTED_OPERATION: "The server does not offer the operation, or cannot open documents on request.",
  LSP_MALFORMED_RESPONSE: "The server (or provider) answered with something that does not fit the protocol.",
  LSP_WORKSPACE_REQUIRED: "The session has no working directory to use as the workspace.",
  LSP_INVALID_WORKSPACE: "The workspace does not exist or is not a directory.",
  LSP_SOURCE_NOT_FOUND: "The file does not exist.",
  LSP_SOURCE_OUTSIDE_WORKSPACE: "The file resolves (possibly through a symlink) outside the workspace.",
  LSP_SOURCE_NOT_A_FILE: "The path is a directory, a FIFO, a device: not a regular file.",
  LSP_SOURCE_BINARY: "The file looks binary (a NUL byte near its start).",
  LSP_SOURCE_INVALID_UTF8: "The file is not valid UTF-8.",
  LSP_SOURCE_TOO_LARGE: "The file is larger than the server's `maxDocumentBytes`.",
  LSP_SERVER_EXITED: "The server process exited; the message carries the end of its stderr.",
  LSP_SERVER_START_FAILED: "The server could not be spawned or failed its handshake.",
  LSP_SERVER_ERROR: "The server answered the request with a JSON-RPC error.",
  LSP_PROTOCOL_ERROR: "The server broke the wire protocol (framing, JSON, position encoding).",
  LSP_TRANSPORT_FAILED: "Writing to or reading from the server failed.",
  LSP_REMOTE_UNAVAILABLE: "The remote lsp-seam host cannot be reached, or the connection dropped before it answered.",
  LSP_REMOTE_UNAUTHORIZED: "The remote lsp-seam host refused the bearer token (missing or wrong).",
  LSP_REMOTE_INCOMPATIBLE: "The remote lsp-seam host runs another version or configuration than this client.",
  LSP_REMOTE_FORBIDDEN: "The remote host does not serve that workspace: it is outside the host's served roots.",
  LSP_RESPONSE_TOO_LARGE: "A language server's answer exceeded the host's frame limit; only that query failed.",
  LSP_CRASH_LOOP: "The server crashed too often recently; restarts are paused for a while.",
  LSP_INVALID_CONFIG: "The configuration (file, server settings or tool limits) is invalid.",
  LSP_EXECUTABLE_NOT_FOUND: "A server's command does not resolve to an executable file.",
  LSP_WORKSPACE_NOT_READY:
    "The server cannot answer until the workspace is set up (its dependencies are not downloaded, …); the " +
    "message says what to run.",
  LSP_TIMEOUT: "The call's time budget (`timeoutMs`) ran out; the query was cancelled.",
  LSP_INVALID_ARGUMENTS: "The tool's arguments are invalid (the message names the argument and the fix).",
  LSP_POSITION_OUT_OF_RANGE:
    "The line is past the end of the file, or the column past the end of its line (the message gives the sizes).",
  LSP_SYMBOL_NOT_FOUND:
    "`symbol` does not occur on the line or within 3 lines of it (the message lists the line's identifiers).",
  LSP_CANNOT_RENAME: "renamePreview: the position cannot be renamed (a keyword, a literal, a symbol declared in a " +
    "library) or the server refused the rename; the message says why. Nothing was changed.",
  LSP_ABORTED: "The caller abandoned the query (the Promise client's `signal` was aborted); it was cancelled."
}

const limitMeanings: Readonly<Record<keyof LspToolConfig.LspToolConfig, string>> = {
  maxLocations: "Location, symbol or call lines rendered before a final line says how many more were omitted.",
  maxResultChars: "Cap on the whole rendered text, truncation notice included (UTF-16 code units).",
  timeoutMs: "Budget of one call: queueing, opening, the request and closing; enforced by interruption.",
  maxBodyLines: "Lines of code shown per body (`include_body`); a longer body is cut and says how many lines were " +
    "left out and where they are (`path:first-last`).",
  maxBodyBytes: "UTF-8 bytes of code shown per answer, all bodies together; past it a body is cut, and later " +
    "bodies are named by where they are.",
  operations: "The operations the tool offers (non-empty, no repeats, any order). Its JSON Schema, description " +
    "and prompt section name only these; any other is `LSP_INVALID_ARGUMENTS` listing the offered ones."
}

/** What each kind of operation takes, as the per-operation table shows it. */
const takes = (operation: LspToolInput.ToolOperation): string => {
  switch (operation) {
    case "documentSymbol":
      return "`file_path`; `include_body` optional (each symbol's code)"
    case "workspaceSymbol":
      return "`query`; `file_path` optional (only that file's language server is searched); `include_body` optional"
    case "diagnostics":
      return "`file_path`; `severity` optional (the least serious kind to include, default `warning`)"
    case "renamePreview":
      return "`file_path`, `line`, and `character` or `symbol`; `new_name`"
    case "impact":
      return "`file_path`, `line`, and `character` or `symbol`; `depth` optional (levels of callers, 1 to 5, " +
        "default 2); no `include_body`"
    case "goToDefinition":
    case "goToTypeDefinition":
    case "goToImplementation":
      return "`file_path`, `line`, and `character` or `symbol`; `include_body` optional (each location's code)"
    default:
      return "`file_path`, `line`, and `character` or `symbol`"
  }
}

const resultKindText: Readonly<Record<LspResult.LspQueryResult["kind"], string>> = {
  locations: "locations",
  hover: "hover",
  symbols: "symbols",
  calls: "calls",
  diagnostics: "diagnostics",
  edits: "edits",
  impact: "impact"
}

/** The fixed cost of a tool configuration: description, compact JSON Schema and prompt section, in characters. */
const sizes = (operations: LspToolInput.Operations) => {
  const description = LspToolInput.descriptionFor(operations).length
  const schema = JSON.stringify(LspToolInput.jsonSchemaFor(operations)).length
  const prompt = LspToolPrompt.textFor(operations).length
  return { description, schema, prompt, total: description + schema + prompt + LspToolInput.name.length }
}

const tokens = (chars: number) => `~${Math.round(chars / 4)}`

const sizeRow = (label: string, operations: LspToolInput.Operations) => {
  const size = sizes(operations)
  return `| ${label} | ${size.description} (${tokens(size.description)}) | ${size.schema} (${
    tokens(size.schema)
  }) | ${size.prompt} (${tokens(size.prompt)}) | ${size.total} (${tokens(size.total)}) |`
}

const LspToolConfigJsonSchema = JSONSchema.make(LspToolConfig.LspToolConfig)

const annotationNames = ["title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const

/** The table of the tool's settings (`LspToolConfig`): the catalog's, and packages/tool-lsp/README.md's. */
export const limitsTable = (): string => {
  const defaults = Either.getOrThrow(LspToolConfig.decode({}))
  const limits = record(record(record(LspToolConfigJsonSchema).properties))
  return [
    "| key | type | default | meaning |",
    "|---|---|---|---|",
    ...Object.entries(limitMeanings).map(([key, meaning]) =>
      key === "operations"
        ? `| \`operations\` | array of operation names | all ${LspToolConfig.allOperations.length} | ${cell(meaning)} |`
        : `| \`${key}\` | ${cell(typeOf(record(LspToolConfigJsonSchema), record(limits[key])))} | ${
          code(record(defaults)[key])
        } | ${cell(meaning)} |`
    )
  ].join("\n")
}

export const toolCatalog = (): string => {
  const input = record(LspToolInput.jsonSchema)
  const required = strings(input.required)
  const inputRows = Object.entries(record(input.properties)).map(([key, value]) => {
    const property = record(value)
    const type = typeOf(input, property) + (typeof property.pattern === "string" ? ", not blank" : "")
    return `| \`${key}\` | ${cell(type)} | ${required.includes(key) ? "yes" : "no"} | ${
      cell(typeof property.description === "string" ? property.description : "")
    } |`
  })
  const annotations = record(LspMcp.tool.annotations)
  return [
    header("LspToolInput, LspToolOutput, LspToolConfig, LspToolPrompt and LspError"),
    "# Tool catalog",
    "",
    "lsp-seam gives a model one tool, `lsp`, from `@lsp-seam/tool-lsp`: as an `@effect/ai` tool " +
    "(`LspAiTool`), over MCP (`LspMcp`, `lsp-seam mcp`), and behind a Promise client (`LspClient`, " +
    "`LspSeam.makeClient`). Every adapter exposes the same name, description and input schema.",
    "",
    `## \`${LspToolInput.name}\``,
    "",
    "Description, as the model reads it (every operation offered, the default):",
    "",
    "```text",
    LspToolInput.description,
    "```",
    "",
    "With `operations` set to the reference's four (`goToDefinition`, `findReferences`, `goToImplementation`, " +
    "`hover`), the description, the JSON Schema and the prompt section are 0.1.0's, byte for byte; the " +
    "description is then:",
    "",
    "```text",
    LspToolInput.descriptionFor(LspQuery.referenceOperations),
    "```",
    "",
    "Annotations (MCP):",
    "",
    "| annotation | value |",
    "|---|---|",
    ...annotationNames.map((name) => `| \`${name}\` | ${code(annotations[name])} |`),
    "",
    "### Input",
    "",
    "One flat object for every operation. Positions are one-based and count UTF-16 code units. Validation " +
    "checks `operation` first (one of the offered operations), then that operation's own arguments in the order " +
    "below, and stops at the first problem with `LSP_INVALID_ARGUMENTS`, whose message says what to send for " +
    "that operation (`workspaceSymbol needs query: …`). Arguments an operation does not take (a `line` sent with " +
    "documentSymbol) and other properties are ignored.",
    "",
    "| operation | takes | result |",
    "|---|---|---|",
    ...LspToolInput.allOperations.map((operation) =>
      `| \`${operation}\` | ${cell(takes(operation))} | ${resultKindText[LspResult.kindOf(operation)]} |`
    ),
    "",
    "Arguments (the default configuration, every operation offered):",
    "",
    "| argument | type | required | meaning |",
    "|---|---|---|---|",
    ...inputRows,
    "",
    "The JSON Schema the model sees:",
    "",
    "```json",
    JSON.stringify(LspToolInput.jsonSchema, null, 2),
    "```",
    "",
    "### Output",
    "",
    "The model reads text, every position one-based, capped by the limits below:",
    "",
    "- **locations** (goToDefinition, findReferences, goToImplementation, goToTypeDefinition): one " +
    "`path:line:character` line per location, grouped by file, relative to the workspace when inside it.",
    "- **hover**: the server's markdown (`No hover information.` when empty).",
    "- **symbols** (documentSymbol, workspaceSymbol): one `path:line:character  Kind  container.name` line per " +
    "symbol, at the start of its name, grouped by file in order of first appearance and by position within a " +
    "file; document symbols are indented two spaces per nesting level (parents first), and every line keeps " +
    "its path. workspaceSymbol lists the workspace's own files first, then matches outside it as absolute " +
    "paths; when the search merged several language servers, each line ends with `  [provider]`.",
    "- **calls** (incomingCalls, outgoingCalls): a first line naming the function asked about " +
    "(`Calls to add (Function) at m.ts:1:17:` / `Calls from main (Function) at m.ts:18:17:`), then per caller " +
    "(or callee) `name  path:line:character` at its name, followed by its call sites indented two spaces, one " +
    "`path:line:character` each (in the caller's file for incoming calls, in the asked function's for outgoing " +
    "ones), grouped by file and in position order.",
    "- **impact**: a header naming the symbol and counting its uses and the places they are in " +
    "(`Impact of parse (Function) src/parse.ts:1 — 4 uses in 3 places`), a line counting each level " +
    "(`Levels: 0: 3 places (1 test) · 1: 2 callers (depth 2)`, with `N of M … shown, K cut` where `maxGroups` " +
    "cut a level), then a tree: each declaration that uses the symbol as `name (Kind) path:line — N uses: lines " +
    "…` (`top level of path` for a file's top level), and under it its callers, two spaces deeper per level, " +
    "`— N calls: lines …`. A declaration is shown once; met again (a caller of two declarations, a cycle) it " +
    "is a short back-reference (`— shown above`). Test code comes last, apart: `Tests (N declarations in M " +
    "files):`, a line per test declaration, and `Test files to run: …`. `maxLocations` caps the tree's lines " +
    "and the test lines each.",
    "- No locations, symbols or calls: `No results.`; `maxLocations` counts location, symbol or call lines " +
    "(call sites stay with their call); a line then says how many were omitted " +
    "(`3 more symbols omitted (limit: 100).`) and a last one in which files they are " +
    "(`Not shown, by file: src/a.ts (2), src/b.ts (1).`, at most 20 files named), so the question can be narrowed.",
    "",
    "Programs get the canonical value `{ result, text }`, whose `result` is the complete, uncapped seam result " +
    "with zero-based positions (`lsp-seam query --json` prints that `result`):",
    "",
    "```json",
    JSON.stringify(LspToolOutput.jsonSchema, null, 2),
    "```",
    "",
    "A location's path is rendered in the world of the workspace URI (`resolvedWorkspaceUri`):",
    "",
    "- **World.** The workspace is in a Windows world when its URI has a host (UNC, `file://server/share`) or " +
    "its path starts with `/<letter>:` or `/<letter>%3A` (any case); otherwise, `file:///` included, it is in " +
    "the POSIX world. A location is in the Windows world only when the workspace is and the location's URI too " +
    "has a host or a drive; otherwise it is in the POSIX world.",
    "- **Verbatim.** Each side is converted in its own world, and the location's URI is shown verbatim when " +
    "either conversion fails: not a `file:` URI, a malformed escape, an encoded `/`, a NUL or other control " +
    "character, a query or fragment, an empty, `.` or `..` segment, a host that is not a plain name, a host in " +
    "the POSIX world, a Windows path with neither host nor drive root (`file:///C:foo`), or a `\\` (encoded " +
    "or not) in a Windows-world name.",
    "- **Different worlds.** A POSIX location under a Windows workspace is shown as its own absolute path " +
    "(`file:///a.ts` under `file://server/` is `/a.ts`).",
    "- **Same world.** Relative to the workspace when inside it, by whole segments (`.` for the workspace " +
    "itself, `..x/a.ts` for a directory named `..x`); the absolute path when outside. In a Windows world drive " +
    "letters, hosts and names compare case-insensitively, the location keeps its own spelling and drive " +
    "letter, and every `\\` separator is shown as `/` (`src/A.ts`, `D:/lib/b.ts`, `//other/share/b.ts`). In " +
    "the POSIX world names compare exactly and a `\\` in a name is kept (`dir\\name/a.ts`); a drive is an " +
    "ordinary directory name there, so `file:///C:/w/a.ts` under a `file:///` workspace is `C:/w/a.ts`.",
    "",
    "### Limits",
    "",
    "Operator settings (`LspToolConfig`), never model input; unknown keys are `LSP_INVALID_CONFIG`.",
    "",
    limitsTable(),
    "",
    "### Size",
    "",
    "What the tool costs on every request, in characters (tokens estimated at ~4 characters each; the exact " +
    "count depends on the model's tokenizer). The JSON Schema is measured compact, as providers send it; the " +
    "total adds the tool's name.",
    "",
    "| `operations` | description | JSON Schema | prompt section | total |",
    "|---|---|---|---|---|",
    sizeRow(`all ${LspToolConfig.allOperations.length} (default)`, LspToolConfig.allOperations),
    sizeRow("the reference's 4 (0.1.0's texts, verbatim)", LspQuery.referenceOperations),
    "",
    "### System prompt section",
    "",
    `\`LspToolPrompt.section\` (\`LspToolPrompt.sectionFor(operations)\` for another configuration): name ` +
    `\`${LspToolPrompt.section.name}\`, order ${LspToolPrompt.section.order}. With every operation offered:`,
    "",
    "```text",
    LspToolPrompt.section.text,
    "```",
    "",
    "### Errors",
    "",
    "A failed call is an `LspError` with one of these codes and a message that says what to do next " +
    "(over MCP: `isError: true` and the text `error[CODE]: message`). Its `_tag` is the family of its code, " +
    "one `Schema.TaggedError` class each, for `Effect.catchTag`.",
    "",
    "| code | family | meaning |",
    "|---|---|---|",
    ...Object.entries(LspErrorRead.families).flatMap(([family, codes]) =>
      codes.map((c: LspError.LspErrorCode) => `| \`${c}\` | \`${family}\` | ${cell(errorMeanings[c])} |`)
    ),
    ""
  ].join("\n")
}
