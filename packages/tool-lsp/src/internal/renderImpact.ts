/**
 * An impact answer as the model reads it: a header naming the symbol and counting its uses and the places they
 * are in, a line counting each level, then a tree — each declaration that uses the symbol, and under it its
 * callers, indented by level, `name (Kind) path:line — N uses: lines …` — and last the test code, apart, with
 * the test files to run. A declaration is shown once; where it is met again (a caller of two declarations, a
 * cycle) a short back-reference stands for it. `maxLocations` caps the tree's lines and the test lines each.
 */
import type { LspResult } from "@lsp-seam/lsp"
import { capped, type Entry } from "./capped.js"
import * as UriPath from "./uriPath.js"

type Node = LspResult.LspImpactNode

/** How many distinct lines a node's uses list before `…`. */
const listedLines = 10

/** How many test files the last line names before it says how many more there are. */
const listedFiles = 20

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`

/** What the model asked, as far as this rendering needs it (a `RenderRequest`). */
export interface ImpactRequest {
  readonly file_path?: string | undefined
  readonly line?: number | undefined
}

/** `lines 4, 9` of `uses`, one-based, each line once, in order. */
const linesOf = (uses: ReadonlyArray<LspResult.LspImpactNode["uses"][number]>): string => {
  const lines = [...new Set(uses.map((use) => use.start.line + 1))].sort((a, b) => a - b)
  const named = lines.slice(0, listedLines).join(", ")
  return `${lines.length === 1 ? "line" : "lines"} ${named}${lines.length > listedLines ? ", …" : ""}`
}

/** The header line: what the answer is about, and how many uses in how many places. */
const headerLine = (result: LspResult.LspImpactResult, pathOf: (uri: string) => string, request?: ImpactRequest) => {
  const target = result.target
  const about = target !== undefined
    ? `${target.name} (${target.kind}) ${pathOf(target.uri)}:${target.selectionRange.start.line + 1}`
    : request?.file_path === undefined
    ? "the symbol asked about"
    : `the symbol at ${request.file_path}:${request.line ?? "?"}`
  const places = result.levels[0]?.found ?? result.nodes.filter((node) => node.level === 0).length
  return result.references === 0
    ? `Impact of ${about} — no uses found.`
    : `Impact of ${about} — ${plural(result.references, "use")} in ${plural(places, "place")}`
}

/** `Levels: 0: 3 places (1 test) · 1: 2 callers · 2: 40 of 45 callers shown, 5 cut (depth 2)`. */
const levelsLine = (result: LspResult.LspImpactResult): string => {
  const levels = result.levels.map(({ cut, found, level, shown, tests }) => {
    const noun = level === 0 ? "place" : "caller"
    const count = cut > 0 ? `${shown} of ${plural(found, noun)} shown, ${cut} cut` : plural(found, noun)
    return `${level}: ${count}${tests > 0 ? ` (${plural(tests, "test")})` : ""}`
  })
  return `Levels: ${levels.join(" · ")} (depth ${result.depth})`
}

/**
 * The text of an impact answer; `pathOf` renders a URI as location lines do. `No results.` when nothing was
 * found about nothing known (the position was off any symbol).
 */
export const renderImpact = (
  result: LspResult.LspImpactResult,
  maxLocations: number,
  request?: ImpactRequest
): string => {
  if (result.nodes.length === 0 && result.target === undefined) return "No results."
  const pathOf = (uri: string) => UriPath.render(uri, result.resolvedWorkspaceUri)
  const header = headerLine(result, pathOf, request)
  if (result.nodes.length === 0) return header
  const label = (node: Node) =>
    node.kind === "File"
      ? `top level of ${pathOf(node.uri)}`
      : `${node.name} (${node.kind}) ${pathOf(node.uri)}:${node.selectionRange.start.line + 1}`
  const byId = new Map(result.nodes.map((node) => [node.id, node]))
  const counted = (node: Node) => node.level === 0 ? plural(node.uses.length, "use") : plural(node.uses.length, "call")
  const entry = (node: Node, depth: number, text: string): Entry => ({
    text: `${"  ".repeat(depth)}${label(node)} — ${text}`,
    path: pathOf(node.uri)
  })

  // The tree: every declaration with uses at the root, its callers below it, their callers below them.
  const code = result.nodes.filter((node) => node.test !== true)
  const callers = new Map<number, Array<Node>>()
  for (const node of code) {
    for (const id of node.calls) callers.set(id, [...(callers.get(id) ?? []), node])
  }
  const shown = new Set<number>()
  const tree: Array<Entry> = []
  const path = new Set<number>()
  const visit = (node: Node, depth: number) => {
    shown.add(node.id)
    path.add(node.id)
    tree.push(entry(node, depth, `${counted(node)}: ${linesOf(node.uses)}`))
    for (const caller of callers.get(node.id) ?? []) {
      if (!shown.has(caller.id) && caller.level > node.level) visit(caller, depth + 1)
      else {
        const where = path.has(caller.id) ? "calls it back (a cycle), shown above" : shown.has(caller.id)
          ? "shown above"
          : "shown below"
        tree.push(entry(caller, depth + 1, where))
      }
    }
    path.delete(node.id)
  }
  for (const node of code) if (node.level === 0 && !shown.has(node.id)) visit(node, 0)
  // A caller reached from no declaration shown (none should be): at its own level, so nothing is lost.
  for (const node of code) if (!shown.has(node.id)) visit(node, node.level)

  // The tests, apart: what each uses or calls, then the files to run.
  const tests = result.nodes.filter((node) => node.test === true).map((node) => {
    const called = node.calls.flatMap((id) => byId.get(id)?.name ?? [])
    const to = node.level === 0 || called.length === 0 ? "" : ` to ${called.slice(0, 3).join(", ")}`
    return entry(node, 1, `${counted(node)}${to}: ${linesOf(node.uses)}`)
  })
  const files = result.testFiles.map(pathOf)
  const run = files.slice(0, listedFiles).join(", ") +
    (files.length > listedFiles ? `, and ${plural(files.length - listedFiles, "more file")}` : "")
  const testSection = tests.length === 0 ? [] : [
    `Tests (${plural(tests.length, "declaration")} in ${plural(files.length, "file")}):`,
    capped(tests, maxLocations, "test declaration"),
    `Test files to run: ${run}.`
  ]
  return [
    header,
    levelsLine(result),
    ...(tree.length === 0 ? [] : [capped(tree, maxLocations, "declaration")]),
    ...testSection
  ].join("\n")
}
