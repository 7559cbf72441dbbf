/**
 * The declaration a position sits in: of a file's declarations (its documentSymbol answer, flattened, as
 * providers give it), those whose range holds the position, innermost first. The one rule for everything
 * grouped by where it sits — the callers the stdio host derives from references, the declarations an `impact`
 * answer groups uses by, and anything else that names a place by its enclosing declaration.
 *
 * What the servers' symbol ranges make of it: an overload signature without a body is its own symbol whose
 * range ends at its `;`, so a position inside the implementation is held only by the implementation's symbol;
 * a nested function, a method of a class inside a namespace and an arrow function assigned to a `const` are
 * each held by their own symbol, inside their container's; a position no symbol holds is at module level, and
 * has none. A server that gives an assignment only its name's range (pyright) holds nothing of its value in it:
 * widen the ranges first to place positions inside a multi-line assignment.
 *
 * @since 0.1.0
 */
import type * as LspQuery from "./LspQuery.js"

/**
 * What a declaration needs to be placed: its range and, from a tree, how deep it is nested.
 *
 * @since 0.1.0
 * @category models
 */
export interface Declaration {
  readonly range: LspQuery.LspRange
  readonly depth?: number | undefined
}

const before = (a: LspQuery.LspPosition, b: LspQuery.LspPosition) =>
  a.line < b.line || (a.line === b.line && a.character < b.character)

/**
 * Whether `range` holds `position`: from its start, up to but not including its end (a position at the end is
 * just past the declaration's last character).
 *
 * @since 0.1.0
 * @category utils
 */
export const holds = (range: LspQuery.LspRange, position: LspQuery.LspPosition): boolean =>
  !before(position, range.start) && before(position, range.end)

/**
 * Inner before outer: the later start first; of two starting together, the earlier end; of two with the same
 * range (a symbol and its only child), the deeper.
 */
const innerFirst = (a: Declaration, b: Declaration) =>
  before(b.range.start, a.range.start) ?
    -1 :
    before(a.range.start, b.range.start) ?
    1 :
    before(a.range.end, b.range.end) ?
    -1 :
    before(b.range.end, a.range.end) ?
    1 :
    (b.depth ?? 0) - (a.depth ?? 0)

/**
 * Every declaration of `declarations` whose range holds `position`, innermost first; none at module level.
 *
 * @since 0.1.0
 * @category utils
 */
export const enclosingAll = <A extends Declaration>(
  declarations: ReadonlyArray<A>,
  position: LspQuery.LspPosition
): ReadonlyArray<A> => declarations.filter((declaration) => holds(declaration.range, position)).sort(innerFirst)

/**
 * The innermost declaration whose range holds `position`, or undefined when none does (module level).
 *
 * @since 0.1.0
 * @category utils
 */
export const enclosing = <A extends Declaration>(
  declarations: ReadonlyArray<A>,
  position: LspQuery.LspPosition
): A | undefined => enclosingAll(declarations, position)[0]
