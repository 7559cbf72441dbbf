/**
 * The text the model reads for a seam result: locations as `path:line:character` lines, hover as its
 * contents, symbols, calls and diagnostics as lines of their own, preceded by what a `symbol` was resolved to
 * and why an answer may be incomplete; capped by `maxLocations` lines and `maxResultChars` characters, notices
 * included. Rendering never changes the canonical result.
 *
 * @since 0.1.0
 */
import * as Render from "./internal/render.js"

/**
 * The text for a result with nothing in it.
 *
 * @since 0.1.0
 * @category constants
 */
export const noResults: string = Render.noResults

/**
 * The text for a hover result without contents.
 *
 * @since 0.1.0
 * @category constants
 */
export const noHoverInformation: string = Render.noHoverInformation

/**
 * The caps: at most `maxLocations` location, symbol, call or diagnostic lines, then `maxResultChars`
 * characters for the whole text.
 *
 * @since 0.1.0
 * @category models
 */
export type { RenderOptions } from "./internal/render.js"

/**
 * What the model asked, as far as rendering needs it: the path as the model gave it and whether it gave a
 * column and a symbol. Any validated `LspToolInput` is one.
 *
 * @since 0.1.0
 * @category models
 */
export type { RenderRequest } from "./internal/render.js"

/**
 * The model's text for a seam result: the resolution line and the incomplete-answer lines first (so a cap
 * never cuts them off), then the answer; capped as a whole. `request` is the validated tool input, used to
 * echo the model's own path and to tell whether it gave a column.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = Render.render

/**
 * Caps `text` at `maxResultChars` UTF-16 code units. A longer text is cut and ends with a newline and the
 * truncation notice, and is then exactly `maxResultChars` long; a cut never splits a surrogate pair.
 *
 * @since 0.1.0
 * @category rendering
 */
export const truncate = Render.truncate

/**
 * The notice that ends a text cut at `maxResultChars`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const truncationNotice = Render.truncationNotice

/**
 * The line that opens the text of an answer given while the server was still starting up.
 *
 * @since 0.1.0
 * @category rendering
 */
export const incompleteNote: string = Render.incompleteNote
