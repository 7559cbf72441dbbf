/**
 * A file's diagnostics asked of tsserver itself, through typescript-language-server's `typescript.tsserverRequest`
 * command (`diagnosticsPull: "tsserver"`). typescript-language-server neither versions the sets it pushes nor
 * answers `textDocument/diagnostic`, so a pushed set cannot be told to be for the current text; tsserver's
 * `syntacticDiagnosticsSync`, `semanticDiagnosticsSync` and `suggestionDiagnosticsSync` requests answer for the
 * text tsserver holds, and tsserver handles requests in order, after the open or change the host sent before.
 * The host asks these three requests only, for the synced file; the model never reaches this command.
 */
import { LspError, type LspResult } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { pathToFileURL } from "node:url"
import type * as ServerInstance from "../servers/serverInstance.js"
import { normalizeItems } from "./normalizeDiagnostics.js"

/** The command typescript-language-server offers for a raw tsserver request. */
export const tsserverRequestCommand = "typescript.tsserverRequest"

/** The three kinds tsserver checks a file for, in the order it reports them. */
const requests = ["syntacticDiagnosticsSync", "semanticDiagnosticsSync", "suggestionDiagnosticsSync"] as const

/** tsserver's one-based line and offset. */
const Location = Schema.Struct({
  line: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
  offset: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))
})

const Related = Schema.Struct({
  message: Schema.String,
  span: Schema.optional(Schema.Struct({ file: Schema.String, start: Location, end: Location }))
})

const Diagnostic = Schema.Struct({
  start: Location,
  end: Location,
  text: Schema.String,
  category: Schema.String,
  code: Schema.optional(Schema.Number),
  source: Schema.optional(Schema.String),
  relatedInformation: Schema.optional(Schema.Array(Related))
})

/** The command's answer is tsserver's response; only its body is read. */
const Response = Schema.Struct({ body: Schema.Array(Diagnostic) })

/** Whether the server offers the command (its `executeCommandProvider.commands` names it). */
export const offered = (capabilities: ServerInstance.ServerCapabilities): boolean => {
  const provider = capabilities.executeCommandProvider
  return typeof provider === "object" && provider !== null && "commands" in provider &&
    Array.isArray(provider.commands) && provider.commands.includes(tsserverRequestCommand)
}

/** tsserver's categories as LSP severities, as typescript-language-server maps them for its pushed sets. */
const severity = (category: string): number =>
  category === "warning" ? 2 : category === "suggestion" ? 4 : category === "message" ? 3 : 1

const position = (location: typeof Location.Type) => ({ line: location.line - 1, character: location.offset - 1 })

/** A tsserver diagnostic as an LSP one, which the pushed and pulled paths already know how to read. */
const asLsp = (diagnostic: typeof Diagnostic.Type) => ({
  range: { start: position(diagnostic.start), end: position(diagnostic.end) },
  severity: severity(diagnostic.category),
  ...(diagnostic.code === undefined ? {} : { code: diagnostic.code }),
  source: diagnostic.source ?? "typescript",
  message: diagnostic.text,
  relatedInformation: (diagnostic.relatedInformation ?? []).flatMap((related) =>
    related.span === undefined ? [] : [{
      location: {
        uri: pathToFileURL(related.span.file).href,
        range: { start: position(related.span.start), end: position(related.span.end) }
      },
      message: related.message
    }]
  )
})

const malformed = (request: string, problem: string): LspError.LspLocalError =>
  LspError.malformedResponse(
    `The language server's answer to ${tsserverRequestCommand} ${request} is malformed: ${problem}. ` +
      "This is a server bug or an incompatible server; retrying will not help.",
    { operation: "diagnostics", method: "workspace/executeCommand", where: request }
  )

/** One kind of diagnostics for `uri`, in LSP form. */
const ask = (instance: ServerInstance.ServerInstance, uri: string, request: (typeof requests)[number]) =>
  Effect.flatMap(
    instance.connection.request("workspace/executeCommand", {
      command: tsserverRequestCommand,
      arguments: [request, { file: uri }]
    }),
    (answer) =>
      Option.match(answer, {
        onNone: () => Effect.fail(malformed(request, "the response has no result")),
        onSome: (result) =>
          Either.match(Schema.decodeUnknownEither(Response)(result, { errors: "all" }), {
            onLeft: (error) => Effect.fail(malformed(request, ParseResult.TreeFormatter.formatErrorSync(error))),
            onRight: (response) => Effect.succeed(response.body.map(asLsp))
          })
      })
  )

/**
 * The diagnostics of `uri`'s text as tsserver holds it (the synced text): the syntactic, semantic and suggestion
 * sets, asked in turn. Diagnostics in other files never come back: each request is for this file.
 */
export const collect = (
  instance: ServerInstance.ServerInstance,
  uri: string
): Effect.Effect<ReadonlyArray<LspResult.LspDiagnostic>, LspError.LspLocalError> =>
  Effect.flatMap(
    Effect.forEach(requests, (request) => ask(instance, uri, request)),
    (sets) => normalizeItems(uri, sets.flat(), ` (${tsserverRequestCommand})`)
  )
