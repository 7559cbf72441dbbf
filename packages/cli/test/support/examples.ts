/**
 * The TypeScript examples of the documentation (README.md, packages/*\/README.md, docs/*.md), read from the
 * Markdown. Every ```ts or ```typescript block must say what it is in an HTML comment on the line before it (blank
 * lines allowed between), so that no example is left out by accident:
 *
 * - `<!-- example: run -->`: a program, compiled and run with Node; it must exit 0.
 * - `<!-- example: test -->`: a test file, compiled and run with vitest; its tests must pass.
 * - `<!-- example: fragment: why -->`: compiled only; it says what it needs that a test cannot give it (a model,
 *   a cluster).
 *
 * A `run` block may be followed by a block marked `<!-- example: output -->`: the program's standard output.
 */
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

/** What the test does with an example. */
export type Treatment = "run" | "test" | "fragment"

export interface Example {
  /** The Markdown file, relative to the repository's root. */
  readonly file: string
  /** The one-based line of the opening fence. */
  readonly line: number
  readonly treatment: Treatment
  readonly code: string
  /** For `run`: the standard output the documentation shows, when it shows one. */
  readonly output: string | undefined
}

interface Block {
  readonly line: number
  readonly info: string
  readonly code: string
  /** The example marker on the line before the fence, when there is one. */
  readonly marker: string | undefined
  /** The marker's reason, after a colon. */
  readonly reason: string
}

const fenceOpen = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/
// `<!-- example: KIND -->`, or `<!-- example: KIND: why -->`.
const markerLine = /^<!--\s*example:\s*(\w+)\s*(?::\s*(.*?))?\s*-->$/

// The fenced blocks of a Markdown file, with the fence length honoured: a ```ts inside a ````text block is text.
const blocks = (markdown: string): ReadonlyArray<Block> => {
  const lines = markdown.split("\n")
  const found: Array<Block> = []
  let lastContent: string | undefined
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const open = fenceOpen.exec(line)
    if (open === null) {
      if (line.trim() !== "") lastContent = line.trim()
      continue
    }
    const fence = open[1]!
    const close = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`)
    let end = i + 1
    while (end < lines.length && !close.test(lines[end]!)) end++
    const marker = lastContent === undefined ? null : markerLine.exec(lastContent)
    found.push({
      line: i + 1,
      info: open[2]!,
      code: lines.slice(i + 1, end).join("\n") + "\n",
      marker: marker?.[1],
      reason: marker?.[2] ?? ""
    })
    lastContent = undefined
    i = end
  }
  return found
}

const isTypeScript = (info: string) => info === "ts" || info === "typescript"
const isTreatment = (marker: string): marker is Treatment =>
  marker === "run" || marker === "test" || marker === "fragment"

/**
 * The examples of one Markdown file (`file` names it in messages), and the problems that keep the file from being
 * checked: a TypeScript block without a marker, an unknown marker, an output that follows no `run` example.
 */
export const parse = (
  file: string,
  markdown: string
): { readonly examples: ReadonlyArray<Example>; readonly problems: ReadonlyArray<string> } => {
  const examples: Array<Example> = []
  const problems: Array<string> = []
  for (const block of blocks(markdown)) {
    const where = `${file}:${block.line}`
    if (block.marker === "output") {
      const previous = examples.at(-1)
      if (previous === undefined || previous.treatment !== "run" || previous.output !== undefined) {
        problems.push(`${where}: an output block must follow a \`run\` example`)
      } else {
        examples[examples.length - 1] = { ...previous, output: block.code }
      }
      continue
    }
    if (!isTypeScript(block.info)) {
      if (block.marker !== undefined) {
        problems.push(`${where}: \`example: ${block.marker}\` marks a non-TypeScript block`)
      }
      continue
    }
    if (block.marker === undefined) {
      problems.push(`${where}: a TypeScript block needs <!-- example: run|test|fragment --> on the line before it`)
    } else if (!isTreatment(block.marker)) {
      problems.push(`${where}: unknown marker \`example: ${block.marker}\` (run, test, fragment or output)`)
    } else if (block.marker === "fragment" && block.reason === "") {
      problems.push(`${where}: a fragment says why it is not run: <!-- example: fragment: needs … -->`)
    } else {
      examples.push({
        file,
        line: block.line,
        treatment: block.marker,
        code: block.code,
        output: undefined
      })
    }
  }
  return { examples, problems }
}

/** The documentation files whose examples are checked: the READMEs and docs/*.md, relative to `root`. */
export const documentation = (root: string): ReadonlyArray<string> => {
  const markdown = (dir: string) =>
    NodeFs.readdirSync(NodePath.join(root, dir)).filter((name) => name.endsWith(".md")).map((name) =>
      dir === "." ? name : `${dir}/${name}`
    )
  const packages = NodeFs.readdirSync(NodePath.join(root, "packages")).filter((name) =>
    NodeFs.existsSync(NodePath.join(root, "packages", name, "README.md"))
  ).map((name) => `packages/${name}/README.md`)
  return ["README.md", ...packages, ...markdown("docs")].sort()
}

/** A file name for an example in the scratch project: where it comes from, and `.test.ts` for tests. */
export const fileName = (example: Example): string =>
  `${example.file.replace(/\.md$/, "").replace(/[^A-Za-z0-9]+/g, "-")}-${example.line}${
    example.treatment === "test" ? ".test" : ""
  }.ts`
