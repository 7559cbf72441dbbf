/**
 * The cap on the whole text the model reads: `maxResultChars` UTF-16 code units, the truncation notice
 * included, never splitting a surrogate pair.
 */

/**
 * The notice that ends a text cut at `maxResultChars`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const truncationNotice = (totalChars: number, maxResultChars: number): string =>
  `[truncated: ${totalChars} characters in total, limit ${maxResultChars}]`

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff

/**
 * Caps `text` at `maxResultChars` UTF-16 code units. A longer text is cut and ends with a newline and the
 * truncation notice, and is then exactly `maxResultChars` long; when even the notice does not fit, the text
 * is the notice cut to the cap. A cut never splits a surrogate pair: the orphaned half becomes `…`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const truncate = (text: string, maxResultChars: number): string => {
  if (text.length <= maxResultChars) return text
  const notice = truncationNotice(text.length, maxResultChars)
  if (notice.length >= maxResultChars) return notice.slice(0, maxResultChars)
  const keep = maxResultChars - notice.length - 1
  const kept = keep > 0 && isHighSurrogate(text.charCodeAt(keep - 1))
    ? text.slice(0, keep - 1) + "…"
    : text.slice(0, keep)
  return `${kept}\n${notice}`
}
