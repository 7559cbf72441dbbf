// Where a use sits, for an impact answer: the declaration it is grouped under, from the file's documentSymbol
// answer and the one enclosing rule (LspEnclosing), and the identity of a declaration across answers.
import * as LspEnclosing from "../../LspEnclosing.js"
import type { LspPosition, LspRange } from "../../LspQuery.js"
import type { LspSymbol, SymbolKindName } from "../result/symbols.js"

/** Kinds whose body runs when called: a use inside one is that function's. */
const callableKinds: ReadonlySet<SymbolKindName> = new Set(["Function", "Method", "Constructor"])

/** Kinds that hold a value: a use in one is the declaration's, unless a function holds the declaration. */
const valueKinds: ReadonlySet<SymbolKindName> = new Set([
  "Variable",
  "Constant",
  "Property",
  "Field",
  "Object",
  "Key",
  "Event",
  "Operator",
  "EnumMember"
])

/** Kinds whose callers `impact` asks for: whatever a call can reach, a class through its constructor. */
const followedKinds: ReadonlySet<SymbolKindName> = new Set([
  "Function",
  "Method",
  "Constructor",
  "Class",
  "Variable",
  "Constant",
  "Property",
  "Field"
])

/** Whether `impact` asks the callers of a declaration of `kind` (a file's top level has none). */
export const isFollowed = (kind: SymbolKindName): boolean => followedKinds.has(kind)

/**
 * The declaration a use at `position` is grouped under: the innermost function or method around it (nested
 * functions are their own); where no function holds it, the outermost value declaration around it (a
 * module-level `const` with an object or arrow function, a class field), else the innermost class, interface
 * or other container; none at a file's top level. A local variable is never a group: its function is. An
 * anonymous function (a callback, which servers name `<function>` or `Effect.gen() callback`) is never a group
 * either: it is named by nothing a reader can look up, so its use goes to the declaration that holds it.
 */
export const groupOf = (symbols: ReadonlyArray<LspSymbol>, position: LspPosition): LspSymbol | undefined => {
  const around = LspEnclosing.enclosingAll(symbols, position).filter((symbol) =>
    !(callableKinds.has(symbol.kind) && isAnonymous(symbol.name))
  )
  const callable = around.find((symbol) => callableKinds.has(symbol.kind))
  if (callable !== undefined) return callable
  const values = around.filter((symbol) => valueKinds.has(symbol.kind))
  return values.at(-1) ?? around[0]
}

/** Names servers give functions that have none: tsserver's `<function>`, `foo() callback`; `<anonymous>`. */
const isAnonymous = (name: string): boolean => /^<[^>]*>$|\bcallback$|^\(anonymous|^anonymous$/i.test(name.trim())

/** One key per declaration: its file and where its name starts; a file's top level is the file. */
export const keyOf = (declaration: {
  readonly uri: string
  readonly kind: SymbolKindName
  readonly selectionRange: LspRange
}): string =>
  declaration.kind === "File" || declaration.kind === "Module" && isOrigin(declaration.selectionRange)
    ? `${declaration.uri}#top`
    : `${declaration.uri}#${declaration.selectionRange.start.line}:${declaration.selectionRange.start.character}`

const isOrigin = (range: LspRange) =>
  range.start.line === 0 && range.start.character === 0 && range.end.line === 0 && range.end.character === 0

/** Whether `position` lies within `range` (end inclusive: a reference may be the name itself). */
export const within = (range: LspRange, position: LspPosition): boolean =>
  LspEnclosing.holds(range, position) ||
  (range.end.line === position.line && range.end.character === position.character)

/** The file system path of a `file:` URI (other schemes: the URI itself, which no provider will find). */
export const pathOf = (uri: string): string => {
  if (!uri.startsWith("file:")) return uri
  const url = new URL(uri)
  return decodeURIComponent(url.pathname)
}

/** `uri` relative to the workspace's URI, slash-separated; undefined outside it. */
export const relativeTo = (workspaceUri: string, uri: string): string | undefined => {
  const base = workspaceUri.endsWith("/") ? workspaceUri : `${workspaceUri}/`
  return uri.startsWith(base) ? decodeURIComponent(uri.slice(base.length)) : undefined
}

/** The last segment of a URI's path: a file's top level is named by it. */
export const fileName = (uri: string): string => decodeURIComponent(uri.slice(uri.lastIndexOf("/") + 1))
