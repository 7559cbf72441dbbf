/**
 * A generated TypeScript monorepo for cross-project questions at scale: a `core` package that declares
 * `Widget` and `makeWidget`, and `projects` packages that each depend on it (package.json) and use both in every
 * one of their `filesPerProject` files. Used by the deadline tests and the monorepo bench.
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

export interface Monorepo {
  readonly root: string
  /** The package directories that use core, relative to the root (`packages/p00`, …). */
  readonly users: ReadonlyArray<string>
  /** Where `Widget` is declared: the file (relative) and the zero-based position of its name. */
  readonly widget: { readonly filePath: string; readonly line: number; readonly character: number }
  /** Where `makeWidget` is declared. */
  readonly makeWidget: { readonly filePath: string; readonly line: number; readonly character: number }
  readonly remove: () => void
}

const compilerOptions = { strict: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", types: [] }

/** Writes the monorepo into a new temporary directory. */
export const make = (options: { readonly projects: number; readonly filesPerProject: number }): Monorepo => {
  const root = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "lsp-seam-generated-")))
  const write = (file: string, text: string) => {
    NodeFs.mkdirSync(NodePath.dirname(NodePath.join(root, file)), { recursive: true })
    NodeFs.writeFileSync(NodePath.join(root, file), text)
  }
  write("package.json", JSON.stringify({ name: "generated", private: true }))
  write("packages/core/package.json", JSON.stringify({ name: "@generated/core" }))
  write("packages/core/tsconfig.json", JSON.stringify({ compilerOptions, include: ["src"] }))
  write(
    "packages/core/src/index.ts",
    "export class Widget {\n  constructor(readonly name: string) {}\n}\n\n" +
      "export function makeWidget(name: string): Widget {\n  return new Widget(name)\n}\n"
  )
  const users: Array<string> = []
  for (let index = 0; index < options.projects; index++) {
    const name = `p${String(index).padStart(2, "0")}`
    const directory = `packages/${name}`
    users.push(directory)
    write(
      `${directory}/package.json`,
      JSON.stringify({ name: `@generated/${name}`, dependencies: { "@generated/core": "*" } })
    )
    write(`${directory}/tsconfig.json`, JSON.stringify({ compilerOptions, include: ["src"] }))
    for (let file = 0; file < options.filesPerProject; file++) {
      write(
        `${directory}/src/part${file}.ts`,
        `import { makeWidget, Widget } from "../../core/src/index.js"\n\n` +
          `export function build${file}(): Widget {\n  return makeWidget("${name}-${file}")\n}\n\n` +
          `export const label${file}: string = build${file}().name\n`
      )
    }
  }
  return {
    root,
    users,
    widget: { filePath: "packages/core/src/index.ts", line: 0, character: 13 },
    makeWidget: { filePath: "packages/core/src/index.ts", line: 4, character: 16 },
    remove: () => NodeFs.rmSync(root, { recursive: true, force: true })
  }
}
