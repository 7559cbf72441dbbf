/**
 * The `maxLocations` cap on an answer's lines: the entries kept, then a line counting the ones left out and a
 * line saying in which files they are, so the model can narrow its question.
 */

/**
 * The final line after `maxLocations` lines, when entries were left out; `noun` names them:
 * `location` (the default), `symbol` or `call`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const omissionLine = (omitted: number, maxLocations: number, noun = "location"): string =>
  `${omitted} more ${noun}${omitted === 1 ? "" : "s"} omitted (limit: ${maxLocations}).`

/** How many files `leftOutLine` names before it says how many more there are. */
const leftOutFiles = 20

/**
 * The line after the omission line that says where the left-out entries are, so the model can narrow its
 * question: `Not shown, by file: src/a.ts (12), src/b.ts (3).` (files in the answer's order).
 *
 * @since 0.1.0
 * @category rendering
 */
export const leftOutLine = (paths: ReadonlyArray<string>): string => {
  const counts = new Map<string, number>()
  for (const path of paths) counts.set(path, (counts.get(path) ?? 0) + 1)
  const named = [...counts].slice(0, leftOutFiles).map(([path, count]) => `${path} (${count})`)
  const more = counts.size - named.length
  return `Not shown, by file: ${named.join(", ")}${more > 0 ? `, and ${more} more file${more === 1 ? "" : "s"}` : ""}.`
}

/** One rendered entry and the file it belongs to; `more`, the code below it, is rendered only if it is shown. */
export interface Entry {
  readonly text: string
  readonly path: string
  readonly more?: (() => string) | undefined
}

/**
 * At most `max` of `entries`, then, when some were left out, the omission line naming `noun` and the line
 * that says in which files they are.
 */
export const capped = (entries: ReadonlyArray<Entry>, max: number, noun: string): string => {
  const kept = entries.slice(0, max).map((entry) => {
    const more = entry.more?.() ?? ""
    return more === "" ? entry.text : `${entry.text}\n${more}`
  })
  const left = entries.slice(max)
  if (left.length === 0) return kept.join("\n")
  return [...kept, omissionLine(left.length, max, noun), leftOutLine(left.map((entry) => entry.path))].join("\n")
}
