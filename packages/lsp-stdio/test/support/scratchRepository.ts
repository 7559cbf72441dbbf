/**
 * A repository written into a new temporary directory for one test: its files, by path relative to its root.
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

/** Writes `files` under a new directory named after `prefix`; the directory's real path. */
export const make = (prefix: string, files: Readonly<Record<string, string>>): string => {
  const root = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), `lsp-seam-${prefix}-`)))
  for (const [file, text] of Object.entries(files)) {
    NodeFs.mkdirSync(NodePath.dirname(NodePath.join(root, file)), { recursive: true })
    NodeFs.writeFileSync(NodePath.join(root, file), text)
  }
  return root
}

/** A file's path relative to `root`, from a `file:` URI. */
export const relative = (root: string, uri: string): string => NodePath.relative(root, new URL(uri).pathname)
