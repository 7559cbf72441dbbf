/**
 * The code of a location or symbol (`include_body`) as the model reads it: below its line, indented, each
 * line with its one-based number. Two caps, from the tool's configuration: `maxBodyLines` lines per body, and
 * `maxBodyBytes` UTF-8 bytes of code per answer, all bodies together. A cut body ends with a line that says
 * how many lines were left out and where they are (`path:first-last`); once the answer's bytes are spent, a
 * body is only named by where it is. Nothing here changes the canonical result.
 */
import type { LspResult } from "@lsp-seam/lsp"

/** The caps of the bodies of one answer. */
export interface BodyOptions {
  readonly maxBodyLines: number
  readonly maxBodyBytes: number
}

/** The default caps (those of `LspToolConfig.defaults`). */
export const defaultBodyOptions: BodyOptions = { maxBodyLines: 150, maxBodyBytes: 12_000 }

const utf8 = new TextEncoder()

/** Renders bodies one after another, counting the answer's bytes; one renderer per answer. */
export type BodyRenderer = (path: string, body: LspResult.LspBody) => string

const span = (path: string, first: number, last: number) =>
  first === last ? `${path}:${first}` : `${path}:${first}-${last}`

/** A renderer for one answer: each call renders one body and spends from the answer's byte budget. */
export const makeBodyRenderer = (options: BodyOptions): BodyRenderer => {
  let left = options.maxBodyBytes
  return (path, body) => {
    const lines = body.text.split(/\r\n|\r|\n/)
    const first = body.range.start.line + 1
    const last = first + lines.length - 1
    const width = String(last).length
    const shown: Array<string> = []
    for (const line of lines) {
      if (shown.length >= options.maxBodyLines) break
      const bytes = utf8.encode(line).length + 1
      if (bytes > left) break
      left -= bytes
      shown.push(`    ${String(first + shown.length).padStart(width)}  ${line}`)
    }
    if (shown.length === lines.length) return shown.join("\n")
    const from = first + shown.length
    const reason = shown.length >= options.maxBodyLines
      ? `maxBodyLines ${options.maxBodyLines}`
      : `maxBodyBytes ${options.maxBodyBytes} for the answer`
    const omitted = last - from + 1
    return [
      ...shown,
      `    … ${omitted} more line${omitted === 1 ? "" : "s"} not shown (${reason}): read ${span(path, from, last)}`
    ].join("\n")
  }
}

/**
 * Whether `inner` lies within one of `shown` (the bodies already rendered for the same file): a method's code
 * is part of its class's, and is not shown twice.
 */
export const within = (shown: ReadonlyArray<LspResult.LspBody>, inner: LspResult.LspBody): boolean =>
  shown.some((outer) =>
    outer.range.start.line <= inner.range.start.line && inner.range.end.line <= outer.range.end.line
  )

/** How the bodies of one answer are rendered: with one renderer (one byte budget), or noted as missing. */
export interface Bodies {
  readonly render: BodyRenderer
  /** Whether the model asked for code, so that a location without any says so. */
  readonly asked: boolean
  /** The bodies shown so far, by path: a body within one of them is part of it. */
  readonly shown: Map<string, Array<LspResult.LspBody>>
}

export const missingBody =
  "    (no code: the file is outside the workspace, could not be read, or is past the first 20 files)"

/** The code below an entry, or undefined when there is nothing to add. */
export const bodyOf = (bodies: Bodies | undefined, path: string, body: LspResult.LspBody | undefined) => {
  if (bodies === undefined) return undefined
  if (body === undefined) return bodies.asked ? () => missingBody : undefined
  return () => {
    const shown = bodies.shown.get(path) ?? []
    if (within(shown, body)) return ""
    bodies.shown.set(path, [...shown, body])
    return bodies.render(path, body)
  }
}

/** The bodies of one answer, rendered with the caps of `options` (defaults where absent). */
export const makeBodies = (
  options: { readonly maxBodyLines?: number | undefined; readonly maxBodyBytes?: number | undefined },
  asked: boolean
): Bodies => ({
  render: makeBodyRenderer({
    maxBodyLines: options.maxBodyLines ?? defaultBodyOptions.maxBodyLines,
    maxBodyBytes: options.maxBodyBytes ?? defaultBodyOptions.maxBodyBytes
  }),
  asked,
  shown: new Map()
})
