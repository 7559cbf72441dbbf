import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"

/** A small TypeScript project of @lsp-seam/lsp-stdio's tests (a shape interface, two classes, their use). */
export const workspace = fileURLToPath(new URL("../../lsp-stdio/test/fixtures/ts-project", import.meta.url))

/** The stdio test server of @lsp-seam/lsp-stdio, driven by FAKE_LSP (see the header of that script). */
export const fakeServer = fileURLToPath(new URL("../../lsp-stdio/test/fixtures/fake-server.mjs", import.meta.url))

/** A fresh directory under the OS temp dir (no node_modules above it). */
export const tempDir = (prefix: string): string =>
  NodeFs.mkdtempSync(NodePath.join(NodeFs.realpathSync(NodeOs.tmpdir()), `lsp-seam-${prefix}-`))
