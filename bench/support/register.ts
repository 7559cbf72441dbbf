/**
 * Makes `@lsp-seam/*` imports resolve to package sources. Must be imported (and evaluated) before any module
 * that imports a workspace package, which is why the entry points load everything else dynamically.
 */
import { register } from "node:module"

register("./sourceResolver.mjs", import.meta.url)
